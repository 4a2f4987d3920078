/**
 * The one operation table: every DynamoDB operation by its name, with its handler and how it
 * writes. Its request and response types are the public ones of api/operation-types.ts, tied to
 * this table by the compiler: the table is typed as a mapped type over OperationTypes, so a name
 * missing on either side, or a handler whose result is not its operation's api/ output, fails to
 * compile. The embedded facade (edgetable.ts), db.promises (edgetable-promises.ts), the write
 * group and commit queue, and the wire adapter (server/) all take the operation list from here.
 * Each handler runs under retryOnCatalogChange (catalog-retry.ts): call operations through this
 * table.
 */
import type { OperationOutput, OperationTypes } from '../api/operation-types.js';
import { batchGetItem } from './read/batch-get-item.js';
import { batchWriteItem } from './write/batch-write-item.js';
import { createTable } from './control/create-table.js';
import { deleteItem } from './write/delete-item.js';
import { deleteTable } from './control/delete-table.js';
import { describeTable } from './control/describe-table.js';
import { getItem } from './read/get-item.js';
import { listTables } from './control/list-tables.js';
import { putItem } from './write/put-item.js';
import { query } from './read/query.js';
import { scan } from './read/scan.js';
import { transactGetItems } from './transact/transact-get-items.js';
import { transactWriteItems } from './transact/transact-write-items.js';
import { updateItem } from './write/update-item.js';
import { updateTable } from './control/update-table.js';
import { describeTimeToLive } from './control/describe-time-to-live.js';
import { updateTimeToLive } from './control/update-time-to-live.js';
import { tagResource } from './control/tag-resource.js';
import { untagResource } from './control/untag-resource.js';
import { listTagsOfResource } from './control/list-tags-of-resource.js';
import { describeLimits } from './control/describe-limits.js';
import { describeEndpoints } from './control/describe-endpoints.js';
import type { EngineContext } from './engine-context.js';
import { retryOnCatalogChange } from './catalog-retry.js';

/** A DynamoDB-shaped request or response: plain JSON-like objects. */
export type DynamoRequest = Record<string, unknown>;
export type DynamoResponse = Record<string, unknown>;

export type OperationName = keyof OperationTypes;

/**
 * How an operation touches the store, which decides how db.promises runs it:
 * - 'read': never writes; answered at once, never queued;
 * - 'item-write': writes items only; may share a write group's txn (write-group.ts);
 * - 'table-write': changes the catalog or table settings; queued, but runs alone.
 */
export type OperationKind = 'read' | 'item-write' | 'table-write';

/**
 * A handler takes any request (a typed caller's or one parsed off the wire: each validates its
 * own) and returns its operation's api/ output type, checked where the table is built.
 */
export type OperationHandler<N extends OperationName> = (ctx: EngineContext, request: unknown) => OperationOutput<N>;

export type OperationEntry<N extends OperationName> = { readonly kind: OperationKind; readonly run: OperationHandler<N> };

const entry = <R>(kind: OperationKind, op: (ctx: EngineContext, request: unknown) => R) => ({ kind, run: retryOnCatalogChange(op) }) as const;

export const OPERATION_TABLE: { readonly [N in OperationName]: OperationEntry<N> } = {
  CreateTable: entry('table-write', createTable),
  DescribeTable: entry('read', describeTable),
  ListTables: entry('read', listTables),
  DeleteTable: entry('table-write', deleteTable),
  UpdateTable: entry('table-write', updateTable),
  PutItem: entry('item-write', putItem),
  GetItem: entry('read', getItem),
  UpdateItem: entry('item-write', updateItem),
  DeleteItem: entry('item-write', deleteItem),
  BatchGetItem: entry('read', batchGetItem),
  BatchWriteItem: entry('item-write', batchWriteItem),
  Query: entry('read', query),
  Scan: entry('read', scan),
  TransactWriteItems: entry('item-write', transactWriteItems),
  TransactGetItems: entry('read', transactGetItems),
  UpdateTimeToLive: entry('table-write', updateTimeToLive),
  DescribeTimeToLive: entry('read', describeTimeToLive),
  TagResource: entry('table-write', tagResource),
  UntagResource: entry('table-write', untagResource),
  ListTagsOfResource: entry('read', listTagsOfResource),
  DescribeLimits: entry('read', describeLimits),
  DescribeEndpoints: entry('read', describeEndpoints),
};

export const OPERATION_NAMES = Object.freeze(Object.keys(OPERATION_TABLE) as OperationName[]);

/** Each operation's handler by name: `OPERATIONS.PutItem(ctx, request)`. */
export const OPERATIONS: { readonly [N in OperationName]: OperationHandler<N> } = Object.freeze(
  Object.fromEntries(OPERATION_NAMES.map((name) => [name, OPERATION_TABLE[name].run])) as { [N in OperationName]: OperationHandler<N> },
);

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(OPERATION_TABLE, name);
}

/** `PutItem` -> `putItem`: the facade's method name of each operation (api/ OperationMethods). */
export function methodName(name: OperationName): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * Defines on `proto` the camelCase method of every operation in the table, each the function
 * `method(name)` returns; the class declares their types by merging api/ OperationMethods (or
 * PromiseOperationMethods). A method called without a request (or with undefined, as a default
 * parameter would take it) passes `{}`: `db.listTables()`; an operation with required members
 * then reports the first one missing.
 */
export function defineOperationMethods<S>(proto: S, method: (name: OperationName) => (self: S, request: unknown) => unknown): void {
  for (const name of OPERATION_NAMES) {
    const run = method(name);
    Object.defineProperty(proto, methodName(name), {
      value: function (this: S, request?: unknown) {
        return run(this, request === undefined ? {} : request);
      },
      writable: true,
      configurable: true,
    });
  }
}
