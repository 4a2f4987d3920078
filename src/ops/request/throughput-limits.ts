/**
 * The account's per-table provisioned-throughput quota (DescribeLimits' TableMax*: 40,000 units
 * each, spec §5.6), checked when CreateTable or UpdateTable asks for more. DynamoDB answers
 * LimitExceededException in these words (observed 2026-10):
 *   The requested ReadCapacityUnits, 50000, is above the per table maximum for the account in
 *   <region>. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide ...
 * and "for index <name>, N, is above the per index maximum" for a global secondary index.
 */
import { LimitExceededException } from '../../model/errors.js';
import { REGION } from '../../table/table-definition.js';
import { DEFAULT_LIMITS } from '../control/describe-limits.js';

export function checkThroughputQuota(read: number, write: number, indexName: string | undefined): void {
  check('ReadCapacityUnits', read, DEFAULT_LIMITS.TableMaxReadCapacityUnits, indexName);
  check('WriteCapacityUnits', write, DEFAULT_LIMITS.TableMaxWriteCapacityUnits, indexName);
}

function check(units: string, requested: number, max: number, indexName: string | undefined): void {
  if (requested <= max) return;
  const what = indexName === undefined ? `${units}, ${requested}, is above the per table maximum` : `${units} for index ${indexName}, ${requested}, is above the per index maximum`;
  const per = indexName === undefined ? 'Per table maximum' : 'Per index maximum';
  throw new LimitExceededException(
    `The requested ${what} for the account in ${REGION}. ${per}: ${max}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.`,
  );
}
