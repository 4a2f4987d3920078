/**
 * PartiQL conditions, operands, paths and values.
 *
 *   condition  ::= and ( OR and )*
 *   and        ::= not ( AND not )*
 *   not        ::= NOT not | '(' condition ')' | predicate
 *   predicate  ::= function '(' operand ( ',' operand )* ')' [ ( '=' | '<>' ) ( TRUE | FALSE ) ]
 *                                                                     begins_with, contains, ...
 *               |  operand ( cmp operand | [NOT] BETWEEN operand AND operand
 *                          | [NOT] IN ( '[' list ']' | '(' list ')' ) | IS [NOT] ( MISSING | NULL | BOOL | BOOLEAN | STRING ) )
 *   operand    ::= term ( ( '+' | '-' ) term )?
 *   term       ::= value | path | ( size | if_not_exists | list_append | set_add | set_delete ) '(' operand, ... ')'
 *   path       ::= name ( '.' name | '[' number ']' )*
 *   value      ::= string | ['-'] number | TRUE | FALSE | NULL | '?'
 *               |  '[' value, ... ']' | '<<' value, ... '>>' | '{' string ':' value, ... '}'
 */
import { ValidationException } from '../model/errors.js';
import type { Comparator, Condition, Operand, Path, TypeTest, Value } from './ast.js';
import { PartiqlSyntaxError } from './partiql-errors.js';
import { ParserState, node } from './parser-state.js';
import { UnconvertibleNumber, checkPartiqlNumber } from './read-number.js';

