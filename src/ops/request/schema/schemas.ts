/**
 * Every operation's request shape, in DynamoDB's member order (the API reference's), checked by
 * check-request.ts before the operation's semantic checks. Adding an operation or a member is
 * one entry here.
 */
import {
  NAME_PATTERN,
  attributeMap,
  attributeValue,
  bool,
  enumOf,
  int,
  list,
  long,
  map,
  str,
  struct,
  tableName,
  type Members,
} from './shape.js';

const required = (name: string): string => `The parameter '${name}' is required but was not provided.`;

// Shared members.
/** The control plane's TableName (CreateTable's rules: 3..255 chars of the pattern). */
const CONTROL_TABLE_NAME = tableName({ required: required('TableName') });
/** The item operations' and reads' TableName: a name or an ARN (2026 captures, spec §8.4). */
const TABLE_NAME = tableName({ notNull: true, dataPlane: true });
const INDEX_NAME = str({ minLength: 3, maxLength: 255, pattern: NAME_PATTERN });
const RETURN_CONSUMED_CAPACITY = enumOf(['INDEXES', 'TOTAL', 'NONE']);
const RETURN_ITEM_COLLECTION_METRICS = enumOf(['SIZE', 'NONE']);
const RETURN_VALUES = enumOf(['ALL_NEW', 'UPDATED_OLD', 'ALL_OLD', 'NONE', 'UPDATED_NEW']);
const RETURN_ON_FAILURE = enumOf(['ALL_OLD', 'NONE']);
// Coral prints this enum as [OR, AND] (2026 captures).
const CONDITIONAL_OPERATOR = enumOf(['OR', 'AND']);
const COMPARISON_OPERATORS = ['EQ', 'NE', 'IN', 'LE', 'LT', 'GE', 'GT', 'BETWEEN', 'NOT_NULL', 'NULL', 'CONTAINS', 'NOT_CONTAINS', 'BEGINS_WITH'];
const COMPARISON_OPERATOR = enumOf(COMPARISON_OPERATORS);
// Coral prints these enums in its own order, not the API reference's.
const SELECT = enumOf(['SPECIFIC_ATTRIBUTES', 'COUNT', 'ALL_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES']);
const ATTRIBUTE_TYPE = enumOf(['B', 'N', 'S'], { notNull: true });
const ATTRIBUTES_TO_GET = list(str(), { minLength: 1 });
const NAMES = map(str());
const VALUES = map(attributeValue());
const CONDITION = struct({ AttributeValueList: list(attributeValue()), ComparisonOperator: enumOf(COMPARISON_OPERATORS, { notNull: true }) });
const CONDITIONS = map(CONDITION);
const EXPECTED = map(struct({ Value: attributeValue(), Exists: bool(), ComparisonOperator: COMPARISON_OPERATOR, AttributeValueList: list(attributeValue()) }));
const ATTRIBUTE_UPDATES = map(struct({ Value: attributeValue(), Action: enumOf(['ADD', 'PUT', 'DELETE']) }));
const LIMIT = int({ min: 1 });
const KEY_SCHEMA = list(struct({ AttributeName: str({ notNull: true, minLength: 1, maxLength: 255 }), KeyType: enumOf(['HASH', 'RANGE'], { notNull: true }) }, { javaName: 'KeySchemaElement' }), { notNull: true, minLength: 1, maxLength: 2 });
const PROJECTION = struct({ ProjectionType: enumOf(['ALL', 'KEYS_ONLY', 'INCLUDE']), NonKeyAttributes: list(str({ minLength: 1, maxLength: 255 }), { minLength: 1, maxLength: 20 }) }, { notNull: true });
const THROUGHPUT = struct({ ReadCapacityUnits: long({ notNull: true, min: 1 }), WriteCapacityUnits: long({ notNull: true, min: 1 }) });
const ON_DEMAND_THROUGHPUT = struct({ MaxReadRequestUnits: long(), MaxWriteRequestUnits: long() });
const STREAM_SPECIFICATION = struct({ StreamEnabled: bool({ notNull: true }), StreamViewType: enumOf(['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY']) });
const SSE_SPECIFICATION = struct({ Enabled: bool(), SSEType: enumOf(['AES256', 'KMS']), KMSMasterKeyId: str() });
const TAG = struct({ Key: str({ notNull: true, minLength: 1, maxLength: 128 }), Value: str({ notNull: true, minLength: 0, maxLength: 256 }) });
const TAGS = list(TAG);
const BILLING_MODE = enumOf(['PROVISIONED', 'PAY_PER_REQUEST']);
const TABLE_CLASS = enumOf(['STANDARD', 'STANDARD_INFREQUENT_ACCESS']);
const RESOURCE_ARN = str({ maxLength: 1283 });
export const INVALID_TABLE_ARN = 'Invalid TableArn';
const CLIENT_REQUEST_TOKEN = str({ minLength: 1, maxLength: 36 });

