/**
 * Throttling and per-partition metering (spec §5.6-§5.7), in memory per process. The model is
 * DynamoDB's as documented (Developer Guide: "Burst capacity", "Adaptive capacity"):
 *
 * - Burst: one token bucket per table and per GSI for each direction, refilled at the provisioned
 *   rate and holding up to BURST_SECONDS (300) of unused units. A bucket starts full: a new table
 *   (and every table when the engine opens, since an idle process saved its units) has its burst
 *   available, as a new DynamoDB table in practice accepts a first burst well above its rate.
 * - Admission: a request passes while every bucket it draws on is not empty, whatever its size,
 *   and is charged in full; a bucket may go negative and must refill past zero before the next
 *   request passes. So a 400 KB put (391 WCU) passes on a 5 WCU table, and sustained overload is
 *   still held to the provisioned rate once the burst is spent.
 * - Adaptive capacity: partitions have no even share of the table's units; any partition may
 *   spend the table's unused units, up to the per-partition ceiling (DynamoDB's 3,000 RCU and
 *   1,000 WCU per second), kept by a bucket per table partition holding one second of units.
 * - Local secondary index units are the table's (they live in the table's partitions); GSI units
 *   are the GSI's. On-demand tables are metered, never throttled; with `throttling: false` (as
 *   DynamoDB Local ignores provisioned throughput) nothing is throttled, and usage is still metered.
 *
 * Admission, then settlement: an operation reserves its *estimated* units before its write txn
 * (`reserve`), which refuses when a bucket is empty (nothing is written), and settles with the
 * *actual* units after the txn (`Reservation.settle`), which may leave a bucket in debt.
 *
 * State lives in this object only (per process, never persisted); usage windows start empty.
 * Another process on the same store (the CLI) keeps its own, separate buckets.
 */
import { ProvisionedThroughputExceededException } from '../model/errors.js';
import { TokenBucket } from './token-bucket.js';
import { UsageWindow } from './usage-window.js';
import { KeyHeat } from './key-heat.js';

export const BURST_SECONDS = 300;

export const TABLE_THROTTLED_MESSAGE =
  'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.';
export const INDEX_THROTTLED_MESSAGE =
  'The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API.';

export type Direction = 'read' | 'write';
/** Which limit refused a request: the table's (or a partition's) or a global secondary index's. */
export type ThrottleCause = 'table' | 'index';

/** What throttling needs to know about a table; built by the caller from its definition. */
export type ThroughputTarget = {
  /** Identity of the table (its TableId): a recreated table starts with new buckets. */
  readonly tableId: string;
  readonly provisioned: boolean;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** When the table's units last changed (ms), so a bucket switches rate from that moment. */
  readonly changedMs?: number | undefined;
  /** Provisioned units of each GSI, by index name. */
  readonly globalIndexes: Readonly<Record<string, { readonly readUnits: number; readonly writeUnits: number; readonly changedMs?: number | undefined }>>;
};

/** Units of one request: the table's (table arm plus LSI arms) and each GSI's. */
export type Units = { readonly table: number; readonly global?: Readonly<Record<string, number>> | undefined };

export type ThroughputOptions = {
  /** false: never throttle (meter only), as DynamoDB Local. Default true. */
  readonly throttling?: boolean | undefined;
  /** Ceiling per table partition, units per second. Defaults: DynamoDB's 3,000 and 1,000. */
  readonly partitionReadUnits: number;
  readonly partitionWriteUnits: number;
  readonly now: () => number;
};

/** Usage of one table partition as the metrics report it. */
export type PartitionUsage = {
  readonly read: UsageWindow;
  readonly write: UsageWindow;
  /** Units by partition key (both directions), for requests that named one key. */
  readonly keys: KeyHeat;
  throttles: number;
};

type DirectionBuckets = { read: TokenBucket | undefined; write: TokenBucket | undefined };

type PartitionState = PartitionUsage & { buckets: DirectionBuckets };

/** Buckets and usage of one table (internal to this module and Reservation). */
export type TableState = {
  readonly buckets: DirectionBuckets;
  readonly indexes: Map<string, DirectionBuckets>;
  readonly partitions: Map<number, PartitionState>;
  /** Usage not attributed to one partition (Scan, GSI reads). */
  readonly unattributed: PartitionState;
};

export class Throughput {
  private readonly tables = new Map<string, TableState>();

  constructor(readonly options: ThroughputOptions) {}

