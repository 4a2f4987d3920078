/**
 * Expected (+ ConditionalOperator) -> a resolved condition (§6.2, §7.7). Each entry is either
 * the old form `{Value?, Exists?}` or the comparison form `{ComparisonOperator,
 * AttributeValueList | Value}`:
 *
 *   {Value: v} / {Value: v, Exists: true}  ->  a = v
 *   {Exists: false}                        ->  attribute_not_exists(a)
 *   {ComparisonOperator: op, ...}          ->  see legacy-comparison.ts
 *
 * Entries are checked in map order with the service's texts (dynalite's live captures).
 */
import { INVALID_PARAMETERS, invalid } from '../model/errors.js';
import { validateAttributeValue } from '../model/validate-attribute-value.js';
import type { Condition } from './compile-expressions.js';
import { checkComparison, comparisonNode, joinConditions } from './legacy-comparison.js';
import type { ConditionalOperator } from './legacy-conditional-operator.js';
import { isPresent, readBoolean, readComparisonOperator, readList, type LegacyEntry } from './legacy-shape.js';

/** A malformed entry, with the argument count: a semantic check, bare (spec §8.4). */
function malformed(message: string) {
  return invalid(message);
}

function entryCondition(name: string, entry: LegacyEntry): Condition {
  const list = readList(entry, 'AttributeValueList');
  const hasValue = isPresent(entry.Value);
  const exists = readBoolean(entry, 'Exists');
  const op = readComparisonOperator('Expected', name, entry, false);
  if (list !== undefined && hasValue) {
    throw malformed(`${INVALID_PARAMETERS}Value and AttributeValueList cannot be used together for Attribute: ${name}`);
  }
  if (op !== undefined) {
    if (exists !== undefined) {
      throw malformed(`${INVALID_PARAMETERS}Exists and ComparisonOperator cannot be used together for Attribute: ${name}`);
    }
    if (op !== 'NULL' && op !== 'NOT_NULL' && list === undefined && !hasValue) {
      throw malformed(`${INVALID_PARAMETERS}Value or AttributeValueList must be used with ComparisonOperator: ${op} for Attribute: ${name}`);
    }
    return comparisonNode(name, op, checkComparison(op, list ?? (hasValue ? [entry.Value] : [])));
  }
  if (list !== undefined) {
    throw malformed(`${INVALID_PARAMETERS}AttributeValueList can only be used with a ComparisonOperator for Attribute: ${name}`);
  }
  if (exists === false) {
    if (hasValue) throw malformed(`${INVALID_PARAMETERS}Value cannot be used when Exists is false for Attribute: ${name}`);
    return comparisonNode(name, 'NULL', []);
  }
  if (!hasValue) {
    throw malformed(`${INVALID_PARAMETERS}Value must be provided when Exists is ${exists === undefined ? 'null' : 'true'} for Attribute: ${name}`);
  }
  return comparisonNode(name, 'EQ', [validateAttributeValue(entry.Value)]);
}

/** The condition for Expected's entries joined by `op` (default AND); undefined for none. */
export function compileExpected(
  entries: readonly (readonly [string, LegacyEntry])[],
  op: ConditionalOperator | undefined,
): Condition | undefined {
  return joinConditions(
    entries.map(([name, entry]) => entryCondition(name, entry)),
    op ?? 'AND',
  );
}