const GET = struct({ Key: attributeMap({ notNull: true }), TableName: tableName({ notNull: true }), ProjectionExpression: str(), ExpressionAttributeNames: NAMES });
const ITEM_WRITE = {
  ConditionExpression: str(),
  ExpressionAttributeNames: NAMES,
  ExpressionAttributeValues: VALUES,
  ReturnValuesOnConditionCheckFailure: RETURN_ON_FAILURE,
} as const;

export const REQUEST_SCHEMAS = {
  CreateTable: {
    AttributeDefinitions: list(struct({ AttributeName: str({ notNull: true, minLength: 1, maxLength: 255 }), AttributeType: ATTRIBUTE_TYPE }, { javaName: 'AttributeDefinition' }), { notNull: true }),
    // Missing is a model constraint here (Coral's null form), not the required-parameter sentence
    // the other control-plane operations answer.
    TableName: tableName({ notNull: true }),
    KeySchema: KEY_SCHEMA,
    // GSI errors are listed before LSI errors, whatever the request's order (2026 captures).
    GlobalSecondaryIndexes: list(struct({ IndexName: { ...INDEX_NAME, notNull: true }, KeySchema: KEY_SCHEMA, Projection: PROJECTION, ProvisionedThroughput: THROUGHPUT, OnDemandThroughput: ON_DEMAND_THROUGHPUT })),
    LocalSecondaryIndexes: list(struct({ IndexName: { ...INDEX_NAME, notNull: true }, KeySchema: KEY_SCHEMA, Projection: PROJECTION })),
    BillingMode: BILLING_MODE,
    ProvisionedThroughput: THROUGHPUT,
    StreamSpecification: STREAM_SPECIFICATION,
    SSESpecification: SSE_SPECIFICATION,
    Tags: TAGS,
    TableClass: TABLE_CLASS,
    DeletionProtectionEnabled: bool(),
    OnDemandThroughput: ON_DEMAND_THROUGHPUT,
  },
  DescribeTable: { TableName: CONTROL_TABLE_NAME },
  ListTables: { ExclusiveStartTableName: tableName({ arn: false }), Limit: int({ min: 1, max: 100 }) },
  DeleteTable: { TableName: CONTROL_TABLE_NAME },
  UpdateTable: {
    AttributeDefinitions: list(struct({ AttributeName: str({ notNull: true, minLength: 1, maxLength: 255 }), AttributeType: ATTRIBUTE_TYPE })),
    TableName: CONTROL_TABLE_NAME,
    BillingMode: BILLING_MODE,
    ProvisionedThroughput: THROUGHPUT,
    GlobalSecondaryIndexUpdates: list(
      struct({
        Update: struct({ IndexName: { ...INDEX_NAME, notNull: true }, ProvisionedThroughput: THROUGHPUT }),
        Create: struct({ IndexName: { ...INDEX_NAME, notNull: true }, KeySchema: KEY_SCHEMA, Projection: PROJECTION, ProvisionedThroughput: THROUGHPUT }),
        Delete: struct({ IndexName: { ...INDEX_NAME, notNull: true } }),
      }),
    ),
    StreamSpecification: STREAM_SPECIFICATION,
    SSESpecification: SSE_SPECIFICATION,
    TableClass: TABLE_CLASS,
    DeletionProtectionEnabled: bool(),
  },
  PutItem: {
    TableName: TABLE_NAME,
    Item: attributeMap({ notNull: true }),
    Expected: EXPECTED,
    ReturnValues: RETURN_VALUES,
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    ReturnItemCollectionMetrics: RETURN_ITEM_COLLECTION_METRICS,
    ConditionalOperator: CONDITIONAL_OPERATOR,
    ...ITEM_WRITE,
  },
  GetItem: {
    TableName: TABLE_NAME,
    Key: attributeMap({ notNull: true }),
    AttributesToGet: ATTRIBUTES_TO_GET,
    ConsistentRead: bool(),
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    ProjectionExpression: str(),
    ExpressionAttributeNames: NAMES,
  },
  // Captured order of joined errors: returnConsumedCapacity, tableName, returnValues, key; and
  // conditionalOperator before key (its place beside the others is a guess).
  UpdateItem: {
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    TableName: TABLE_NAME,
    ReturnValues: RETURN_VALUES,
    ConditionalOperator: CONDITIONAL_OPERATOR,
    Key: attributeMap({ notNull: true }),
    AttributeUpdates: ATTRIBUTE_UPDATES,
    Expected: EXPECTED,
    ReturnItemCollectionMetrics: RETURN_ITEM_COLLECTION_METRICS,
    UpdateExpression: str(),
    ...ITEM_WRITE,
  },
  DeleteItem: {
    TableName: TABLE_NAME,
    Key: attributeMap({ notNull: true }),
    Expected: EXPECTED,
    ConditionalOperator: CONDITIONAL_OPERATOR,
    ReturnValues: RETURN_VALUES,
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    ReturnItemCollectionMetrics: RETURN_ITEM_COLLECTION_METRICS,
    ...ITEM_WRITE,
  },
  BatchGetItem: {
    RequestItems: map(
      struct({
        // Keys' length is reported by the operation in DynamoDB's own form (no value shown).
        Keys: list(attributeMap(), { notNull: true }),
        AttributesToGet: ATTRIBUTES_TO_GET,
        ConsistentRead: bool(),
        ProjectionExpression: str(),
        ExpressionAttributeNames: NAMES,
      }),
      // Empty is reported by the operation, with the same sentence (request-checks.ts).
      { required: 'The requestItems parameter is required for BatchGetItem', maxLength: 100, tableNameKeys: true },
    ),
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
  },
  BatchWriteItem: {
    RequestItems: map(list(struct({ PutRequest: struct({ Item: attributeMap({ notNull: true }) }), DeleteRequest: struct({ Key: attributeMap({ notNull: true }) }) })), {
      // A table's request count is reported by the operation as a "Map value must satisfy" constraint.
      // Empty, and bad table names (after the enums, which win alone), are reported by the operation.
      required: 'The requestItems parameter is required for BatchWriteItem',
      maxLength: 25,
    }),
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    ReturnItemCollectionMetrics: RETURN_ITEM_COLLECTION_METRICS,
  },
  Query: {
    TableName: TABLE_NAME,
    IndexName: INDEX_NAME,
    Select: SELECT,
    AttributesToGet: ATTRIBUTES_TO_GET,
    Limit: LIMIT,
    ConsistentRead: bool(),
    KeyConditions: CONDITIONS,
    QueryFilter: CONDITIONS,
    ConditionalOperator: CONDITIONAL_OPERATOR,
    ScanIndexForward: bool(),
    ExclusiveStartKey: attributeMap(),
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    ProjectionExpression: str(),
    FilterExpression: str(),
    KeyConditionExpression: str(),
    ExpressionAttributeNames: NAMES,
    ExpressionAttributeValues: VALUES,
  },
  Scan: {
    TableName: TABLE_NAME,
    IndexName: INDEX_NAME,
    AttributesToGet: ATTRIBUTES_TO_GET,
    Limit: LIMIT,
    Select: SELECT,
    ScanFilter: CONDITIONS,
    ConditionalOperator: CONDITIONAL_OPERATOR,
    ExclusiveStartKey: attributeMap(),
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    TotalSegments: int({ min: 1, max: 1_000_000 }),
    Segment: int({ min: 0, max: 999_999 }),
    ProjectionExpression: str(),
    FilterExpression: str(),
    ExpressionAttributeNames: NAMES,
    ExpressionAttributeValues: VALUES,
    ConsistentRead: bool(),
  },
  TransactWriteItems: {
    TransactItems: list(
      struct({
        ConditionCheck: struct({ Key: attributeMap({ notNull: true }), TableName: tableName({ notNull: true }), ConditionExpression: str({ notNull: true }), ExpressionAttributeNames: NAMES, ExpressionAttributeValues: VALUES, ReturnValuesOnConditionCheckFailure: RETURN_ON_FAILURE }),
        Put: struct({ Item: attributeMap({ notNull: true }), TableName: tableName({ notNull: true }), ...ITEM_WRITE }),
        Delete: struct({ Key: attributeMap({ notNull: true }), TableName: tableName({ notNull: true }), ...ITEM_WRITE }),
        Update: struct({ Key: attributeMap({ notNull: true }), UpdateExpression: str({ notNull: true }), TableName: tableName({ notNull: true }), ...ITEM_WRITE }),
      }),
      // Its length is reported by the operation, the value shown as Java's list of objects.
      { notNull: true },
    ),
    // The token's errors come before the enums' (2026 captures).
    ClientRequestToken: CLIENT_REQUEST_TOKEN,
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
    ReturnItemCollectionMetrics: RETURN_ITEM_COLLECTION_METRICS,
  },
  TransactGetItems: {
    TransactItems: list(struct({ Get: { ...GET, notNull: true } }), { notNull: true }), // length: as TransactWriteItems
    ReturnConsumedCapacity: RETURN_CONSUMED_CAPACITY,
  },
  UpdateTimeToLive: {
    TableName: CONTROL_TABLE_NAME,
    TimeToLiveSpecification: struct({ Enabled: bool({ notNull: true }), AttributeName: str({ notNull: true, minLength: 1, maxLength: 255 }) }, { notNull: true }),
  },
  DescribeTimeToLive: { TableName: CONTROL_TABLE_NAME },
  DescribeLimits: {},
  DescribeEndpoints: {},
  // A missing ResourceArn is refused before anything else, in DynamoDB's words.
  // A null tag is a model constraint here (`tags.1.member` must not be null), not a tag to read.
  TagResource: { ResourceArn: { ...RESOURCE_ARN, required: INVALID_TABLE_ARN }, Tags: list({ ...TAG, notNull: true }, { notNull: true }) },
  UntagResource: { ResourceArn: { ...RESOURCE_ARN, required: INVALID_TABLE_ARN }, TagKeys: list(str({ notNull: true, minLength: 1, maxLength: 128 }), { notNull: true }) },
  ListTagsOfResource: { ResourceArn: { ...RESOURCE_ARN, required: INVALID_TABLE_ARN }, NextToken: str() },
} as const satisfies Record<string, Members>;

export type SchemaOperation = keyof typeof REQUEST_SCHEMAS;
