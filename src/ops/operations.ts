/**
 * Every operation by its DynamoDB name, for the embedded API, the HTTP server and the SDK adapter.
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
import type { EngineContext } from './engine-context.js';

/** A DynamoDB-shaped request or response: plain JSON-like objects. */
export type DynamoRequest = Record<string, unknown>;
export type DynamoResponse = Record<string, unknown>;

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
  UpdateTimeToLive: updateTimeToLive,
  DescribeTimeToLive: describeTimeToLive,
  TagResource: tagResource,
  UntagResource: untagResource,
  ListTagsOfResource: listTagsOfResource,
} as const satisfies Record<string, (ctx: EngineContext, request: DynamoRequest) => unknown>;

export type OperationName = keyof typeof OPERATIONS;
