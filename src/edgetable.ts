/**
 * The embedded API (DESIGN.md): one method per DynamoDB operation, named in camelCase, taking and
 * returning the operation's request and response shapes exactly as the JSON wire protocol has
 * them. Synchronous, like LMDB: every write is durable when its method returns. `db.promises`
 * (edgetable-promises.ts) has every operation as a promise, with concurrent writes grouped into
 * shared commits whose flush runs off the event loop.
 */
import type { OperationInput, OperationMethods, OperationOutput } from './api/operation-types.js';
import { Catalog } from './table/catalog.js';
import { raiseFormatForExistingCodes } from './table/attribute-names.js';
import { migrateToTextRecords } from './table/text-records.js';
import { Store } from './storage/store.js';
import { EdgetablePromises } from './edgetable-promises.js';
import type { StoreOptions } from './storage/store-options.js';
import type { EngineContext } from './ops/engine-context.js';
import { Replica } from './replication/replica.js';
import { OPERATIONS, defineOperationMethods, isOperationName, type DynamoRequest, type DynamoResponse, type OperationName } from './ops/operations.js';
import { createRequestHandler, type EdgetableRequestHandler } from './server/sdk-request-handler.js';
import { verify, type VerifyResult } from './ops/verify.js';
import { executeWriteGroup, type GroupedRequest, type GroupedResult } from './ops/write/write-group.js';
import { ensureStoreIdentity } from './stream/store-identity.js';
import { listShards, readShard, type ShardDescription, type StreamRecordView } from './stream/stream-reader.js';
import type { StreamViewType } from './table/table-definition.js';
import type { SyncHandle, SyncOptions } from './sync/sync-options.js';
import { Throughput } from './capacity/throughput.js';
import { PARTITION_READ_UNITS, PARTITION_WRITE_UNITS } from './model/limits.js';
import { partitionMetrics, type PartitionMetrics } from './ops/write/throttle-metrics.js';
import { TtlSweeper } from './table/ttl-sweep.js';
import { splitPartition, type SplitResult } from './table/partition-split.js';
import { DEFAULT_SPLIT_THRESHOLD_BYTES } from './table/split-policy.js';
import { BackgroundWork } from './background-work.js';
import type { BackgroundStatus } from './table/background-jobs.js';
import { STREAMS_OPERATIONS, type StreamsOperationName } from './streams-api/streams-operations.js';
import { PARTIQL_OPERATIONS, type PartiqlOperationName } from './partiql/partiql-operations.js';
import { DEFAULT_STREAM_RETENTION_MS, trimStreams } from './streams-api/trim-streams.js';
import { ChangeFeed, type ChangeListener, type ObserveErrorHandler } from './observe/change-feed.js';
import { ChangeIterator, type ObserveIteratorOptions } from './observe/change-iterator.js';
import { readTableName } from './ops/request/table-name.js';
import { ValidationException } from './model/errors.js';
import { holdYoungGeneration, sawRangePage, watchYoungGeneration } from './young-generation.js';
import { limitOldGenerationGrowth } from './old-generation.js';

export type OpenOptions = StoreOptions & EngineOptions;

/** Engine options beside the store's (capacity/throughput.ts, table/ttl-sweep.ts). */
export type EngineOptions = {
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /**
   * false: provisioned tables are never throttled (usage is still metered), as DynamoDB Local
   * ignores provisioned throughput. Default true: DynamoDB's burst and adaptive capacity model.
   */
  throttling?: boolean;
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
  /** Split partitions of on-demand tables for heat too (table/split-policy.ts). Default false. */
  heatSplitsOnDemand?: boolean;
  /** Stream records older than this are trimmed (except what sync still needs). Default 24 h (DynamoDB's). */
  streamRetentionMs?: number;
  /** How often stream retention runs, in ms. Default 60,000; 0 disables the timer. */
  streamTrimIntervalMs?: number;
  /**
   * Default true: from the first open on, V8's young generation keeps the size it has then (at
   * least a 4 MiB semi-space from the first Query or Scan on, V8's maximum from the first page of
   * 512 KB of items on; young-generation.ts; process-wide), unless node was started with
   * semi-space flags. false leaves it to V8, which grows it to 2 x 16 MiB under a long write load.
   */
  limitYoungGeneration?: boolean;
  /**
   * Default true: from the first open on, V8 starts a full collection once its old generation
   * reaches 1.5x what the last one left (old-generation.ts; process-wide), unless node was
   * started with --heap-growing-percent. false leaves it to V8, which lets a small heap grow ~4x.
   */
  limitOldGenerationGrowth?: boolean;
};