  /**
   * Admits `estimate` (spending it) or returns the cause of the refusal, spending nothing.
   * `partitionId` is the table partition the request touches, when it touches one; `keyHash` the
   * hash of the one partition key it touches, when it touches one.
   */
  reserve(target: ThroughputTarget, direction: Direction, partitionId: number | undefined, estimate: Units, keyHash?: number): Reservation | ThrottleCause {
    const state = this.stateOf(target.tableId);
    const partition = partitionId === undefined ? state.unattributed : this.partitionOf(state, partitionId);
    if (!target.provisioned || this.options.throttling === false) return new Reservation(this, target, state, partition, undefined, direction, estimate, keyHash);
    const nowMs = this.options.now();
    const table = this.bucket(state.buckets, direction, direction === 'read' ? target.readUnits : target.writeUnits, BURST_SECONDS, nowMs, target.changedMs);
    const ceiling = direction === 'read' ? this.options.partitionReadUnits : this.options.partitionWriteUnits;
    const part = partitionId === undefined ? undefined : this.bucket(partition.buckets, direction, ceiling, 1, nowMs, undefined);
    if (!table.admits(nowMs) || (part && !part.admits(nowMs))) {
      partition.throttles++;
      return 'table';
    }
    const indexes: [TokenBucket, number][] = [];
    for (const name in estimate.global) {
      const bucket = this.indexBucket(state, target, name, direction, nowMs);
      if (!bucket) continue;
      const units = estimate.global[name]!;
      if (!bucket.admits(nowMs)) {
        partition.throttles++;
        return 'index';
      }
      indexes.push([bucket, units]);
    }
    table.take(estimate.table, nowMs);
    part?.take(estimate.table, nowMs);
    for (const [bucket, units] of indexes) bucket.take(units, nowMs);
    return new Reservation(this, target, state, partition, { table, part }, direction, estimate, keyHash);
  }

  /** Usage of each partition a table has used in this process, by partition id. */
  usageOf(tableId: string): { partitions: ReadonlyMap<number, PartitionUsage>; unattributed: PartitionUsage } | undefined {
    const state = this.tables.get(tableId);
    return state && { partitions: state.partitions, unattributed: state.unattributed };
  }

  private stateOf(tableId: string): TableState {
    let state = this.tables.get(tableId);
    if (!state) {
      state = { buckets: { read: undefined, write: undefined }, indexes: new Map(), partitions: new Map(), unattributed: newPartitionState() };
      this.tables.set(tableId, state);
    }
    return state;
  }

  private partitionOf(state: TableState, id: number): PartitionState {
    let p = state.partitions.get(id);
    if (!p) state.partitions.set(id, (p = newPartitionState()));
    return p;
  }

  /** A GSI's bucket, or undefined when `name` is not a GSI of the target. */
  indexBucket(state: TableState, target: ThroughputTarget, name: string, direction: Direction, nowMs: number): TokenBucket | undefined {
    const units = target.globalIndexes[name];
    if (!units) return undefined;
    let buckets = state.indexes.get(name);
    if (!buckets) state.indexes.set(name, (buckets = { read: undefined, write: undefined }));
    return this.bucket(buckets, direction, direction === 'read' ? units.readUnits : units.writeUnits, BURST_SECONDS, nowMs, units.changedMs);
  }

  /**
   * The bucket for `direction`: a new one starts full (its burst available). A changed rate
   * applies from the moment provisioning changed (`changedMs`), or from now.
   */
  private bucket(buckets: DirectionBuckets, direction: Direction, rate: number, burstSeconds: number, nowMs: number, changedMs: number | undefined): TokenBucket {
    let bucket = buckets[direction];
    if (!bucket) buckets[direction] = bucket = new TokenBucket(rate, burstSeconds, nowMs);
    else if (bucket.unitsPerSecond !== rate) bucket.setRate(rate, Math.min(nowMs, changedMs ?? nowMs));
    return bucket;
  }
}

/** An admitted request's estimate; `settle` once with what it actually consumed. */
export class Reservation {
  constructor(
    private readonly owner: Throughput,
    private readonly target: ThroughputTarget,
    private readonly state: TableState,
    private readonly partition: PartitionState,
    private readonly buckets: { table: TokenBucket; part: TokenBucket | undefined } | undefined,
    private readonly direction: Direction,
    private readonly estimate: Units,
    private readonly keyHash?: number,
  ) {}

  /** Charges the difference between `actual` and the estimate and records the usage. */
  settle(actual: Units): void {
    const nowMs = this.owner.options.now();
    this.partition[this.direction].add(actual.table, nowMs);
    if (this.keyHash !== undefined) this.partition.keys.add(this.keyHash, actual.table, nowMs);
    const b = this.buckets;
    if (!b) return;
    const extra = actual.table - this.estimate.table;
    if (extra !== 0) {
      b.table.take(extra, nowMs);
      b.part?.take(extra, nowMs);
    }
    const estimated = this.estimate.global;
    const used = actual.global;
    if (estimated === undefined && used === undefined) return;
    const names = new Set([...Object.keys(estimated ?? {}), ...Object.keys(used ?? {})]);
    for (const name of names) {
      const delta = (used?.[name] ?? 0) - (estimated?.[name] ?? 0);
      if (delta !== 0) this.owner.indexBucket(this.state, this.target, name, this.direction, nowMs)?.take(delta, nowMs);
    }
  }

  /** The request did nothing billable (it failed before reading or writing): refund the estimate. */
  cancel(): void {
    this.settle({ table: 0 });
  }
}

function newPartitionState(): PartitionState {
  return { read: new UsageWindow(), write: new UsageWindow(), keys: new KeyHeat(), throttles: 0, buckets: { read: undefined, write: undefined } };
}

/** DynamoDB's exception for a refused request. */
export function throttledError(cause: ThrottleCause): ProvisionedThroughputExceededException {
  return new ProvisionedThroughputExceededException(cause === 'table' ? TABLE_THROTTLED_MESSAGE : INDEX_THROTTLED_MESSAGE);
}
