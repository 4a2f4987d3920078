/**
 * Every operation's request and response type by its DynamoDB name: what `db.execute(name,
 * request)` and the camelCase methods take and return.
 */
import type * as I from './item-operations.js';
import type * as T from './table-operations.js';

export type OperationTypes = {
  CreateTable: { input: T.CreateTableInput; output: T.CreateTableOutput };
  DescribeTable: { input: T.DescribeTableInput; output: T.DescribeTableOutput };
  ListTables: { input: T.ListTablesInput; output: T.ListTablesOutput };
  DeleteTable: { input: T.DeleteTableInput; output: T.DeleteTableOutput };
  UpdateTable: { input: T.UpdateTableInput; output: T.UpdateTableOutput };
  PutItem: { input: I.PutItemInput; output: I.PutItemOutput };
  GetItem: { input: I.GetItemInput; output: I.GetItemOutput };
  UpdateItem: { input: I.UpdateItemInput; output: I.UpdateItemOutput };
  DeleteItem: { input: I.DeleteItemInput; output: I.DeleteItemOutput };
  BatchGetItem: { input: I.BatchGetItemInput; output: I.BatchGetItemOutput };
  BatchWriteItem: { input: I.BatchWriteItemInput; output: I.BatchWriteItemOutput };
  Query: { input: I.QueryInput; output: I.QueryOutput };
  Scan: { input: I.ScanInput; output: I.ScanOutput };
  TransactWriteItems: { input: I.TransactWriteItemsInput; output: I.TransactWriteItemsOutput };
  TransactGetItems: { input: I.TransactGetItemsInput; output: I.TransactGetItemsOutput };
  UpdateTimeToLive: { input: T.UpdateTimeToLiveInput; output: T.UpdateTimeToLiveOutput };
  DescribeTimeToLive: { input: T.DescribeTimeToLiveInput; output: T.DescribeTimeToLiveOutput };
  TagResource: { input: T.TagResourceInput; output: T.TagResourceOutput };
  UntagResource: { input: T.UntagResourceInput; output: T.UntagResourceOutput };
  ListTagsOfResource: { input: T.ListTagsOfResourceInput; output: T.ListTagsOfResourceOutput };
  DescribeLimits: { input: T.DescribeLimitsInput; output: T.DescribeLimitsOutput };
  DescribeEndpoints: { input: T.DescribeEndpointsInput; output: T.DescribeEndpointsOutput };
};

export type OperationInput<N extends keyof OperationTypes> = OperationTypes[N]['input'];
export type OperationOutput<N extends keyof OperationTypes> = OperationTypes[N]['output'];

/**
 * The embedded API's method of each operation, named in camelCase (`PutItem` -> `putItem`),
 * derived from OperationTypes so the facade cannot drift from it. An operation whose request has
 * no required member may be called without one.
 */
export type OperationMethods = {
  [N in keyof OperationTypes as Uncapitalize<N>]: {} extends OperationInput<N>
    ? (request?: OperationInput<N>) => OperationOutput<N>
    : (request: OperationInput<N>) => OperationOutput<N>;
};

/** OperationMethods as promises: `db.promises` (a write resolves once durable). */
export type PromiseOperationMethods = {
  [N in keyof OperationTypes as Uncapitalize<N>]: {} extends OperationInput<N>
    ? (request?: OperationInput<N>) => Promise<OperationOutput<N>>
    : (request: OperationInput<N>) => Promise<OperationOutput<N>>;
};
