/**
 * PartiQL statements (DynamoDB's subset):
 *
 *   statement ::= select | insert | update | delete | EXISTS '(' select ')'
 *   select    ::= SELECT ( '*' | path ( ',' path )* ) FROM target [ WHERE condition ]
 *                 [ ORDER BY path [ ASC | DESC ] ]
 *   target    ::= name [ '.' name ]                          table, or "Table"."Index"
 *   insert    ::= INSERT INTO name VALUE value               value: a tuple { 'a': ... } or '?'
 *   update    ::= UPDATE name assignments [ WHERE condition ] [ returning ]
 *               |  FROM name [ WHERE condition ] assignments [ returning ]
 *   assignments ::= ( SET path '=' operand ( ',' path '=' operand )* | REMOVE path ( ',' path )* )+
 *   returning ::= RETURNING ( ALL | MODIFIED ) ( OLD | NEW ) '*'
 *   delete    ::= DELETE FROM name [ WHERE condition ] [ RETURNING ALL OLD '*' ]
 *
 * Parsed statements are cached by their text (they hold no parameter values).
 */
import type { ParsedStatement, Path, Returning, SelectStatement, Statement, UpdateStatement } from './ast.js';
import { parseCondition, parseOperand, parsePath, parseValue } from './parse-expression.js';
import { PartiqlStatementError, PartiqlSyntaxError } from './partiql-errors.js';
import { ParserState, node } from './parser-state.js';
import { tokenize } from './tokenize.js';

/** Parsed statements kept, at most: a client that builds statement texts with values inlined would otherwise grow it without end. */
export const STATEMENT_CACHE_LIMIT = 500;
const cache = new Map<string, ParsedStatement>();

