/**
 * Request and response types of the item operations: PutItem, GetItem, UpdateItem, DeleteItem,
 * BatchGetItem, BatchWriteItem, Query, Scan, TransactWriteItems, TransactGetItems. AWS member names,
 * legacy parameters included.
 */
import type {
  AttributeValue,
  Condition,
  ConditionalOperator,
  ConditionMembers,
  ConsumedCapacity,
  ExpressionAttributeNames,
  ExpressionAttributeValues,
  Item,
  ItemCollectionMetrics,
  ItemOutput,
  Key,
  KeyOutput,
  ReturnConsumedCapacity,
  ReturnItemCollectionMetrics,
  ReturnValue,
  ReturnValuesOnConditionCheckFailure,
  Select,
} from './shapes.js';

type Capacity = { ReturnConsumedCapacity?: ReturnConsumedCapacity };
type WriteReturns = Capacity & {
  ReturnItemCollectionMetrics?: ReturnItemCollectionMetrics;
  ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure;
};

/** The response of a single-item write. */
export type WriteItemOutput = {
  Attributes?: ItemOutput;
  ConsumedCapacity?: ConsumedCapacity;
  ItemCollectionMetrics?: ItemCollectionMetrics;
};

export type PutItemInput = ConditionMembers & WriteReturns & {
  TableName: string;
  Item: Item;
  ReturnValues?: 'NONE' | 'ALL_OLD';
};
export type PutItemOutput = WriteItemOutput;

export type GetItemInput = Capacity & {
  TableName: string;
  Key: Key;
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: ExpressionAttributeNames;
  /** Legacy projection. */
  AttributesToGet?: readonly string[];
};
export type GetItemOutput = { Item?: ItemOutput; ConsumedCapacity?: ConsumedCapacity };

/** Legacy `AttributeUpdates` entry. */
export type AttributeValueUpdate = { Value?: AttributeValue; Action?: 'ADD' | 'PUT' | 'DELETE' };

export type UpdateItemInput = ConditionMembers & WriteReturns & {
  TableName: string;
  Key: Key;
  UpdateExpression?: string;
  ReturnValues?: ReturnValue;
  /** Legacy update. */
  AttributeUpdates?: { readonly [attribute: string]: AttributeValueUpdate };
};
export type UpdateItemOutput = WriteItemOutput;

export type DeleteItemInput = ConditionMembers & WriteReturns & {
  TableName: string;
  Key: Key;
  ReturnValues?: 'NONE' | 'ALL_OLD';
};
export type DeleteItemOutput = WriteItemOutput;

export type KeysAndAttributes = {
  Keys: readonly Key[];
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: ExpressionAttributeNames;
  AttributesToGet?: readonly string[];
};
export type KeysAndAttributesOutput = Omit<KeysAndAttributes, 'Keys'> & { Keys: KeyOutput[] };

export type BatchGetItemInput = Capacity & { RequestItems: { readonly [tableName: string]: KeysAndAttributes } };
export type BatchGetItemOutput = {
  Responses: { [tableName: string]: ItemOutput[] };
  /** The request's own blocks for the keys not read, as given: pass them back as RequestItems. */
  UnprocessedKeys: { [tableName: string]: KeysAndAttributes };
  ConsumedCapacity?: ConsumedCapacity[];
};

export type WriteRequest =
  | { PutRequest: { Item: Item }; DeleteRequest?: never }
  | { DeleteRequest: { Key: Key }; PutRequest?: never };
export type WriteRequestOutput =
  | { PutRequest: { Item: ItemOutput }; DeleteRequest?: never }
  | { DeleteRequest: { Key: KeyOutput }; PutRequest?: never };

export type BatchWriteItemInput = Capacity & {
  RequestItems: { readonly [tableName: string]: readonly WriteRequest[] };
  ReturnItemCollectionMetrics?: ReturnItemCollectionMetrics;
};
export type BatchWriteItemOutput = {
  /** The request's own write requests not made, as given: pass them back as RequestItems. */
  UnprocessedItems: { [tableName: string]: WriteRequest[] };
  ConsumedCapacity?: ConsumedCapacity[];
  ItemCollectionMetrics?: { [tableName: string]: ItemCollectionMetrics[] };
};

/** Members Query and Scan share. */
type ReadMembers = Capacity & {
  TableName: string;
  IndexName?: string;
  Select?: Select;
  Limit?: number;
  ConsistentRead?: boolean;
  ExclusiveStartKey?: Key;
  ProjectionExpression?: string;
  FilterExpression?: string;
  ExpressionAttributeNames?: ExpressionAttributeNames;
  ExpressionAttributeValues?: ExpressionAttributeValues;
  /** Legacy projection and filter combinator. */
  AttributesToGet?: readonly string[];
  ConditionalOperator?: ConditionalOperator;
};

export type QueryInput = ReadMembers & {
  KeyConditionExpression?: string;
  ScanIndexForward?: boolean;
  /** Legacy key condition and filter. */
  KeyConditions?: { readonly [attribute: string]: Condition };
  QueryFilter?: { readonly [attribute: string]: Condition };
};

export type ScanInput = ReadMembers & {
  Segment?: number;
  TotalSegments?: number;
  /** Legacy filter. */
  ScanFilter?: { readonly [attribute: string]: Condition };
};

export type QueryOutput = {
  /** Absent with Select: COUNT. */
  Items?: ItemOutput[];
  Count: number;
  ScannedCount: number;
  LastEvaluatedKey?: KeyOutput;
  ConsumedCapacity?: ConsumedCapacity;
};
export type ScanOutput = QueryOutput;

type TransactTarget = {
  TableName: string;
  ExpressionAttributeNames?: ExpressionAttributeNames;
  ExpressionAttributeValues?: ExpressionAttributeValues;
  ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure;
};

export type TransactWriteItem =
  | { ConditionCheck: TransactTarget & { Key: Key; ConditionExpression: string }; Put?: never; Delete?: never; Update?: never }
  | { Put: TransactTarget & { Item: Item; ConditionExpression?: string }; ConditionCheck?: never; Delete?: never; Update?: never }
  | { Delete: TransactTarget & { Key: Key; ConditionExpression?: string }; ConditionCheck?: never; Put?: never; Update?: never }
  | {
      Update: TransactTarget & { Key: Key; UpdateExpression: string; ConditionExpression?: string };
      ConditionCheck?: never;
      Put?: never;
      Delete?: never;
    };

export type TransactWriteItemsInput = Capacity & {
  TransactItems: readonly TransactWriteItem[];
  ReturnItemCollectionMetrics?: ReturnItemCollectionMetrics;
  ClientRequestToken?: string;
};
export type TransactWriteItemsOutput = {
  ConsumedCapacity?: ConsumedCapacity[];
  ItemCollectionMetrics?: { [tableName: string]: ItemCollectionMetrics[] };
};

export type TransactGetItem = {
  Get: { TableName: string; Key: Key; ProjectionExpression?: string; ExpressionAttributeNames?: ExpressionAttributeNames };
};
export type TransactGetItemsInput = Capacity & { TransactItems: readonly TransactGetItem[] };
export type TransactGetItemsOutput = {
  Responses: { Item?: ItemOutput }[];
  ConsumedCapacity?: ConsumedCapacity[];
};