const COMPARATORS: Readonly<Record<string, Comparator>> = { '=': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const CONDITION_FUNCTIONS = new Set(['attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains']);
const OPERAND_FUNCTIONS = new Set(['size', 'if_not_exists', 'list_append', 'set_add', 'set_delete']);
/** `IS [NOT] <word>`: MISSING, or a type name and the DynamoDB type it tests. */
const IS_WHAT: Readonly<Record<string, 'MISSING' | TypeTest>> = { MISSING: 'MISSING', NULL: 'NULL', BOOL: 'BOOL', BOOLEAN: 'BOOL', STRING: 'S' };
/** Words that cannot start a term, by how DynamoDB reports them there (unquoted; quote a name to use one). */
const OPERATOR_WORDS = new Set(['IS', 'LIKE']);
const CLAUSE_WORDS = new Set(['ORDER']);

export function parseCondition(p: ParserState): Condition {
  let left = parseAnd(p);
  while (p.acceptKeyword('OR')) left = node({ kind: 'or', left, right: (expectRightHandSide(p), parseAnd(p)) });
  return left;
}

function parseAnd(p: ParserState): Condition {
  let left = parseNot(p);
  while (p.acceptKeyword('AND')) left = node({ kind: 'and', left, right: (expectRightHandSide(p), parseNot(p)) });
  return left;
}

/** After AND / OR: the statement may not end there. */
function expectRightHandSide(p: ParserState): void {
  if (p.peek.type === 'eof' || p.isPunct(';')) throw new PartiqlSyntaxError('Missing right-hand side expression of infix operator');
}

function parseNot(p: ParserState): Condition {
  if (p.acceptKeyword('NOT')) return node({ kind: 'not', operand: parseNot(p) });
  if (p.acceptPunct('(')) {
    const inner = parseCondition(p);
    p.expectPunct(')');
    return inner;
  }
  return parsePredicate(p);
}

function parsePredicate(p: ParserState): Condition {
  const t = p.peek;
  if (t.type === 'word' && CONDITION_FUNCTIONS.has(t.text.toLowerCase()) && p.peekAt(1).text === '(') {
    p.next();
    const args = parseArguments(p);
    return comparedWithBoolean(p, node({ kind: 'function', name: t.text.toLowerCase() as 'begins_with', args }));
  }
  const left = parseOperand(p);
  const cmp = p.peek.type === 'punct' ? COMPARATORS[p.peek.text] : undefined;
  if (cmp) {
    p.next();
    return node({ kind: 'compare', op: cmp, left, right: parseOperand(p) });
  }
  const negated = p.isKeyword('NOT') && (p.isKeyword('BETWEEN', 1) || p.isKeyword('IN', 1));
  if (negated) p.next();
  let condition: Condition;
  if (p.acceptKeyword('BETWEEN')) {
    const low = parseOperand(p);
    p.expectKeyword('AND');
    condition = node({ kind: 'between', operand: left, low, high: parseOperand(p) });
  } else if (p.acceptKeyword('IN')) {
    const close = p.acceptPunct('[') ? ']' : (p.expectPunct('('), ')');
    const list: Operand[] = [parseOperand(p)];
    while (p.acceptPunct(',')) list.push(parseOperand(p));
    p.expectPunct(close);
    condition = node({ kind: 'in', operand: left, list: Object.freeze(list) });
  } else if (p.acceptKeyword('IS')) {
    if (left.kind !== 'path') throw p.unexpected('a path before IS');
    const not = p.acceptKeyword('NOT');
    const what = p.peek.type === 'word' ? IS_WHAT[p.peek.text.toUpperCase()] : undefined;
    if (!what) throw new PartiqlSyntaxError('Expected type name');
    p.next();
    return node({ kind: 'is', operand: left, what, negated: not });
  } else throw p.unexpected('a comparison');
  return negated ? node({ kind: 'not', operand: condition }) : condition;
}

/** `f(...) = true` is f(...), `f(...) = false` NOT f(...) (and `<>` the other way round). */
function comparedWithBoolean(p: ParserState, test: Condition): Condition {
  const op = p.peek.type === 'punct' ? COMPARATORS[p.peek.text] : undefined;
  const value = p.peekAt(1);
  if ((op !== '=' && op !== '<>') || value.type !== 'word' || !['TRUE', 'FALSE'].includes(value.text.toUpperCase())) return test;
  p.next();
  p.next();
  return (value.text.toUpperCase() === 'TRUE') === (op === '=') ? test : node({ kind: 'not', operand: test });
}

function parseArguments(p: ParserState): readonly Operand[] {
  p.expectPunct('(');
  const args: Operand[] = [parseOperand(p)];
  while (p.acceptPunct(',')) args.push(parseOperand(p));
  p.expectPunct(')');
  return Object.freeze(args);
}

export function parseOperand(p: ParserState): Operand {
  const left = parseTerm(p);
  if (p.isPunct('+') || p.isPunct('-')) {
    const op = p.next().text as '+' | '-';
    return node({ kind: 'arithmetic', op, left, right: parseTerm(p) });
  }
  return left;
}

function parseTerm(p: ParserState): Operand {
  const t = p.peek;
  refuseNonTerm(p);
  if (t.type === 'word' && OPERAND_FUNCTIONS.has(t.text.toLowerCase()) && p.peekAt(1).text === '(') {
    p.next();
    return node({ kind: 'call', name: t.text.toLowerCase() as 'size', args: parseArguments(p) });
  }
  if (t.type === 'quoted' || (t.type === 'word' && !isValueKeyword(t.text))) return parsePath(p);
  return parseValue(p);
}

/**
 * Where a term must start, DynamoDB names what it found instead: the end of the statement
 * (`Unexpected term`), an operator (`IS`, `LIKE`), or a clause keyword (`ORDER`).
 */
function refuseNonTerm(p: ParserState): void {
  const t = p.peek;
  if (t.type === 'eof' || p.isPunct(';')) throw new PartiqlSyntaxError('Unexpected term');
  if (t.type === 'word' && OPERATOR_WORDS.has(t.text.toUpperCase())) throw new PartiqlSyntaxError('Unexpected operator');
  if (t.type === 'word' && CLAUSE_WORDS.has(t.text.toUpperCase())) throw new PartiqlSyntaxError('Unexpected keyword');
}

function isValueKeyword(word: string): boolean {
  const w = word.toUpperCase();
  return w === 'TRUE' || w === 'FALSE' || w === 'NULL';
}

export function parsePath(p: ParserState): Path {
  const segments: (string | number)[] = [p.name('an attribute name')];
  for (;;) {
    if (p.acceptPunct('.')) segments.push(p.name('an attribute name'));
    else if (p.acceptPunct('[')) {
      const t = p.next();
      if (t.type !== 'number' || !/^[0-9]+$/.test(t.text)) throw p.unexpected('a list index');
      segments.push(Number(t.text));
      p.expectPunct(']');
    } else break;
  }
  return node({ kind: 'path', segments: Object.freeze(segments) });
}

export function parseValue(p: ParserState): Value {
  const t = p.peek;
  if (t.type === 'string') {
    p.next();
    return node({ kind: 'string', value: t.text });
  }
  if (t.type === 'number' || (t.type === 'punct' && t.text === '-' && p.peekAt(1).type === 'number')) {
    const sign = t.text === '-' ? (p.next(), '-') : '';
    const value = sign + p.next().text;
    if (!isConvertible(value)) throw new PartiqlSyntaxError('');
    return node({ kind: 'number', value });
  }
  if (t.type === 'word' && isValueKeyword(t.text)) {
    p.next();
    const w = t.text.toUpperCase();
    return w === 'NULL' ? node({ kind: 'null' }) : node({ kind: 'boolean', value: w === 'TRUE' });
  }
  if (p.acceptPunct('?')) return node({ kind: 'parameter', index: p.parameters++ });
  if (p.acceptPunct('[')) return node({ kind: 'list', items: parseItems(p, ']') });
  if (p.acceptPunct('<<')) return node({ kind: 'bag', items: parseItems(p, '>>') });
  if (p.acceptPunct('{')) {
    const entries: { key: string; value: Value }[] = [];
    if (!p.acceptPunct('}')) {
      do {
        const key = p.next();
        if (key.type !== 'string') throw p.unexpected('a string key');
        p.expectPunct(':');
        entries.push(Object.freeze({ key: key.text, value: parseValue(p) }));
      } while (p.acceptPunct(','));
      p.expectPunct('}');
    }
    return node({ kind: 'tuple', entries: Object.freeze(entries) });
  }
  throw p.unexpected('a value');
}

/**
 * Whether DynamoDB can read the literal as a number at all (read-number.ts); a literal it cannot
 * (an exponent or scale past 32 bits) is a syntax error without detail. Range and precision are
 * checked when the value is bound, where its path is known.
 */
function isConvertible(text: string): boolean {
  try {
    checkPartiqlNumber(text);
  } catch (error) {
    if (error instanceof UnconvertibleNumber) return false;
    if (!(error instanceof ValidationException)) throw error;
  }
  return true;
}

function parseItems(p: ParserState, close: string): readonly Value[] {
  const items: Value[] = [];
  if (p.acceptPunct(close)) return Object.freeze(items);
  do items.push(parseValue(p));
  while (p.acceptPunct(','));
  p.expectPunct(close);
  return Object.freeze(items);
}