export function parseStatement(text: string): ParsedStatement {
  const cached = cache.get(text);
  if (cached) return cached;
  const p = new ParserState(tokenize(text));
  const statement = parseAny(p);
  p.acceptPunct(';');
  if (p.peek.type !== 'eof') throw new PartiqlSyntaxError('Unexpected token after expression');
  const parsed = Object.freeze({ statement, parameterCount: p.parameters });
  if (cache.size >= STATEMENT_CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(text, parsed);
  return parsed;
}

/** Statements in the cache now. */
export function statementCacheSize(): number {
  return cache.size;
}

function parseAny(p: ParserState): Statement {
  if (p.acceptKeyword('SELECT')) return parseSelect(p);
  if (p.acceptKeyword('INSERT')) {
    p.expectKeyword('INTO');
    const table = p.name('a table name');
    // DynamoDB reads `INSERT INTO T t VALUE ...` as a statement that ends before `t`.
    if (!p.isKeyword('VALUE') && p.peek.type !== 'eof') throw new PartiqlSyntaxError('Unexpected token after expression');
    p.expectKeyword('VALUE');
    return node({ kind: 'insert', table, item: parseValue(p) });
  }
  if (p.acceptKeyword('UPDATE')) return parseUpdate(p);
  if (p.acceptKeyword('FROM')) return parseFromFirstUpdate(p);
  if (p.acceptKeyword('DELETE')) {
    p.expectKeyword('FROM');
    if ((p.peek.type !== 'word' && p.peek.type !== 'quoted') || p.isKeyword('WHERE')) throw new PartiqlSyntaxError('Expected identifier for simple path');
    const table = p.name('a table name');
    refuseAlias(p, ['WHERE', 'RETURNING']);
    const where = p.acceptKeyword('WHERE') ? parseCondition(p) : undefined;
    const returning = parseReturning(p);
    if (returning !== undefined && returning !== 'ALL_OLD') throw new PartiqlSyntaxError('DELETE supports only RETURNING ALL OLD *');
    return node({ kind: 'delete', table, ...(where ? { where } : {}), ...(returning ? { returning } : {}) });
  }
  if (p.acceptKeyword('EXISTS')) {
    p.expectPunct('(');
    p.expectKeyword('SELECT');
    const select = parseSelect(p);
    p.expectPunct(')');
    return node({ kind: 'exists', select });
  }
  throw p.unexpected('SELECT, INSERT, UPDATE, DELETE, FROM or EXISTS');
}

function parseSelect(p: ParserState): SelectStatement {
  let projection: Path[] | undefined;
  if (!p.acceptPunct('*')) {
    projection = [parsePath(p)];
    while (p.acceptPunct(',')) projection.push(parsePath(p));
  }
  p.expectKeyword('FROM');
  if (p.peek.type === 'eof' || p.isPunct(';')) throw new PartiqlSyntaxError('Unexpected term');
  const table = p.name('a table name');
  const index = p.acceptPunct('.') ? p.name('an index name') : undefined;
  refuseAlias(p, ['WHERE', 'ORDER']);
  const where = p.acceptKeyword('WHERE') ? parseCondition(p) : undefined;
  let orderBy: SelectStatement['orderBy'];
  if (p.acceptKeyword('ORDER')) {
    p.expectKeyword('BY');
    const path = parsePath(p);
    const descending = p.acceptKeyword('DESC') ? true : (p.acceptKeyword('ASC'), false);
    orderBy = Object.freeze({ path, descending });
  }
  return node({
    kind: 'select',
    ...(projection ? { projection: Object.freeze(projection) } : {}),
    target: Object.freeze({ table, ...(index !== undefined ? { index } : {}) }),
    ...(where ? { where } : {}),
    ...(orderBy ? { orderBy } : {}),
  });
}

function parseUpdate(p: ParserState): UpdateStatement {
  const table = p.name('a table name');
  refuseAlias(p, ['SET', 'REMOVE', 'WHERE']);
  const { sets, removes } = parseAssignments(p);
  const where = p.acceptKeyword('WHERE') ? parseCondition(p) : undefined;
  const returning = parseReturning(p);
  return node({ kind: 'update', table, sets, removes, ...(where ? { where } : {}), ...(returning ? { returning } : {}) });
}

/** The FROM-first form of UPDATE: `FROM T WHERE ... SET ...`, the same statement otherwise. */
function parseFromFirstUpdate(p: ParserState): UpdateStatement {
  const table = p.name('a table name');
  refuseAlias(p, ['SET', 'REMOVE', 'WHERE']);
  const where = p.acceptKeyword('WHERE') ? parseCondition(p) : undefined;
  const { sets, removes } = parseAssignments(p);
  const returning = parseReturning(p);
  return node({ kind: 'update', table, sets, removes, ...(where ? { where } : {}), ...(returning ? { returning } : {}) });
}

/** One or more SET and REMOVE clauses, in any order. */
function parseAssignments(p: ParserState): Pick<UpdateStatement, 'sets' | 'removes'> {
  const sets: { path: Path; value: ReturnType<typeof parseOperand> }[] = [];
  const removes: Path[] = [];
  for (;;) {
    if (p.acceptKeyword('SET')) {
      do {
        const path = parsePath(p);
        p.expectPunct('=');
        sets.push(Object.freeze({ path, value: parseOperand(p) }));
      } while (p.acceptPunct(','));
    } else if (p.acceptKeyword('REMOVE')) {
      do removes.push(parsePath(p));
      while (p.acceptPunct(','));
    } else break;
  }
  if (sets.length + removes.length === 0) throw p.unexpected('SET or REMOVE');
  return { sets: Object.freeze(sets), removes: Object.freeze(removes) };
}

/**
 * After a table name, a name that starts none of the clauses that may follow is an alias (`T t`,
 * `T AS t`), which DynamoDB refuses with a message of its own, outside the "wasn't well formed"
 * envelope.
 */
function refuseAlias(p: ParserState, clauses: readonly string[]): void {
  const t = p.peek;
  if (t.type === 'quoted' || (t.type === 'word' && !clauses.includes(t.text.toUpperCase()))) throw new PartiqlStatementError('Aliasing is not supported');
}

function parseReturning(p: ParserState): Returning | undefined {
  if (!p.acceptKeyword('RETURNING')) return undefined;
  const scope = p.acceptKeyword('ALL') ? 'ALL' : p.acceptKeyword('MODIFIED') ? 'UPDATED' : undefined;
  if (!scope) throw p.unexpected('ALL or MODIFIED');
  const image = p.acceptKeyword('OLD') ? 'OLD' : p.acceptKeyword('NEW') ? 'NEW' : undefined;
  if (!image) throw p.unexpected('OLD or NEW');
  p.expectPunct('*');
  return `${scope}_${image}`;
}
