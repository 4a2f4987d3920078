/**
 * Every operation by its DynamoDB name, for the embedded API, the HTTP server and the SDK adapter.
 * Each runs under retryOnCatalogChange (catalog-retry.ts) and reports its validation errors in
 * its own envelope (validation-envelope.ts): call operations through this table.
 */
import { batchGetItem } from './batch-get-item.js';
import { batchWriteItem } from './batch-write-item.js';
import { createTable } from './create-table.js';
import { deleteItem } from './delete-item.js';
import { deleteTable } from './delete-table.js';
import { describeTable } from './describe-table.js';
import { getItem } from './get-item.js';
import { listTables } from './list-tables.js';
import { putItem } from './put-item.js';
import { query } from './query.js';
import { scan } from './scan.js';
import { transactGetItems } from './transact-get-items.js';
import { transactWriteItems } from './transact-write-items.js';
import { updateItem } from './update-item.js';
import { updateTable } from './update-table.js';
import { describeTimeToLive } from './describe-time-to-live.js';
import { updateTimeToLive } from './update-time-to-live.js';
import { tagResource } from './tag-resource.js';
import { untagResource } from './untag-resource.js';
import { listTagsOfResource } from './list-tags-of-resource.js';
import { describeLimits } from './describe-limits.js';
import type { EngineContext } from './engine-context.js';
import { retryOnCatalogChange } from './catalog-retry.js';
import { withValidationEnvelope } from './validation-envelope.js';

/** A DynamoDB-shaped request or response: plain JSON-like objects. */
export type DynamoRequest = Record<string, unknown>;
export type DynamoResponse = Record<string, unknown>;

/**
 * An operation under retryOnCatalogChange, its ValidationExceptions in the envelope its name
 * takes (validation-envelope.ts).
 */
function run<R>(name: string, op: (ctx: EngineContext, request: unknown) => R): (ctx: EngineContext, request: unknown) => R {
  return withValidationEnvelope(name, retryOnCatalogChange(op));
}

export const OPERATIONS = {
  CreateTable: run('CreateTable', createTable),
  DescribeTable: run('DescribeTable', describeTable),
  ListTables: run('ListTables', listTables),
  DeleteTable: run('DeleteTable', deleteTable),
  UpdateTable: run('UpdateTable', updateTable),
  PutItem: run('PutItem', putItem),
  GetItem: run('GetItem', getItem),
  UpdateItem: run('UpdateItem', updateItem),
  DeleteItem: run('DeleteItem', deleteItem),
  BatchGetItem: run('BatchGetItem', batchGetItem),
  BatchWriteItem: run('BatchWriteItem', batchWriteItem),
  Query: run('Query', query),
  Scan: run('Scan', scan),
  TransactWriteItems: run('TransactWriteItems', transactWriteItems),
  TransactGetItems: run('TransactGetItems', transactGetItems),
  UpdateTimeToLive: run('UpdateTimeToLive', updateTimeToLive),
  DescribeTimeToLive: run('DescribeTimeToLive', describeTimeToLive),
  TagResource: run('TagResource', tagResource),
  UntagResource: run('UntagResource', untagResource),
  ListTagsOfResource: run('ListTagsOfResource', listTagsOfResource),
  DescribeLimits: run('DescribeLimits', describeLimits),
} as const satisfies Record<string, (ctx: EngineContext, request: DynamoRequest) => unknown>;

export type OperationName = keyof typeof OPERATIONS;