export const DEFAULT_TTL_SWEEP_INTERVAL_MS = 60_000;
export const DEFAULT_SPLIT_CHECK_INTERVAL_MS = 10_000;
export const DEFAULT_STREAM_TRIM_INTERVAL_MS = 60_000;

/** Every operation `execute` runs: DynamoDB's (ops/, partiql/) and DynamoDB Streams' (streams-api/). */
export type EngineOperationName = OperationName | PartiqlOperationName | StreamsOperationName;


export { OPERATIONS, type OperationName, type DynamoRequest, type DynamoResponse } from './ops/operations.js';

/**
 * One camelCase method per DynamoDB operation (`db.putItem(request)`), typed by api/
 * OperationMethods and defined below from the operation table (ops/operations.ts): the request and
 * response types are the public ones, and ops/ validates every request at run time.
 * `describeLimits` gives DynamoDB's default quotas; `describeEndpoints` answers `localhost` here
 * (the HTTP server answers the Host its client used).
 */
export interface Edgetable extends OperationMethods {}

export class Edgetable {
  private readonly ctx: EngineContext;
  private readonly sweeper: TtlSweeper;
  private readonly background: BackgroundWork;
  private readonly streamRetentionMs: number;
  private promiseApi: EdgetablePromises | undefined;
  private replicaPort: Replica | undefined;
  /** What db.observe subscribes to; every write session of this engine publishes to it. */
  readonly changeFeed = new ChangeFeed();

  /**
   * The LMDB store under this engine: for the engine's own layers and the repository's tests.
   * Sync and the hub use `replica`; applications use the operations. @internal
   */
  readonly store: Store;

  constructor(store: Store, options: EngineOptions | (() => number) = {}) {
    this.store = store;
    const opts: EngineOptions = typeof options === 'function' ? { now: options } : options;
    // Read Date.now at each call (not a captured reference), so fake timers and a patched clock apply.
    const now = opts.now ?? (() => Date.now());
    const throughput = new Throughput({
      partitionReadUnits: opts.partitionReadUnits ?? PARTITION_READ_UNITS,
      partitionWriteUnits: opts.partitionWriteUnits ?? PARTITION_WRITE_UNITS,
      now,
      throttling: opts.throttling,
    });
    this.ctx = { store, catalog: new Catalog(store, { now, feed: this.changeFeed, ...(opts.itemCollectionLimitBytes === undefined ? {} : { itemCollectionLimitBytes: opts.itemCollectionLimitBytes }) }), now, throughput, background: { scheduleBackfill: (t, i) => this.background.scheduleBackfill(t, i), startSweep: () => this.background.startSweep() }, pageRead: sawRangePage };
    try {
      raiseFormatForExistingCodes(store, this.ctx.catalog.all().map((table) => table.meta));
    } catch {
      /* a store that cannot take a write now (a full disk) still opens; raised at its next new code */
    }
    try {
      migrateToTextRecords(store, this.ctx.catalog.all());
    } catch {
      /* a full disk: reads keep the Buffer path, which reads every record; the next open goes on */
    }
    this.sweeper = new TtlSweeper(store, this.ctx.catalog, now);
    this.streamRetentionMs = opts.streamRetentionMs ?? DEFAULT_STREAM_RETENTION_MS;
    this.background = new BackgroundWork(this.ctx, this.sweeper, {
      splitThresholdBytes: opts.splitThresholdBytes ?? DEFAULT_SPLIT_THRESHOLD_BYTES,
      heatSplitsOnDemand: opts.heatSplitsOnDemand ?? false,
      streamTrimIntervalMs: opts.streamTrimIntervalMs ?? DEFAULT_STREAM_TRIM_INTERVAL_MS,
      trimStreams: () => this.trimStreams(),
      splitCheckIntervalMs: opts.splitCheckIntervalMs ?? DEFAULT_SPLIT_CHECK_INTERVAL_MS,
      ttlSweepIntervalMs: opts.ttlSweepIntervalMs ?? DEFAULT_TTL_SWEEP_INTERVAL_MS,
    });
    this.background.start();
  }

