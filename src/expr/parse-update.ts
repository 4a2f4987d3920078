/**
 * UpdateExpression grammar:
 *
 *   update     ::= clause+                       each of SET, REMOVE, ADD, DELETE at most once
 *   clause     ::= SET set (',' set)* | REMOVE path (',' path)*
 *                | ADD path :value (',' path :value)* | DELETE path :value (',' path :value)*
 *   set        ::= path '=' value
 *   value      ::= operand ( ('+' | '-') operand )? | '(' value ')'
 *   operand    ::= path | :value | if_not_exists '(' path ',' operand ')'
 *                | list_append '(' operand ',' operand ')' | '(' operand ')'
 */
import type { Operand, Parsed, UpdateAction, UpdateNode } from './ast.js';
import { freezeTree } from './ast.js';
import { MAX_EXPRESSION_OPERATORS } from '../model/limits.js';
import { UPDATE_KEYWORDS, parseOperand, parsePath } from './parse-operand.js';
import { ParserState, type IssueCategory } from './parser-state.js';

const ISSUE_ORDER: readonly IssueCategory[] = ['limits', 'reserved', 'function', 'section', 'depth', 'operands'];
const CLAUSES = ['SET', 'REMOVE', 'ADD', 'DELETE'] as const;
type Clause = (typeof CLAUSES)[number];

export function parseUpdate(source: string): UpdateNode<Parsed> {
  const state = new ParserState('UpdateExpression', source);
  const actions: UpdateAction<Parsed>[] = [];
  const seen = new Set<Clause>();
  do {
    const clause = CLAUSES.find((c) => state.atKeyword(c));
    if (clause === undefined) throw state.syntaxError();
    state.next();
    if (seen.has(clause)) state.record('section', `The "${clause}" section can only be used once in an update expression;`);
    seen.add(clause);
    actions.push(parseAction(state, clause));
    while (state.at(',')) {
      state.next();
      actions.push(parseAction(state, clause));
    }
  } while (state.peek().type !== 'eof');
  if (state.operatorCount > MAX_EXPRESSION_OPERATORS) {
    state.record('limits', `The expression contains too many operators; operator count: ${state.operatorCount}`);
  }
  state.throwIssues(ISSUE_ORDER);
  return freezeTree({ kind: 'update', actions });
}

function parseAction(state: ParserState, clause: Clause): UpdateAction<Parsed> {
  const path = parsePath(state, UPDATE_KEYWORDS);
  switch (clause) {
    case 'SET': {
      state.expect('=');
      return { kind: 'set', path, value: parseSetValue(state) };
    }
    case 'REMOVE':
      return { kind: 'remove', path };
    case 'ADD':
    case 'DELETE': {
      const t = state.peek();
      if (t.type !== 'valueRef') throw state.syntaxError();
      state.next();
      state.operatorCount++;
      return { kind: clause === 'ADD' ? 'add' : 'delete', path, value: { kind: 'value', value: t.text } };
    }
  }
}

function parseSetValue(state: ParserState): Operand<Parsed> {
  if (state.at('(')) {
    const close = state.matchingParen(state.pos);
    const after = close < 0 ? undefined : state.tokens[close + 1];
    if (after !== undefined && !(after.type === 'punct' && (after.text === '+' || after.text === '-'))) {
      state.next();
      const inner = parseSetValue(state);
      state.expect(')');
      return inner;
    }
  }
  const left = parseOperand(state, 'update', UPDATE_KEYWORDS);
  if (state.at('+') || state.at('-')) {
    const op = state.next().text as '+' | '-';
    state.operatorCount++;
    return { kind: 'arithmetic', op, left, right: parseOperand(state, 'update', UPDATE_KEYWORDS) };
  }
  return left;
}
