/**
 * Every operation by its DynamoDB name, for the embedded API, the HTTP server and the SDK adapter.
 * Each runs under retryOnCatalogChange (catalog-retry.ts): call operations through this table.
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
import { describeEndpoints } from './describe-endpoints.js';
import type { EngineContext } from './engine-context.js';
import { retryOnCatalogChange } from './catalog-retry.js';

/** A DynamoDB-shaped request or response: plain JSON-like objects. */
export type DynamoRequest = Record<string, unknown>;
export type DynamoResponse = Record<string, unknown>;

export const OPERATIONS = {
  CreateTable: retryOnCatalogChange(createTable),
  DescribeTable: retryOnCatalogChange(describeTable),
  ListTables: retryOnCatalogChange(listTables),
  DeleteTable: retryOnCatalogChange(deleteTable),
  UpdateTable: retryOnCatalogChange(updateTable),
  PutItem: retryOnCatalogChange(putItem),
  GetItem: retryOnCatalogChange(getItem),
  UpdateItem: retryOnCatalogChange(updateItem),
  DeleteItem: retryOnCatalogChange(deleteItem),
  BatchGetItem: retryOnCatalogChange(batchGetItem),
  BatchWriteItem: retryOnCatalogChange(batchWriteItem),
  Query: retryOnCatalogChange(query),
  Scan: retryOnCatalogChange(scan),
  TransactWriteItems: retryOnCatalogChange(transactWriteItems),
  TransactGetItems: retryOnCatalogChange(transactGetItems),
  UpdateTimeToLive: retryOnCatalogChange(updateTimeToLive),
  DescribeTimeToLive: retryOnCatalogChange(describeTimeToLive),
  TagResource: retryOnCatalogChange(tagResource),
  UntagResource: retryOnCatalogChange(untagResource),
  ListTagsOfResource: retryOnCatalogChange(listTagsOfResource),
  DescribeLimits: retryOnCatalogChange(describeLimits),
  DescribeEndpoints: retryOnCatalogChange(describeEndpoints),
} as const satisfies Record<string, (ctx: EngineContext, request: DynamoRequest) => unknown>;

export type OperationName = keyof typeof OPERATIONS;