  /**
   * Splits one partition at its hash midpoint now, in bounded steps run back to back
   * (table/partition-split.ts); returns the two children, or undefined when the partition does not
   * exist, cannot split, or another split of the table is in progress.
   */
  splitPartition(tableName: string, partitionId: number): SplitResult | undefined {
    return splitPartition(this.store, this.ctx.catalog, tableName, partitionId);
  }

  /**
   * Begins splitting one partition and copies it in the background, one bounded step per turn of
   * the event loop; false when it cannot split now. `whenSplitsDone()` resolves when it is done.
   */
  startSplit(tableName: string, partitionId: number): boolean {
    return this.background.startSplit(tableName, partitionId);
  }

  /** Resolves when no split is in progress. */
  whenSplitsDone(): Promise<void> {
    return this.background.whenSplitsDone();
  }

  /**
   * Splits every partition over the size threshold, or hot by the split policy
   * (table/split-policy.ts), now; returns what it split. The timer does the same in the background.
   */
  checkPartitionSplits(): SplitResult[] {
    return this.background.runDueSplits();
  }

  /** Resolves when no index backfill is pending (every GSI is ACTIVE). */
  whenIndexesActive(): Promise<void> {
    return this.background.whenIndexesActive();
  }

  /**
   * Failures and steps of the background work (TTL sweeps, splits, backfills): a failed step is
   * retried after a back-off, never fatal (table/background-jobs.ts). A snapshot.
   */
  backgroundStatus(): BackgroundStatus {
    return this.background.jobs.status();
  }

  /** Runs one whole TTL pass now, synchronously; returns the number of expired items deleted. */
  sweepExpired(): number {
    return this.sweeper.sweep();
  }

  /** What TTL passes have read so far: expiry-index entries and items of whole-table walks. */
  sweepWork(): { readonly indexEntriesRead: number; readonly itemsWalked: number } {
    return { ...this.sweeper.work };
  }

  /** Item counts, bytes, recent units and throttles per partition (ops/write/throttle-metrics.ts). */
  partitionMetrics(tableName?: string): PartitionMetrics[] {
    return partitionMetrics(this.ctx, tableName);
  }

  /**
   * Every operation as a promise (edgetable-promises.ts): a write resolves once it is durable,
   * sharing its commit and flush with the writes issued while the previous one was flushing.
   */
  get promises(): EdgetablePromises {
    this.promiseApi ??= new EdgetablePromises(this.ctx, async () => {
      this.close();
      await this.store.released();
    });
    return this.promiseApi;
  }

  /**
   * Runs an operation by its DynamoDB or DynamoDB Streams name (`PutItem`, `GetRecords`, ...).
   * With a literal DynamoDB operation name the request and response are that operation's types
   * (api/); a request built at run time (the HTTP server's, a CLI's) may be any object, and is
   * validated as every request is.
   */
  execute<N extends OperationName>(operation: N, request: OperationInput<N>): OperationOutput<N>;
  execute(operation: EngineOperationName, request: DynamoRequest): DynamoResponse;
  execute(operation: EngineOperationName, request: DynamoRequest): DynamoResponse {
    if (isOperationName(operation)) return OPERATIONS[operation](this.ctx, request);
    if (Object.hasOwn(PARTIQL_OPERATIONS, operation)) return PARTIQL_OPERATIONS[operation as PartiqlOperationName](this.ctx, request) as DynamoResponse;
    return STREAMS_OPERATIONS[operation as StreamsOperationName](this.ctx, request) as DynamoResponse;
  }

  /**
   * Deletes stream records older than the stream retention now (streams-api/trim-streams.ts);
   * the timer runs it every streamTrimIntervalMs. Returns the number of records deleted.
   */
  trimStreams(): number {
    return trimStreams(this.store, this.ctx.catalog, this.ctx.now(), this.streamRetentionMs);
  }

  executeStatement(request: DynamoRequest) {
    return PARTIQL_OPERATIONS.ExecuteStatement(this.ctx, request);
  }
  batchExecuteStatement(request: DynamoRequest) {
    return PARTIQL_OPERATIONS.BatchExecuteStatement(this.ctx, request);
  }
  executeTransaction(request: DynamoRequest) {
    return PARTIQL_OPERATIONS.ExecuteTransaction(this.ctx, request);
  }

  /**
   * Runs item writes (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems) in
   * order in ONE txn with one commit; each gets its own response or error (ops/write/write-group.ts).
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

  /** The engine's store, catalog and clock, for the engine's own layers and tests. @internal */
  get context(): EngineContext {
    return this.ctx;
  }

