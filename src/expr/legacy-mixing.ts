/**
 * Legacy parameters (AttributesToGet, KeyConditions, QueryFilter, ScanFilter, Expected,
 * AttributeUpdates, ConditionalOperator) cannot be combined with expression parameters (§6.2).
 * Each operation passes its own parameter lists in DynamoDB's order; the message lists the
 * present ones in that order.
 */
import { invalid } from '../model/errors.js';

export function checkExpressionMixing(
  req: Readonly<Record<string, unknown>>,
  expressionParams: readonly string[],
  legacyParams: readonly string[],
): void {
  const expressions = expressionParams.filter((p) => req[p] !== undefined && req[p] !== null);
  if (expressions.length === 0) return;
  // KeyConditions alongside other expressions (but no KeyConditionExpression) is tolerated.
  const legacy = legacyParams.filter(
    (p) => req[p] !== undefined && req[p] !== null && !(p === 'KeyConditions' && req.KeyConditionExpression === undefined),
  );
  if (legacy.length === 0) return;
  throw invalid(
    `Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {${legacy.join(', ')}} Expression parameters: {${expressions.join(', ')}}`);
}
