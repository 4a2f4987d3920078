/**
 * Condition grammar (ConditionExpression, FilterExpression, KeyConditionExpression):
 *
 *   or      ::= and ( OR and )*
 *   and     ::= not ( AND not )*
 *   not     ::= NOT not | primary
 *   primary ::= '(' or ')' | operand comparator operand | operand BETWEEN operand AND operand
 *             | operand IN '(' operand (',' operand)* ')' | function '(' operand (',' operand)* ')'
 *
 * Precedence NOT > AND > OR. A `(` opens an operand rather than a condition when the token after
 * its matching `)` is a comparator, BETWEEN or IN: `(a) = :v`.
 */
import type { Comparator, ConditionNode, Operand, Parsed } from './ast.js';
import { freezeTree } from './ast.js';
import type { ExpressionKind } from './expression-error.js';
import { MAX_EXPRESSION_OPERATORS, MAX_IN_OPERANDS } from '../model/limits.js';
import {
  CONDITION_KEYWORDS,
  checkArguments,
  isConditionFunction,
  isKeyword,
  isOperandFunction,
  notAllowedHere,
  operandCall,
  parseArguments,
  parseOperand,
} from './parse-operand.js';
import { ParserState, type IssueCategory } from './parser-state.js';

const COMPARATORS: ReadonlySet<string> = new Set(['=', '<>', '<', '<=', '>', '>=']);
const ISSUE_ORDER: readonly IssueCategory[] = ['limits', 'parens', 'function', 'misused', 'reserved', 'depth', 'operands'];

export function parseCondition(kind: ExpressionKind, source: string): ConditionNode<Parsed> {
  const state = new ParserState(kind, source);
  const tree = parseOr(state);
  if (state.peek().type !== 'eof') throw state.syntaxError();
  if (state.operatorCount > MAX_EXPRESSION_OPERATORS) {
    state.record('limits', `The expression contains too many operators; operator count: ${state.operatorCount}`);
  }
  checkRedundantParentheses(state);
  state.throwIssues(ISSUE_ORDER);
  return freezeTree(tree);
}

function parseOr(state: ParserState): ConditionNode<Parsed> {
  let left = parseAnd(state);
  while (state.atKeyword('OR')) {
    state.next();
    state.operatorCount++;
    left = { kind: 'or', left, right: parseAnd(state) };
  }
  return left;
}

function parseAnd(state: ParserState): ConditionNode<Parsed> {
  let left = parseNot(state);
  while (state.atKeyword('AND')) {
    state.next();
    state.operatorCount++;
    left = { kind: 'and', left, right: parseNot(state) };
  }
  return left;
}

function parseNot(state: ParserState): ConditionNode<Parsed> {
  if (state.atKeyword('NOT')) {
    state.next();
    state.operatorCount++;
    return { kind: 'not', operand: parseNot(state) };
  }
  return parsePrimary(state);
}

function startsComparison(state: ParserState, index: number): boolean {
  const t = state.tokens[index];
  if (t === undefined) return false;
  if (t.type === 'punct') return COMPARATORS.has(t.text);
  return t.type === 'word' && (t.text.toUpperCase() === 'BETWEEN' || t.text.toUpperCase() === 'IN');
}

function parsePrimary(state: ParserState): ConditionNode<Parsed> {
  if (state.at('(')) {
    const close = state.matchingParen(state.pos);
    if (close < 0 || !startsComparison(state, close + 1)) {
      state.next();
      const inner = parseOr(state);
      state.expect(')');
      return inner;
    }
    return parseComparison(state, parseOperand(state, 'condition', CONDITION_KEYWORDS));
  }
  const t = state.peek();
  const callAhead = t.type === 'word' && !isKeyword(state, CONDITION_KEYWORDS) && state.peek(1).text === '(' && state.peek(1).type === 'punct';
  if (!callAhead) return parseComparison(state, parseOperand(state, 'condition', CONDITION_KEYWORDS));
  state.next();
  const args = parseArguments(state, 'condition', CONDITION_KEYWORDS);
  if (startsComparison(state, state.pos)) return parseComparison(state, operandCall(state, 'condition', t.text, args));
  return functionCondition(state, t.text, args);
}

function functionCondition(state: ParserState, name: string, args: Operand<Parsed>[]): ConditionNode<Parsed> {
  state.operatorCount++;
  if (isConditionFunction(name)) {
    checkArguments(state, name, args);
    return { kind: 'function', name, args };
  }
  if (name === 'size') {
    checkArguments(state, name, args);
    state.record('misused', `The function is not allowed to be used this way in an expression; function: ${name}`);
  } else if (isOperandFunction(name)) {
    state.record('function', notAllowedHere('condition', name));
  } else {
    state.record('function', `Invalid function name; function: ${name}`);
  }
  return { kind: 'function', name: 'attribute_exists', args };
}

function parseComparison(state: ParserState, left: Operand<Parsed>): ConditionNode<Parsed> {
  const t = state.peek();
  if (t.type === 'punct' && COMPARATORS.has(t.text)) {
    state.next();
    state.operatorCount++;
    const right = parseOperand(state, 'condition', CONDITION_KEYWORDS);
    return { kind: 'compare', op: t.text as Comparator, left, right };
  }
  if (state.atKeyword('BETWEEN')) {
    state.next();
    state.operatorCount++;
    const low = parseOperand(state, 'condition', CONDITION_KEYWORDS);
    if (!state.atKeyword('AND')) throw state.syntaxError();
    state.next();
    const high = parseOperand(state, 'condition', CONDITION_KEYWORDS);
    return { kind: 'between', subject: left, low, high };
  }
  if (state.atKeyword('IN')) {
    state.next();
    state.operatorCount++;
    const list = parseArguments(state, 'condition', CONDITION_KEYWORDS);
    if (list.length > MAX_IN_OPERANDS) {
      state.record('limits', `The IN operator is provided with too many operands; number of operands: ${list.length}`);
    }
    return { kind: 'in', subject: left, list };
  }
  throw state.syntaxError();
}

/** `((x))`: a group whose whole content is another group. */
function checkRedundantParentheses(state: ParserState): void {
  const tokens = state.tokens;
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (tokens[i]!.text !== '(' || tokens[i + 1]!.text !== '(' || tokens[i]!.type !== 'punct') continue;
    const outer = state.matchingParen(i);
    if (outer > 0 && state.matchingParen(i + 1) === outer - 1) {
      state.record('parens', 'The expression has redundant parentheses;');
      return;
    }
  }
}
