/**
 * The embedded API (DESIGN.md): one method per DynamoDB operation, named in camelCase, taking and
 * returning the operation's request and response shapes exactly as the JSON wire protocol has
 * them. Synchronous, like LMDB: every write is durable when its method returns. `db.promises`
 * (edgetable-promises.ts) has every operation as a promise, with concurrent writes grouped into
 * shared commits whose flush runs off the event loop.
 */
import { Catalog } from './table/catalog.js';
import { backfillStep } from './table/gsi-backfill.js';
import { Store } from './storage/store.js';
import { EdgetablePromises } from './edgetable-promises.js';
import type { StoreOptions } from './storage/store-options.js';
import type { EngineContext } from './ops/engine-context.js';
import { OPERATIONS, type DynamoRequest, type DynamoResponse, type OperationName } from './ops/operations.js';
import { createRequestHandler, type EdgetableRequestHandler } from './server/sdk-request-handler.js';
import { batchGetItem } from './ops/batch-get-item.js';
import { batchWriteItem } from './ops/batch-write-item.js';
import { createTable } from './ops/create-table.js';
import { deleteItem } from './ops/delete-item.js';
import { deleteTable } from './ops/delete-table.js';
import { describeTable } from './ops/describe-table.js';
import { getItem } from './ops/get-item.js';
import { listTables } from './ops/list-tables.js';
import { putItem } from './ops/put-item.js';
import { query } from './ops/query.js';
import { scan } from './ops/scan.js';
import { transactGetItems } from './ops/transact-get-items.js';
import { transactWriteItems } from './ops/transact-write-items.js';
import { updateItem } from './ops/update-item.js';
import { updateTable } from './ops/update-table.js';
import { verify, type VerifyResult } from './ops/verify.js';
import { executeWriteGroup, type GroupedRequest, type GroupedResult } from './ops/write-group.js';
import { listShards, readShard, type ShardDescription, type StreamRecordView } from './stream/stream-reader.js';
import type { StreamViewType } from './table/table-definition.js';
import type { SyncHandle, SyncOptions } from './sync/sync-options.js';
import { Throughput } from './capacity/throughput.js';
import { PARTITION_READ_UNITS, PARTITION_WRITE_UNITS } from './model/limits.js';
import { describeTimeToLive } from './ops/describe-time-to-live.js';
import { partitionMetrics, type PartitionMetrics } from './ops/throttle-metrics.js';
import { updateTimeToLive } from './ops/update-time-to-live.js';
import { TtlSweeper } from './table/ttl-sweep.js';
import { splitPartition, type SplitResult } from './table/partition-split.js';
import { DEFAULT_SPLIT_THRESHOLD_BYTES, hotPartitions, oversizedPartitions } from './table/split-policy.js';

export type OpenOptions = StoreOptions & EngineOptions;