  /**
   * The engine side of sync (replication/replica.ts): what the sync agent and the hub use, and
   * nothing else of the engine's internals. Its writes share db.promises' commit queue.
   */
  get replica(): Replica {
    this.replicaPort ??= new Replica(this.ctx, (plan) => this.promises.commitTxn(plan));
    return this.replicaPort;
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

  /**
   * The committed changes of one table, from every write this process makes to it: the embedded
   * API, db.promises, the HTTP server, transactions and batches, TTL expiry, and sync (the hub's
   * applied batches, a device's downstream changes), plus a device's writes the hub refused
   * (`rejected`). observe/table-change.ts gives a change's shape, observe/change-feed.ts the
   * delivery contract: after commit, asynchronously, in commit order; a listener's error breaks
   * nothing. Writes made by another process on the same folder are not observed.
   *
   * With a listener, returns the function that unsubscribes. Without, returns an async iterator
   * (`for await (const change of db.observe('T'))`; break unsubscribes) whose bounded buffer
   * is described in observe/change-iterator.ts. The table need not exist yet (sync may create it).
   */
  observe(tableName: string, listener: ChangeListener, options?: { onError?: ObserveErrorHandler }): () => void;
  observe(tableName: string, options?: ObserveIteratorOptions): ChangeIterator;
  observe(tableName: string, listenerOrOptions?: ChangeListener | ObserveIteratorOptions, options: { onError?: ObserveErrorHandler } = {}): (() => void) | ChangeIterator {
    const name = readTableName(tableName);
    if (typeof listenerOrOptions === 'function') {
      if (options.onError !== undefined && typeof options.onError !== 'function') throw new ValidationException('observe: onError must be a function');
      return this.changeFeed.subscribe(name, listenerOrOptions, options.onError);
    }
    const o = listenerOrOptions ?? {};
    if (o.bufferSize !== undefined && !(Number.isInteger(o.bufferSize) && o.bufferSize >= 1)) throw new ValidationException('observe: bufferSize must be an integer of at least 1');
    if (o.whenFull !== undefined && o.whenFull !== 'error' && o.whenFull !== 'drop-oldest') throw new ValidationException("observe: whenFull must be 'error' or 'drop-oldest'");
    return new ChangeIterator(this.changeFeed, name, o);
  }

  /** Writes still queued in db.promises commit first (durably); then the store closes. */
  close(): void {
    if (!this.store.closed) this.promiseApi?.drainSync();
    this.background.stop();
    this.store.close();
    this.changeFeed.close(); // db.observe iterators end (after the changes already delivered)
  }
}

defineOperationMethods(Edgetable.prototype, (name) => {
  const run = OPERATIONS[name];
  return (db, request) => run(db.context, request);
});

/** Opens (creating on first use) the store in `options.path`. */
export function open(options: OpenOptions): Edgetable {
  const { now, throttling, partitionReadUnits, partitionWriteUnits, ttlSweepIntervalMs, itemCollectionLimitBytes, splitThresholdBytes, splitCheckIntervalMs, heatSplitsOnDemand, streamRetentionMs, streamTrimIntervalMs, limitYoungGeneration, limitOldGenerationGrowth: limitOld, ...storeOptions } = options;
  const held = limitYoungGeneration !== false && holdYoungGeneration();
  if (limitOld !== false) limitOldGenerationGrowth();
  const store = Store.open(storeOptions);
  if (held) store.beforeTxn = watchYoungGeneration;
  // The store's sync incarnation is created by its first open (stream/store-identity.ts). A store
  // that cannot take a write now (a full disk) still opens for reads; sync creates it later.
  if (!store.readOnly) {
    try {
      ensureStoreIdentity(store);
    } catch {
      /* created by the first sync agent or hub instead */
    }
  }
  return new Edgetable(store, { now, throttling, partitionReadUnits, partitionWriteUnits, ttlSweepIntervalMs, itemCollectionLimitBytes, splitThresholdBytes, splitCheckIntervalMs, heatSplitsOnDemand, streamRetentionMs, streamTrimIntervalMs });
}
/** The periodic store check's interval of long-running services (the hub takes it from here: hub/ stays off storage/). */
export { SERVICE_CHECK_INTERVAL_MS } from './storage/store-options.js';
