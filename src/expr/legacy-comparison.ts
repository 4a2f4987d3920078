/**
 * One legacy comparison (`{ComparisonOperator, AttributeValueList}`, §7.7) on a top-level
 * attribute: its request-time validation with DynamoDB's texts, and its translation into the
 * resolved condition AST, so the expression evaluator decides it:
 *
 *   EQ a = v        NE a <> v       LE/LT/GE/GT a <= v ...      NULL attribute_not_exists(a)
 *   NOT_NULL attribute_exists(a)    CONTAINS contains(a, v)     NOT_CONTAINS NOT contains(a, v)
 *   BEGINS_WITH begins_with(a, v)   IN a IN (v1, ...)           BETWEEN a BETWEEN v1 AND v2
 *
 * The evaluator's rules are the legacy ones: a missing attribute or another type fails every
 * comparison except NE and NOT_CONTAINS, which it passes.
 */
import { typeOf, type AttributeType, type AttributeValue } from '../model/attribute-value.js';
import { compareValues } from '../model/compare-values.js';
import { INVALID_PARAMETERS, ValidationException, invalid } from '../model/errors.js';
import { validateAttributeValue } from '../model/validate-attribute-value.js';
import { freezeTree, type Comparator, type ConditionNode, type Operand, type Resolved } from './ast.js';
import type { ComparisonOperator } from './legacy-shape.js';

type Node = ConditionNode<Resolved>;

/** Allowed AttributeValueList lengths: exact, or [min, max] (max undefined = unbounded). */
const ARGUMENTS: Readonly<Record<ComparisonOperator, number | readonly [number, number | undefined]>> = {
  NULL: 0,
  NOT_NULL: 0,
  EQ: 1,
  NE: 1,
  LE: 1,
  LT: 1,
  GE: 1,
  GT: 1,
  CONTAINS: 1,
  NOT_CONTAINS: 1,
  BEGINS_WITH: 1,
  IN: [1, undefined],
  BETWEEN: 2,
};

const SCALARS: readonly AttributeType[] = ['S', 'N', 'B'];
/** Value types each operator accepts (NULL and NOT_NULL take no values). */
const VALUE_TYPES: Readonly<Record<ComparisonOperator, readonly AttributeType[]>> = {
  NULL: [],
  NOT_NULL: [],
  EQ: ['S', 'N', 'B', 'SS', 'NS', 'BS'],
  NE: ['S', 'N', 'B', 'SS', 'NS', 'BS'],
  LE: SCALARS,
  LT: SCALARS,
  GE: SCALARS,
  GT: SCALARS,
  CONTAINS: SCALARS,
  NOT_CONTAINS: SCALARS,
  BEGINS_WITH: ['S', 'B'],
  IN: SCALARS,
  BETWEEN: SCALARS,
};

export function argumentCountError(op: ComparisonOperator): ValidationException {
  return invalid(`${INVALID_PARAMETERS}Invalid number of argument(s) for the ${op} ComparisonOperator`);
}

/**
 * Validates the values of one comparison and returns their internal form. Order as the
 * service reports: each value's own rules, the argument count, one type for all values, the
 * operator's value types, then BETWEEN's bounds.
 * @throws ValidationException | SerializationException
 */
export function checkComparison(op: ComparisonOperator, wireValues: readonly unknown[]): AttributeValue[] {
  const values = wireValues.map((v) => validateAttributeValue(v));
  const allowed = ARGUMENTS[op];
  const ok =
    typeof allowed === 'number'
      ? values.length === allowed
      : values.length >= allowed[0] && (allowed[1] === undefined || values.length <= allowed[1]);
  if (!ok) throw argumentCountError(op);
  const first = values[0];
  if (first === undefined) return values;
  const type = typeOf(first);
  if (values.some((v) => typeOf(v) !== type)) {
    throw invalid(`${INVALID_PARAMETERS}AttributeValues inside AttributeValueList must be of same type`);
  }
  if (!VALUE_TYPES[op].includes(type)) {
    throw invalid(`${INVALID_PARAMETERS}ComparisonOperator ${op} is not valid for ${type} AttributeValue type`);
  }
  if (op === 'BETWEEN' && (compareValues(first, values[1]!) ?? 0) > 0) {
    throw invalid('The BETWEEN condition was provided a range where the lower bound is greater than the upper bound');
  }
  return values;
}

const COMPARATORS: Partial<Record<ComparisonOperator, Comparator>> = { EQ: '=', NE: '<>', LE: '<=', LT: '<', GE: '>=', GT: '>' };

/** The condition node for `name <op> values`; values already passed checkComparison. */
export function comparisonNode(name: string, op: ComparisonOperator, values: readonly AttributeValue[]): Node {
  const path: Operand<Resolved> = { kind: 'path', path: [name] };
  const value = (i: number): Operand<Resolved> => ({ kind: 'value', value: values[i]! });
  const comparator = COMPARATORS[op];
  let node: Node;
  if (comparator !== undefined) {
    node = { kind: 'compare', op: comparator, left: path, right: value(0) };
  } else {
    switch (op) {
      case 'NULL':
        node = { kind: 'function', name: 'attribute_not_exists', args: [path] };
        break;
      case 'NOT_NULL':
        node = { kind: 'function', name: 'attribute_exists', args: [path] };
        break;
      case 'CONTAINS':
        node = { kind: 'function', name: 'contains', args: [path, value(0)] };
        break;
      case 'NOT_CONTAINS':
        node = { kind: 'not', operand: { kind: 'function', name: 'contains', args: [path, value(0)] } };
        break;
      case 'BEGINS_WITH':
        node = { kind: 'function', name: 'begins_with', args: [path, value(0)] };
        break;
      case 'IN':
        node = { kind: 'in', subject: path, list: values.map((_, i) => value(i)) };
        break;
      default: // BETWEEN: the comparators were handled above
        node = { kind: 'between', subject: path, low: value(0), high: value(1) };
        break;
    }
  }
  return freezeTree(node);
}

/** Joins conditions left-deep with AND or OR; undefined for none. */
export function joinConditions(nodes: readonly Node[], operator: 'AND' | 'OR'): Node | undefined {
  let out: Node | undefined;
  for (const node of nodes) {
    out = out === undefined ? node : { kind: operator === 'AND' ? 'and' : 'or', left: out, right: node };
  }
  return out === undefined ? undefined : freezeTree(out);
}
