/**
 * QueryFilter / ScanFilter (+ ConditionalOperator) -> a resolved filter (§6.3, §6.4, §7.7).
 * Every entry is `{ComparisonOperator, AttributeValueList?}` (see legacy-comparison.ts).
 * Whether a QueryFilter names a key attribute needs the table: the Query operation checks it
 * (message `QueryFilter can only contain non-primary key attributes: Primary key attribute: <k>`).
 */
import type { Condition } from './compile-expressions.js';
import { checkComparison, comparisonNode, joinConditions } from './legacy-comparison.js';
import type { ConditionalOperator } from './legacy-conditional-operator.js';
import { readComparisonOperator, readList, type LegacyEntry } from './legacy-shape.js';

/** Checks every entry's operator and values, in map order; returns the joined filter. */
export function compileLegacyFilter(
  param: 'QueryFilter' | 'ScanFilter',
  entries: readonly (readonly [string, LegacyEntry])[],
  op: ConditionalOperator | undefined,
): Condition | undefined {
  const nodes = entries.map(([name, entry]) => {
    const comparison = readComparisonOperator(param, name, entry, true)!;
    return comparisonNode(name, comparison, checkComparison(comparison, readList(entry, 'AttributeValueList') ?? []));
  });
  return joinConditions(nodes, op ?? 'AND');
}
