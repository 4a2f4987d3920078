/**
 * UpdateTable's refusal of a provisioned throughput that equals the current one (a semantic
 * check, bare message): DynamoDB refuses it for the table (also when the same request names
 * BillingMode PROVISIONED, the mode the table already has) and for a GSI's Update action alike,
 * rather than treating it as a no-op (dynalite's tests against the service; ack-api-quirks
 * DDB-TABLE-057 and DDB-TABLE-164, verified 2026-10-08). Changing either unit is a change.
 */
import { ValidationException } from '../../model/errors.js';

type Units = { readonly ReadCapacityUnits: number; readonly WriteCapacityUnits: number };

/**
 * Throws DynamoDB's refusal when `requested` equals `current`. `indexName`: the GSI being
 * updated, or undefined for the table. `current` undefined (no throughput yet: an on-demand
 * table or index switching to PROVISIONED) is always a change.
 */
export function checkThroughputChanges(current: Units | undefined, requested: Units, indexName: string | undefined): void {
  if (!current || current.ReadCapacityUnits !== requested.ReadCapacityUnits || current.WriteCapacityUnits !== requested.WriteCapacityUnits) return;
  const subject = indexName === undefined ? 'the table' : `the index ${indexName}`;
  const holder = indexName === undefined ? 'the table' : `index ${indexName}`;
  throw new ValidationException(
    `The provisioned throughput for ${subject} will not change. The requested value equals the current value. ` +
      `Current ReadCapacityUnits provisioned for ${holder}: ${current.ReadCapacityUnits}. Requested ReadCapacityUnits: ${requested.ReadCapacityUnits}. ` +
      `Current WriteCapacityUnits provisioned for ${holder}: ${current.WriteCapacityUnits}. Requested WriteCapacityUnits: ${requested.WriteCapacityUnits}. ` +
      'Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.',
  );
}
