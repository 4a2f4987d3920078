/**
 * The embedded API (DESIGN.md): one method per DynamoDB operation, named in camelCase, taking and
 * returning the operation's request and response shapes exactly as the JSON wire protocol has
 * them. Synchronous, like LMDB: every write is durable when its method returns.
 */
import { Catalog } from './table/catalog.js';
import { Store } from './storage/store.js';
import type { StoreOptions } from './storage/store-options.js';
import type { EngineContext } from './ops/engine-context.js';
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

export type OpenOptions = StoreOptions & {
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
};

/** A DynamoDB-shaped request or response: plain JSON-like objects. */
export type DynamoRequest = Record<string, unknown>;
export type DynamoResponse = Record<string, unknown>;

/** Every operation by its DynamoDB name, for the HTTP server and the SDK adapter. */
export const OPERATIONS = {
  CreateTable: createTable,
  DescribeTable: describeTable,
  ListTables: listTables,
  DeleteTable: deleteTable,
  UpdateTable: updateTable,
  PutItem: putItem,
  GetItem: getItem,
  UpdateItem: updateItem,
  DeleteItem: deleteItem,
  BatchGetItem: batchGetItem,
  BatchWriteItem: batchWriteItem,
  Query: query,
  Scan: scan,
  TransactWriteItems: transactWriteItems,
  TransactGetItems: transactGetItems,
} as const satisfies Record<string, (ctx: EngineContext, request: DynamoRequest) => unknown>;

export type OperationName = keyof typeof OPERATIONS;

export class Edgetable {
  private readonly ctx: EngineContext;

  constructor(
    readonly store: Store,
    now: () => number = Date.now,
  ) {
    this.ctx = { store, catalog: new Catalog(store), now };
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

  close(): void {
    this.store.close();
  }
}

/** Opens (creating on first use) the store in `options.path`. */
export function open(options: OpenOptions): Edgetable {
  const { now, ...storeOptions } = options;
  return new Edgetable(Store.open(storeOptions), now);
}
