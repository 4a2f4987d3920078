/**
 * ConditionalOperator (AND | OR, default AND) joins the entries of Expected, QueryFilter or
 * ScanFilter. It is only meaningful with one of them holding at least two entries; the texts
 * for misuse are those of AWS's DAX client, which mirrors the service's request validation.
 */
import { invalid } from '../model/errors.js';
import { constraintError, enumConstraint, isPresent, readString } from './legacy-shape.js';

export type ConditionalOperator = 'AND' | 'OR';

/** Reads and enum-checks ConditionalOperator; undefined when absent. */
export function readConditionalOperator(req: Readonly<Record<string, unknown>>): ConditionalOperator | undefined {
  const op = readString(req, 'ConditionalOperator');
  if (op === undefined) return undefined;
  if (op !== 'AND' && op !== 'OR') throw constraintError(op, 'conditionalOperator', enumConstraint(['OR', 'AND']));
  return op;
}

/**
 * Rejects a ConditionalOperator with nothing to join. `conditionMaps` are the request's
 * Expected / QueryFilter / ScanFilter values (absent ones are skipped).
 */
export function checkConditionalOperatorUse(
  op: ConditionalOperator | undefined,
  conditionMaps: readonly unknown[],
): void {
  if (op === undefined) return;
  const present = conditionMaps.filter(isPresent);
  if (present.length === 0) throw invalid('ConditionalOperator cannot be used without Filter or Expected');
  if (present.some((m) => typeof m === 'object' && Object.keys(m as object).length <= 1)) {
    throw invalid('ConditionalOperator can only be used when Filter or Expected has two or more elements');
  }
}