/** Engine options beside the store's (capacity/throughput.ts, table/ttl-sweep.ts). */
export type EngineOptions = {
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Per-partition ceiling of a provisioned table, units per second. Default 3,000 (DynamoDB's). */
  partitionReadUnits?: number;
  /** Default 1,000 (DynamoDB's). */
  partitionWriteUnits?: number;
  /** How often the TTL sweeper starts a pass, in ms. Default 60,000; 0 disables the timer. */
  ttlSweepIntervalMs?: number;
  /** Item collection limit of tables with LSIs, bytes. Default 10 GB (DynamoDB's). */
  itemCollectionLimitBytes?: number;
  /** A partition whose items pass this many bytes splits at its hash midpoint. Default 1 GiB. */
  splitThresholdBytes?: number;
  /** How often partitions are checked for splitting, in ms. Default 10,000; 0 disables the timer. */
  splitCheckIntervalMs?: number;
};

export const DEFAULT_TTL_SWEEP_INTERVAL_MS = 60_000;
export const DEFAULT_SPLIT_CHECK_INTERVAL_MS = 10_000;


export { OPERATIONS, type OperationName, type DynamoRequest, type DynamoResponse } from './ops/operations.js';

export class Edgetable {
  private readonly ctx: EngineContext;
  private readonly backfills = new Map<string, { table: string; index: string }>();
  private backfillTimer: NodeJS.Immediate | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly sweeper: TtlSweeper;
  private readonly splitThresholdBytes: number;
  private splitTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweepStep: NodeJS.Immediate | undefined;
  private promiseApi: EdgetablePromises | undefined;

  constructor(
    readonly store: Store,
    options: EngineOptions | (() => number) = {},
  ) {
    const opts: EngineOptions = typeof options === 'function' ? { now: options } : options;
    const now = opts.now ?? Date.now;
    const throughput = new Throughput({
      partitionReadUnits: opts.partitionReadUnits ?? PARTITION_READ_UNITS,
      partitionWriteUnits: opts.partitionWriteUnits ?? PARTITION_WRITE_UNITS,
      now,
    });
    this.ctx = { store, catalog: new Catalog(store, opts.itemCollectionLimitBytes === undefined ? {} : { itemCollectionLimitBytes: opts.itemCollectionLimitBytes }), now, throughput, background: { scheduleBackfill: (t, i) => this.scheduleBackfill(t, i) } };
    this.sweeper = new TtlSweeper(store, this.ctx.catalog, now);
    this.splitThresholdBytes = opts.splitThresholdBytes ?? DEFAULT_SPLIT_THRESHOLD_BYTES;
    const splitEvery = opts.splitCheckIntervalMs ?? DEFAULT_SPLIT_CHECK_INTERVAL_MS;
    if (!store.readOnly && splitEvery > 0) {
      // unref: split checks never keep a process alive.
      this.splitTimer = setInterval(() => this.checkPartitionSplits(), splitEvery).unref();
    }
    const interval = opts.ttlSweepIntervalMs ?? DEFAULT_TTL_SWEEP_INTERVAL_MS;
    if (!store.readOnly && interval > 0) {
      // unref: the sweeper never keeps a process alive.
      this.sweepTimer = setInterval(() => this.startSweep(), interval).unref();
    }
    if (!store.readOnly) {
      for (const table of this.ctx.catalog.all()) {
        for (const ix of table.def.GlobalSecondaryIndexes) if (ix.IndexStatus === 'CREATING') this.scheduleBackfill(table.name, ix.IndexName);
      }
    }
  }

  /**
   * Splits one partition at its hash midpoint now (table/partition-split.ts); returns the two
   * children, or undefined when the partition does not exist or cannot split.
   */
  splitPartition(tableName: string, partitionId: number): SplitResult | undefined {
    return splitPartition(this.store, this.ctx.catalog, tableName, partitionId);
  }

  /**
   * Splits every partition over the size threshold, or whose consumed units over the last minute
   * averaged above the per-partition ceiling; returns what it split.
   */
  checkPartitionSplits(): SplitResult[] {
    const done: SplitResult[] = [];
    for (const table of this.ctx.catalog.all()) {
      const over = this.store.read((txn) => oversizedPartitions(txn, table, this.splitThresholdBytes));
      const hot = hotPartitions(table, this.ctx.throughput, this.ctx.now());
      for (const pid of new Set([...over, ...hot])) {
        const result = this.splitPartition(table.name, pid);
        if (result) done.push(result);
      }
    }
    return done;
  }

  /** Resolves when no index backfill is pending (every GSI is ACTIVE). */
  whenIndexesActive(): Promise<void> {
    if (this.backfills.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Backfills run one bounded batch per turn of the event loop, so requests interleave with them;
   * see table/gsi-backfill.ts.
   */
  private scheduleBackfill(table: string, index: string): void {
    this.backfills.set(`${table}\u0000${index}`, { table, index });
    this.backfillTimer ??= setImmediate(() => this.runBackfills());
  }

  private runBackfills(): void {
    this.backfillTimer = undefined;
    if (this.store.closed) return;
    for (const [key, { table, index }] of this.backfills) {
      if (backfillStep(this.store, this.ctx.catalog, table, index)) this.backfills.delete(key);
    }
    if (this.backfills.size > 0) {
      this.backfillTimer = setImmediate(() => this.runBackfills());
      return;
    }
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * A background TTL pass: one bounded step (table/ttl-sweep.ts) per turn of the event loop, so
   * requests interleave with it. A pass still running when the timer fires again just continues.
   */
  private startSweep(): void {
    if (this.sweepStep || this.store.closed) return;
    const run = (): void => {
      this.sweepStep = undefined;
      if (this.store.closed) return;
      if (!this.sweeper.step().done) this.sweepStep = setImmediate(run).unref();
    };
    this.sweepStep = setImmediate(run).unref();
  }

  /** Runs one whole TTL pass now, synchronously; returns the number of expired items deleted. */
  sweepExpired(): number {
    return this.sweeper.sweep();
  }

  /** Item counts, bytes, recent units and throttles per partition (ops/throttle-metrics.ts). */
  partitionMetrics(tableName?: string): PartitionMetrics[] {
    return partitionMetrics(this.ctx, tableName);
  }

  /**
   * Every operation as a promise (edgetable-promises.ts): a write resolves once it is durable,
   * sharing its commit and flush with the writes issued while the previous one was flushing.
   */
  get promises(): EdgetablePromises {
    this.promiseApi ??= new EdgetablePromises(this.ctx);
    return this.promiseApi;
  }

  /** Runs an operation by its DynamoDB name (`PutItem`, `Query`, ...). */
  execute(operation: OperationName, request: DynamoRequest): DynamoResponse {
    return OPERATIONS[operation](this.ctx, request) as DynamoResponse;
  }

  createTable(request: DynamoRequest) {
    return createTable(this.ctx, request);
  }
  describeTable(request: DynamoRequest) {
    return describeTable(this.ctx, request);
  }
  listTables(request: DynamoRequest = {}) {
    return listTables(this.ctx, request);
  }
  deleteTable(request: DynamoRequest) {
    return deleteTable(this.ctx, request);
  }
  updateTable(request: DynamoRequest) {
    return updateTable(this.ctx, request);
  }
  putItem(request: DynamoRequest) {
    return putItem(this.ctx, request);
  }
  getItem(request: DynamoRequest) {
    return getItem(this.ctx, request);
  }
  updateItem(request: DynamoRequest) {
    return updateItem(this.ctx, request);
  }
  deleteItem(request: DynamoRequest) {
    return deleteItem(this.ctx, request);
  }
  batchGetItem(request: DynamoRequest) {
    return batchGetItem(this.ctx, request);
  }
  batchWriteItem(request: DynamoRequest) {
    return batchWriteItem(this.ctx, request);
  }
  query(request: DynamoRequest) {
    return query(this.ctx, request);
  }
  scan(request: DynamoRequest) {
    return scan(this.ctx, request);
  }
  transactWriteItems(request: DynamoRequest) {
    return transactWriteItems(this.ctx, request);
  }
  transactGetItems(request: DynamoRequest) {
    return transactGetItems(this.ctx, request);
  }
  updateTimeToLive(request: DynamoRequest) {
    return updateTimeToLive(this.ctx, request);
  }
  describeTimeToLive(request: DynamoRequest) {
    return describeTimeToLive(this.ctx, request);
  }

  /**
   * Runs item writes (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems) in
   * order in ONE txn with one commit; each gets its own response or error (ops/write-group.ts).
   */
  writeGroup(requests: readonly GroupedRequest[]): GroupedResult[] {
    return executeWriteGroup(this.ctx, requests);
  }

  /** Recomputes every secondary index (of one table, or all) and reports differences. */
  verify(tableName?: string): VerifyResult {
    return verify(this.ctx, tableName);
  }

  /**
   * A request handler for the AWS SDK v3: `new DynamoDBClient({ ..., requestHandler:
   * db.requestHandler() })` reaches this engine in-process, with no socket.
   */
  requestHandler(): EdgetableRequestHandler {
    return createRequestHandler(this);
  }

  /** The engine's store, catalog and clock, for the stream reader, sync and hub. */
  get context(): EngineContext {
    return this.ctx;
  }

  /** The change-log shards of a streamed or synced table (stream/stream-reader.ts). */
  listShards(tableName: string): ShardDescription[] {
    return listShards(this.store, this.ctx.catalog.require(tableName));
  }

  /** Records of one shard from `fromSeq` (default 1), at most `limit` (default 1000). */
  readShard(tableName: string, shard: number, options: { fromSeq?: number; limit?: number; viewType?: StreamViewType } = {}): { Records: StreamRecordView[]; NextSequenceNumber: number } {
    return readShard(this.store, this.ctx.catalog.require(tableName), shard, options);
  }

  /** Starts syncing tables to a hub over MQTT (sync/start-sync.ts); mqtt loads on first use. */
  async startSync(options: Omit<SyncOptions, 'db'>): Promise<SyncHandle> {
    const { startSync } = await import('./sync/start-sync.js');
    return startSync({ ...options, db: this });
  }

  /** Writes still queued in db.promises commit first (durably); then the store closes. */
  close(): void {
    if (!this.store.closed) this.promiseApi?.drainSync();
    if (this.splitTimer) clearInterval(this.splitTimer);
    if (this.backfillTimer) clearImmediate(this.backfillTimer);
    this.backfillTimer = undefined;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.sweepStep) clearImmediate(this.sweepStep);
    this.sweepTimer = this.sweepStep = undefined;
    this.store.close();
  }
}

/** Opens (creating on first use) the store in `options.path`. */
export function open(options: OpenOptions): Edgetable {
  const { now, partitionReadUnits, partitionWriteUnits, ttlSweepIntervalMs, itemCollectionLimitBytes, splitThresholdBytes, splitCheckIntervalMs, ...storeOptions } = options;
  return new Edgetable(Store.open(storeOptions), { now, partitionReadUnits, partitionWriteUnits, ttlSweepIntervalMs, itemCollectionLimitBytes, splitThresholdBytes, splitCheckIntervalMs });
}
