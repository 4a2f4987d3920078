/**
 * The embedded API (DESIGN.md): one method per DynamoDB operation, named in camelCase, taking and
 * returning the operation's request and response shapes exactly as the JSON wire protocol has
 * them. Synchronous, like LMDB: every write is durable when its method returns.
 */
import { Catalog } from './table/catalog.js';
import { backfillStep } from './table/gsi-backfill.js';
import { Store } from './storage/store.js';
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
import { listShards, readShard, type ShardDescription, type StreamRecordView } from './stream/stream-reader.js';
import type { StreamViewType } from './table/table-definition.js';
import type { SyncHandle, SyncOptions } from './sync/sync-options.js';

export type OpenOptions = StoreOptions & {
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
};


export { OPERATIONS, type OperationName, type DynamoRequest, type DynamoResponse } from './ops/operations.js';

export class Edgetable {
  private readonly ctx: EngineContext;
  private readonly backfills = new Map<string, { table: string; index: string }>();
  private backfillTimer: NodeJS.Immediate | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly store: Store,
    now: () => number = Date.now,
  ) {
    this.ctx = { store, catalog: new Catalog(store), now, background: { scheduleBackfill: (t, i) => this.scheduleBackfill(t, i) } };
    if (!store.readOnly) {
      for (const table of this.ctx.catalog.all()) {
        for (const ix of table.def.GlobalSecondaryIndexes) if (ix.IndexStatus === 'CREATING') this.scheduleBackfill(table.name, ix.IndexName);
      }
    }
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

  close(): void {
    if (this.backfillTimer) clearImmediate(this.backfillTimer);
    this.backfillTimer = undefined;
    this.store.close();
  }
}

/** Opens (creating on first use) the store in `options.path`. */
export function open(options: OpenOptions): Edgetable {
  const { now, ...storeOptions } = options;
  return new Edgetable(Store.open(storeOptions), now);
}
