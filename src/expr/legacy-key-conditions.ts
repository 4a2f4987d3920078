/**
 * KeyConditions -> a resolved key condition (§6.3, §7.7) of the shape analyzeKeyCondition
 * accepts: one comparison per key attribute, ANDed. Only EQ, LE, LT, GE, GT, BEGINS_WITH and
 * BETWEEN can select a key range; which attribute is the partition key (EQ only), key types
 * and unknown attributes are checked against the schema by analyzeKeyCondition, whose texts
 * are the legacy ones too (`Query key condition not supported`, `Query condition missed key
 * schema element: <k>`, `... Condition parameter type does not match schema type`).
 */
import { invalid } from '../model/errors.js';
import type { Condition } from './compile-expressions.js';
import { checkComparison, comparisonNode, joinConditions } from './legacy-comparison.js';
import { readComparisonOperator, readList, type ComparisonOperator, type LegacyEntry } from './legacy-shape.js';

const NOT_INDEXABLE: ReadonlySet<ComparisonOperator> = new Set(['NULL', 'NOT_NULL', 'NE', 'CONTAINS', 'NOT_CONTAINS', 'IN']);

export function compileKeyConditions(entries: readonly (readonly [string, LegacyEntry])[]): Condition {
  const checked = entries.map(([name, entry]) => {
    const op = readComparisonOperator('KeyConditions', name, entry, true)!;
    return { name, op, values: checkComparison(op, readList(entry, 'AttributeValueList') ?? []) };
  });
  if (checked.length !== 1 && checked.length !== 2) throw invalid('Conditions can be of length 1 or 2 only');
  for (const { op } of checked) {
    if (NOT_INDEXABLE.has(op)) throw invalid('Attempted conditional constraint is not an indexable operation');
  }
  return joinConditions(
    checked.map(({ name, op, values }) => comparisonNode(name, op, values)),
    'AND',
  )!;
}
