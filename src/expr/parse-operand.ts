/**
 * Document paths and operands, shared by the condition, update and projection parsers.
 *
 *   path    ::= segment ( '.' segment | '[' number ']' )*      segment ::= word | #name
 *   operand ::= path | :value | function '(' operand (',' operand)* ')' | '(' operand ')'
 *
 * Which functions an operand may call depends on the expression: conditions have `size`,
 * update expressions `if_not_exists` and `list_append`.
 */
import type { ConditionFunction, Operand, OperandFunction, Parsed, PathSegment } from './ast.js';
import { MAX_NESTING_DEPTH } from '../model/limits.js';
import type { ParserState } from './parser-state.js';
import { isReservedWord } from './reserved-words.js';

export type OperandContext = 'condition' | 'update';

/** Keywords per expression family: a word that is one can never be a path segment. */
export const CONDITION_KEYWORDS: ReadonlySet<string> = new Set(['AND', 'OR', 'NOT', 'BETWEEN', 'IN']);
export const UPDATE_KEYWORDS: ReadonlySet<string> = new Set(['SET', 'REMOVE', 'ADD', 'DELETE']);
export const NO_KEYWORDS: ReadonlySet<string> = new Set();

const CONDITION_FUNCTION_ARITY: Readonly<Record<ConditionFunction, number>> = {
  attribute_exists: 1,
  attribute_not_exists: 1,
  attribute_type: 2,
  begins_with: 2,
  contains: 2,
};
const OPERAND_FUNCTION_ARITY: Readonly<Record<OperandFunction, number>> = {
  size: 1,
  if_not_exists: 2,
  list_append: 2,
};
const OPERAND_FUNCTIONS_BY_CONTEXT: Readonly<Record<OperandContext, ReadonlySet<string>>> = {
  condition: new Set(['size']),
  update: new Set(['if_not_exists', 'list_append']),
};
/** Functions whose first operand must be a document path. */
const PATH_FIRST = new Set(['attribute_exists', 'attribute_not_exists', 'if_not_exists']);

export function isConditionFunction(name: string): name is ConditionFunction {
  return Object.hasOwn(CONDITION_FUNCTION_ARITY, name);
}
export function isOperandFunction(name: string): name is OperandFunction {
  return Object.hasOwn(OPERAND_FUNCTION_ARITY, name);
}

export function isKeyword(state: ParserState, keywords: ReadonlySet<string>): boolean {
  const t = state.peek();
  return t.type === 'word' && keywords.has(t.text.toUpperCase());
}

function parseSegmentName(state: ParserState, keywords: ReadonlySet<string>): PathSegment {
  const t = state.peek();
  if (t.type === 'nameRef') {
    state.next();
    return { kind: 'nameRef', ref: t.text };
  }
  if (t.type === 'word' && !isKeyword(state, keywords)) {
    state.next();
    if (isReservedWord(t.text)) state.record('reserved', `Attribute name is a reserved keyword; reserved keyword: ${t.text}`);
    return { kind: 'name', name: t.text };
  }
  throw state.syntaxError();
}

export function parsePath(state: ParserState, keywords: ReadonlySet<string>): PathSegment[] {
  const path = [parseSegmentName(state, keywords)];
  for (;;) {
    if (state.at('.')) {
      state.next();
      path.push(parseSegmentName(state, keywords));
    } else if (state.at('[')) {
      state.next();
      const t = state.peek();
      if (t.type !== 'number') throw state.syntaxError();
      state.next();
      state.expect(']');
      path.push({ kind: 'index', index: Number(t.text) });
    } else {
      break;
    }
  }
  if (path.length > MAX_NESTING_DEPTH) {
    state.record('depth', `The document path has too many nesting levels; nesting levels: ${path.length}`);
  }
  return path;
}

/** Parses `name(args...)`'s argument list; the cursor is on `(`. */
export function parseArguments(state: ParserState, ctx: OperandContext, keywords: ReadonlySet<string>): Operand<Parsed>[] {
  state.expect('(');
  const args = [parseOperand(state, ctx, keywords)];
  while (state.at(',')) {
    state.next();
    args.push(parseOperand(state, ctx, keywords));
  }
  state.expect(')');
  return args;
}

/** Checks operand count and path-ness of a function's arguments. */
export function checkArguments(state: ParserState, name: string, args: readonly Operand<Parsed>[]): void {
  const arity = isConditionFunction(name)
    ? CONDITION_FUNCTION_ARITY[name]
    : isOperandFunction(name)
      ? OPERAND_FUNCTION_ARITY[name]
      : args.length;
  if (arity !== args.length) {
    state.record(
      'operands',
      `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${args.length}`,
    );
  } else if (PATH_FIRST.has(name) && args[0]?.kind !== 'path') {
    state.record('operands', `Operator or function requires a document path; operator or function: ${name}`);
  }
}

/** The wording DynamoDB uses for "function X belongs to another expression kind". */
export function notAllowedHere(ctx: OperandContext, name: string): string {
  return ctx === 'update'
    ? `The function is not allowed in an update expression; function: ${name}`
    : `The function is not allowed in a condition expression; function: ${name}`;
}

export function parseOperand(state: ParserState, ctx: OperandContext, keywords: ReadonlySet<string>): Operand<Parsed> {
  const t = state.peek();
  if (t.type === 'punct' && t.text === '(') {
    state.next();
    const inner = parseOperand(state, ctx, keywords);
    state.expect(')');
    return inner;
  }
  if (t.type === 'valueRef') {
    state.next();
    return { kind: 'value', value: t.text };
  }
  if (t.type === 'word' && !isKeyword(state, keywords) && state.peek(1).type === 'punct' && state.peek(1).text === '(') {
    state.next();
    return operandCall(state, ctx, t.text, parseArguments(state, ctx, keywords));
  }
  return { kind: 'path', path: parsePath(state, keywords) };
}

/** Builds a call used as an operand, recording why it may not be used there. */
export function operandCall(
  state: ParserState,
  ctx: OperandContext,
  name: string,
  args: Operand<Parsed>[],
): Operand<Parsed> {
  if (OPERAND_FUNCTIONS_BY_CONTEXT[ctx].has(name)) {
    checkArguments(state, name, args);
  } else if (ctx === 'condition' && isConditionFunction(name)) {
    checkArguments(state, name, args);
    state.record('misused', `The function is not allowed to be used this way in an expression; function: ${name}`);
  } else if (isConditionFunction(name) || isOperandFunction(name)) {
    state.record('function', notAllowedHere(ctx, name));
  } else {
    state.record('function', `Invalid function name; function: ${name}`);
  }
  // When an issue was recorded the tree is discarded, so the name's type does not matter.
  return { kind: 'call', name: name as OperandFunction, args };
}
