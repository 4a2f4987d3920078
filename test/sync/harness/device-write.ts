/**
 * A device's write as the convergence and fleet harnesses make it: the DynamoDB request run on the
 * local engine, answered with the HLC its change record took. The clock reads and the write share
 * one write txn: a commit made off the event loop (a down message's, store.writeAsync) cannot land
 * between them and pass for this write's. `noop`: the write logged nothing (a delete of an item
 * this device does not hold), so the store clock did not move.
 */
import type { Edgetable } from '../../../src/edgetable.js';
import type { OperationName } from '../../../src/ops/operations.js';
import { SYNC_DB } from '../../../src/partition/database-names.js';
import { readStoreClock, type Hlc } from '../../../src/stream/hlc.js';

export type DeviceWriteResult = { readonly hlc: Hlc; readonly noop: boolean; readonly image?: Record<string, unknown> };

export function writeWithClock(db: Edgetable, operation: OperationName, request: Record<string, unknown>): DeviceWriteResult {
  const syncDb = db.store.database(SYNC_DB);
  const clock = (): Hlc | undefined => db.store.read((txn) => readStoreClock(txn, syncDb));
  const { before, out, after } = db.store.writeGroup(() => ({
    before: clock(),
    out: db.execute(operation, request) as { Attributes?: Record<string, unknown> },
    after: clock()!,
  }));
  const noop = before !== undefined && before.ms === after.ms && before.counter === after.counter;
  const image = operation === 'PutItem' ? (request['Item'] as Record<string, unknown>) : operation === 'UpdateItem' ? out.Attributes : undefined;
  return { hlc: after, noop, ...(image ? { image } : {}) };
}
