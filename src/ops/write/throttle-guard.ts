/**
 * How operations meet throttling (capacity/throughput.ts): reserve the estimated units before the
 * txn (a refusal throws ProvisionedThroughputExceededException, or is returned to batches so the
 * sub-request goes back unprocessed), then settle with the units actually consumed. A failed
 * condition settles with what DynamoDB charges for it (spec §5.3); any other failure refunds.
 */
import {
  throttledError,
  type Direction,
  type Reservation,
  type ThrottleCause,
  type ThroughputTarget,
  type Units,
} from '../../capacity/throughput.js';
import { readUnits } from '../../capacity/units.js';
import type { Item } from '../../model/attribute-value.js';
import { TransactionCanceledException, type CancellationReason } from '../../model/errors.js';
import type { TableDefinition } from '../../table/table-definition.js';
import type { Table } from '../../table/table.js';
import type { IndexUnits } from '../../table/write-session.js';
import type { EngineContext } from '../engine-context.js';
import type { ReadTarget } from '../read/read-target.js';

/** What an operation settles; a no-op when the context meters nothing. */
export type Settlement = Pick<Reservation, 'settle' | 'cancel'>;

const UNMETERED: Settlement = Object.freeze({ settle: () => {}, cancel: () => {} });

const targets = new WeakMap<TableDefinition, ThroughputTarget>();

/** The throttling view of a table, cached per (immutable) definition. */
export function throughputTarget(table: Table): ThroughputTarget {
  const def = table.def;
  let target = targets.get(def);
  if (!target) {
    const globalIndexes: Record<string, ThroughputTarget['globalIndexes'][string]> = {};
    for (const ix of def.GlobalSecondaryIndexes) {
      const t = ix.ProvisionedThroughput;
      if (t) globalIndexes[ix.IndexName] = { readUnits: t.ReadCapacityUnits, writeUnits: t.WriteCapacityUnits, changedMs: changedMs(t) };
    }
    target = {
      tableId: def.TableId,
      provisioned: def.BillingMode === 'PROVISIONED',
      readUnits: def.ProvisionedThroughput.ReadCapacityUnits,
      writeUnits: def.ProvisionedThroughput.WriteCapacityUnits,
      changedMs: changedMs(def.ProvisionedThroughput),
      globalIndexes,
    };
    targets.set(def, target);
  }
  return target;
}

/** When provisioned units last changed (ms), from DescribeTable's epoch-second fields. */
function changedMs(t: { LastIncreaseDateTime?: number; LastDecreaseDateTime?: number }): number | undefined {
  const at = Math.max(t.LastIncreaseDateTime ?? -Infinity, t.LastDecreaseDateTime ?? -Infinity);
  return at === -Infinity ? undefined : at * 1000;
}

/** Reserves `estimate` or returns why not (for batches). `keyHash`: the one partition key touched. */
export function tryReserve(ctx: EngineContext, table: Table, direction: Direction, partitionId: number | undefined, estimate: Units, keyHash?: number): Settlement | ThrottleCause {
  const throughput = ctx.throughput;
  return throughput ? throughput.reserve(throughputTarget(table), direction, partitionId, estimate, keyHash) : UNMETERED;
}

/** Reserves `estimate` or throws DynamoDB's ProvisionedThroughputExceededException. */
export function reserve(ctx: EngineContext, table: Table, direction: Direction, partitionId: number | undefined, estimate: Units, keyHash?: number): Settlement {
  const r = tryReserve(ctx, table, direction, partitionId, estimate, keyHash);
  if (typeof r === 'string') throw throttledError(r);
  return r;
}

/**
 * Estimated units of a write before the old item is known: `tableUnits` on the table and one unit
 * on each GSI the write may touch (every GSI, or for a put only those whose partition key the new
 * item carries), so an exhausted GSI holds back writes to its table (spec §5.4).
 */
export function writeEstimate(table: Table, tableUnits: number, item?: Item): Units {
  if (table.globalIndexes.length === 0) return { table: tableUnits };
  const global: Record<string, number> = {};
  for (const ix of table.globalIndexes) {
    if (!item || item[ix.def.keySchema.partitionKey.name] !== undefined) global[ix.def.IndexName] = 1;
  }
  return { table: tableUnits, global };
}

/** Actual units of a write: table arm plus LSI arms on the table, GSI arms on each GSI. */
export function writeUsage(tableUnits: number, indexUnits: Partial<IndexUnits> | undefined): Units {
  let table = tableUnits;
  for (const name in indexUnits?.local) table += indexUnits.local[name]!;
  return { table, global: indexUnits?.global };
}

/**
 * Runs an operation's txn; when it throws, settles with `failure.units` (what a failed condition
 * consumes; 0, a refund, for any other failure) and rethrows.
 */
export function settleOnFailure<T>(metered: Settlement, failure: { units: number }, run: () => T): T {
  try {
    return run();
  } catch (e) {
    metered.settle({ table: failure.units });
    throw e;
  }
}

/** A table read's least units, shared by every request (a Reservation only reads its estimate). */
const LEAST_CONSISTENT_READ: Units = Object.freeze({ table: readUnits(0, true) });
const LEAST_EVENTUAL_READ: Units = Object.freeze({ table: readUnits(0, false) });

/** The least a Query or Scan page can consume, on the arm it reads (a GSI's own, or the table's). */
export function readEstimate(target: ReadTarget, consistent: boolean): Units {
  if (target.global) return { table: 0, global: { [target.global.def.IndexName]: readUnits(0, consistent) } };
  return consistent ? LEAST_CONSISTENT_READ : LEAST_EVENTUAL_READ;
}

/** What a Query or Scan page consumed: entries rounded once, plus LSI fetches on the table. */
export function readUsage(target: ReadTarget, bytes: number, consistent: boolean, fetchUnits: number): Units {
  const units = readUnits(bytes, consistent);
  return target.global ? { table: 0, global: { [target.global.def.IndexName]: units } } : { table: units + fetchUnits };
}

/**
 * Reserves every action of a transaction, all or nothing: when any is throttled, the others are
 * refunded and the transaction is cancelled with a reason per action in request order
 * (`ProvisionedThroughputExceeded` with DynamoDB's text for the throttled ones, `None` otherwise).
 */
export function reserveTransaction(ctx: EngineContext, actions: readonly { table: Table; partitionId: number; keyHash?: number; direction: Direction; estimate: Units }[]): Settlement[] {
  const results = actions.map((a) => tryReserve(ctx, a.table, a.direction, a.partitionId, a.estimate, a.keyHash));
  if (results.every((r) => typeof r !== 'string')) return results as Settlement[];
  for (const r of results) if (typeof r !== 'string') r.cancel();
  throw new TransactionCanceledException(
    results.map((r): CancellationReason => (typeof r === 'string' ? { Code: 'ProvisionedThroughputExceeded', Message: throttledError(r).message } : { Code: 'None' })),
  );
}
