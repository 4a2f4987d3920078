/**
 * The public request and response shapes shared by DynamoDB's operations, with AWS's member names
 * (the JSON wire protocol's, as in the DynamoDB API reference). Types only: the engine validates
 * every request at run time (ops/), so these types describe what is accepted, and the compiler
 * catches a misspelled member or a wrong value type before it runs.
 *
 * Requests take `AttributeValue` (binary as a Uint8Array or a base64 string); responses give
 * `AttributeValueOutput` (binary as base64, as DynamoDB's JSON has it; NULL is always true there,
 * while a request's `NULL: false` is refused at run time, as DynamoDB does). Each value names exactly
 * one type: the other type keys are declared `?: never`, so `value.N` reads as `string | undefined`
 * on any value and `{ S: 'a', N: '1' }` does not compile.
 */

export type AttributeTypeKey = 'S' | 'N' | 'B' | 'BOOL' | 'NULL' | 'M' | 'L' | 'SS' | 'NS' | 'BS';

/** The other nine type keys, absent. */
type Only<K extends AttributeTypeKey> = { readonly [P in Exclude<AttributeTypeKey, K>]?: never };

/** A binary value in a request: bytes, or their base64 text. */
export type BinaryInput = Uint8Array | string;

/** An attribute value in a request. */
export type AttributeValue =
  | ({ readonly S: string } & Only<'S'>)
  | ({ readonly N: string } & Only<'N'>)
  | ({ readonly B: BinaryInput } & Only<'B'>)
  | ({ readonly BOOL: boolean } & Only<'BOOL'>)
  | ({ readonly NULL: boolean } & Only<'NULL'>)
  | ({ readonly M: { readonly [name: string]: AttributeValue } } & Only<'M'>)
  | ({ readonly L: readonly AttributeValue[] } & Only<'L'>)
  | ({ readonly SS: readonly string[] } & Only<'SS'>)
  | ({ readonly NS: readonly string[] } & Only<'NS'>)
  | ({ readonly BS: readonly BinaryInput[] } & Only<'BS'>);

/** An attribute value in a response: binary values are base64 strings. */
export type AttributeValueOutput =
  | ({ S: string } & Only<'S'>)
  | ({ N: string } & Only<'N'>)
  | ({ B: string } & Only<'B'>)
  | ({ BOOL: boolean } & Only<'BOOL'>)
  | ({ NULL: true } & Only<'NULL'>)
  | ({ M: { [name: string]: AttributeValueOutput } } & Only<'M'>)
  | ({ L: AttributeValueOutput[] } & Only<'L'>)
  | ({ SS: string[] } & Only<'SS'>)
  | ({ NS: string[] } & Only<'NS'>)
  | ({ BS: string[] } & Only<'BS'>);

/** An item or a key in a request: attribute name -> value. */
export type Item = { readonly [name: string]: AttributeValue };
export type Key = Item;

/** An item or a key in a response. */
export type ItemOutput = { [name: string]: AttributeValueOutput };
export type KeyOutput = ItemOutput;

export type ExpressionAttributeNames = { readonly [placeholder: `#${string}`]: string };
export type ExpressionAttributeValues = { readonly [placeholder: `:${string}`]: AttributeValue };

export type ReturnConsumedCapacity = 'INDEXES' | 'TOTAL' | 'NONE';
export type ReturnItemCollectionMetrics = 'SIZE' | 'NONE';
export type ReturnValue = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
export type ReturnValuesOnConditionCheckFailure = 'ALL_OLD' | 'NONE';
export type Select = 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';
export type ConditionalOperator = 'AND' | 'OR';
export type ComparisonOperator =
  | 'EQ' | 'NE' | 'IN' | 'LE' | 'LT' | 'GE' | 'GT' | 'BETWEEN'
  | 'NOT_NULL' | 'NULL' | 'CONTAINS' | 'NOT_CONTAINS' | 'BEGINS_WITH';

/** The members every conditional item write shares (PutItem, UpdateItem, DeleteItem). */
export type ConditionMembers = {
  ConditionExpression?: string;
  ExpressionAttributeNames?: ExpressionAttributeNames;
  ExpressionAttributeValues?: ExpressionAttributeValues;
  /** Legacy: a condition per attribute. */
  Expected?: { readonly [attribute: string]: ExpectedAttributeValue };
  ConditionalOperator?: ConditionalOperator;
};

/** Legacy `Expected` entry. */
export type ExpectedAttributeValue = {
  Value?: AttributeValue;
  Exists?: boolean;
  ComparisonOperator?: ComparisonOperator;
  AttributeValueList?: readonly AttributeValue[];
};

/** Legacy `KeyConditions`, `QueryFilter` and `ScanFilter` entry. */
export type Condition = {
  ComparisonOperator: ComparisonOperator;
  AttributeValueList?: readonly AttributeValue[];
};

export type Capacity = {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
};

export type ConsumedCapacity = Capacity & {
  TableName?: string;
  Table?: Capacity;
  LocalSecondaryIndexes?: { [indexName: string]: Capacity };
  GlobalSecondaryIndexes?: { [indexName: string]: Capacity };
};

export type ItemCollectionMetrics = {
  ItemCollectionKey?: KeyOutput;
  SizeEstimateRangeGB?: number[];
};
