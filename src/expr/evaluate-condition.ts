/**
 * Condition evaluation against one item (§7.3). `undefined` is the absent item: every path is
 * then missing. Never throws for item data: type mismatches make a comparison false.
 */
import { typeOf, type AttributeValue, type Item } from '../model/attribute-value.js';
import { compareValues } from '../model/compare-values.js';
import { valuesEqual } from '../model/values-equal.js';
import type { Comparator, ConditionFunction, ConditionKind, ConditionNode, Operand, Resolved } from './ast.js';
import { getPath } from './document-path.js';
import { evaluateOperand } from './evaluate-operand.js';

type Of<K> = Extract<ConditionNode<Resolved>, { kind: K }>;
type Evaluator<K extends ConditionKind> = (node: Of<K>, item: Item | undefined) => boolean;

function operand(node: Operand<Resolved>, item: Item | undefined): AttributeValue | undefined {
  return evaluateOperand(node, item, 'condition');
}

const COMPARATORS: Readonly<Record<Comparator, (a: AttributeValue | undefined, b: AttributeValue | undefined) => boolean>> = {
  '=': (a, b) => a !== undefined && b !== undefined && valuesEqual(a, b),
  '<>': (a, b) => a === undefined || b === undefined || !valuesEqual(a, b),
  '<': (a, b) => order(a, b, (c) => c < 0),
  '<=': (a, b) => order(a, b, (c) => c <= 0),
  '>': (a, b) => order(a, b, (c) => c > 0),
  '>=': (a, b) => order(a, b, (c) => c >= 0),
};

function order(a: AttributeValue | undefined, b: AttributeValue | undefined, test: (c: number) => boolean): boolean {
  if (a === undefined || b === undefined) return false;
  const c = compareValues(a, b);
  return c !== undefined && test(c);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function startsWithBytes(value: Uint8Array, prefix: Uint8Array): boolean {
  return prefix.length <= value.length && bytesEqual(value.subarray(0, prefix.length), prefix);
}

function contains(container: AttributeValue, member: AttributeValue): boolean {
  if ('S' in container) return 'S' in member && container.S.includes(member.S);
  if ('SS' in container) return 'S' in member && container.SS.includes(member.S);
  if ('NS' in container) return 'N' in member && container.NS.some((n) => valuesEqual({ N: n }, member));
  if ('BS' in container) return 'B' in member && container.BS.some((b) => bytesEqual(b, member.B));
  if ('L' in container) return container.L.some((element) => valuesEqual(element, member));
  return false;
}

const FUNCTIONS: Readonly<Record<ConditionFunction, (args: readonly Operand<Resolved>[], item: Item | undefined) => boolean>> = {
  attribute_exists: ([p], item) => p?.kind === 'path' && getPath(item, p.path) !== undefined,
  attribute_not_exists: ([p], item) => p?.kind === 'path' && getPath(item, p.path) === undefined,
  attribute_type: ([p, t], item) => {
    const value = p === undefined ? undefined : operand(p, item);
    const type = t === undefined ? undefined : operand(t, item);
    return value !== undefined && type !== undefined && 'S' in type && typeOf(value) === type.S;
  },
  begins_with: ([p, q], item) => {
    const value = p === undefined ? undefined : operand(p, item);
    const prefix = q === undefined ? undefined : operand(q, item);
    if (value === undefined || prefix === undefined) return false;
    if ('S' in value && 'S' in prefix) return value.S.startsWith(prefix.S);
    if ('B' in value && 'B' in prefix) return startsWithBytes(value.B, prefix.B);
    return false;
  },
  contains: ([p, q], item) => {
    const container = p === undefined ? undefined : operand(p, item);
    const member = q === undefined ? undefined : operand(q, item);
    return container !== undefined && member !== undefined && contains(container, member);
  },
};

const EVALUATORS: { [K in ConditionKind]: Evaluator<K> } = {
  compare: (node, item) => COMPARATORS[node.op](operand(node.left, item), operand(node.right, item)),
  between: (node, item) => {
    const x = operand(node.subject, item);
    const low = operand(node.low, item);
    const high = operand(node.high, item);
    if (x === undefined || low === undefined || high === undefined) return false;
    const a = compareValues(low, x);
    const b = compareValues(x, high);
    return a !== undefined && b !== undefined && a <= 0 && b <= 0;
  },
  in: (node, item) => {
    const x = operand(node.subject, item);
    if (x === undefined) return false;
    for (const candidate of node.list) {
      const v = operand(candidate, item);
      if (v !== undefined && valuesEqual(x, v)) return true;
    }
    return false;
  },
  function: (node, item) => FUNCTIONS[node.name](node.args, item),
  and: (node, item) => evaluateConditionNode(node.left, item) && evaluateConditionNode(node.right, item),
  or: (node, item) => evaluateConditionNode(node.left, item) || evaluateConditionNode(node.right, item),
  not: (node, item) => !evaluateConditionNode(node.operand, item),
};

export function evaluateConditionNode(node: ConditionNode<Resolved>, item: Item | undefined): boolean {
  return (EVALUATORS[node.kind] as Evaluator<ConditionKind>)(node as never, item);
}
