/**
 * The request front end, as DynamoDB's (spec §8.3-§8.4): wrong JSON types are
 * SerializationExceptions in Coral's words and win over everything; a missing required parameter
 * of the control plane is reported alone in DynamoDB's words (the data plane's TableName is a
 * Coral member like any other); every constraint failure is reported in one message,
 * `N validation error(s) detected: ...` joined with `; `. Each case also proves the store is
 * unchanged.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable, OperationName } from '../../../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from '../../temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

beforeEach(() => {
  db = temp.open();
  db.createTable(tableRequest('Tbl', ['pk', 'S']));
  db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'a' } } });
});

const V = 'ValidationException';
const S = 'SerializationException';
const one = (text: string) => `1 validation error detected: ${text}`;
const two = (a: string, b: string) => `2 validation errors detected: ${a}; ${b}`;
const at = (value: string | null, path: string, constraint: string) =>
  `Value ${value === null ? 'null' : `'${value}'`} at '${path}' failed to satisfy constraint: ${constraint}`;
const PATTERN = 'Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+';
const MIN3 = 'Member must have length greater than or equal to 3';
const RCC = 'Member must satisfy enum value set: [INDEXES, TOTAL, NONE]';
const MAP_KEYS =
  'Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]';

const put = (Item: Record<string, unknown>) => ({ PutRequest: { Item } });

type Case = [what: string, operation: OperationName, request: Record<string, unknown>, name: string, message: string];

const CASES: Case[] = [
  // Required parameters, in DynamoDB's own words.
  // The data plane's TableName is a Coral member (2026 captures): null, then 1..1024 chars, then the name rules.
  ['GetItem without TableName', 'GetItem', { Key: { pk: { S: 'a' } } }, V, one(at(null, 'tableName', 'Member must not be null'))],
  ['PutItem without TableName', 'PutItem', { Item: { pk: { S: 'a' } } }, V, one(at(null, 'tableName', 'Member must not be null'))],
  ['PutItem without anything', 'PutItem', {}, V, two(at(null, 'tableName', 'Member must not be null'), at(null, 'item', 'Member must not be null'))],
  ['PutItem with an empty TableName: one error, no pattern', 'PutItem', { TableName: '', Item: { pk: { S: 'a' } } }, V, one(at('', 'tableName', 'Member must have length greater than or equal to 1'))],
  ['PutItem with a TableName over 255 characters', 'PutItem', { TableName: 'a'.repeat(256), Item: { pk: { S: 'a' } } }, V, one(at('a'.repeat(256), 'tableName', 'Member must have length less than or equal to 255'))],
  ['PutItem with a TableName over 1024 characters', 'PutItem', { TableName: 'a'.repeat(1025), Item: { pk: { S: 'a' } } }, V, one(at('a'.repeat(1025), 'tableName', 'Member must have length less than or equal to 1024'))],
  ['PutItem with a TableName off the pattern', 'PutItem', { TableName: 'bad table!@#', Item: { pk: { S: 'a' } } }, V, one(at('bad table!@#', 'tableName', PATTERN))],
  ['UpdateItem: an empty TableName joins the missing Key', 'UpdateItem', { TableName: '', UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } }, V, two(at('', 'tableName', 'Member must have length greater than or equal to 1'), at(null, 'key', 'Member must not be null'))],
  ['DeleteItem without TableName', 'DeleteItem', { Key: { pk: { S: 'a' } } }, V, one(at(null, 'tableName', 'Member must not be null'))],
  ['Scan with an empty TableName', 'Scan', { TableName: '' }, V, one(at('', 'tableName', 'Member must have length greater than or equal to 1'))],
  ['a short data-plane TableName is a table that does not exist', 'GetItem', { TableName: 'ab', Key: { pk: { S: 'a' } } }, 'ResourceNotFoundException', 'Requested resource not found'],
  ['a one-character data-plane TableName too', 'PutItem', { TableName: 'T', Item: { pk: { S: 'a' } } }, 'ResourceNotFoundException', 'Requested resource not found'],
  ['DescribeTable without TableName', 'DescribeTable', {}, V, "The parameter 'TableName' is required but was not provided."],
  ['BatchGetItem without RequestItems', 'BatchGetItem', {}, V, 'The requestItems parameter is required for BatchGetItem'],
  ['BatchWriteItem without RequestItems', 'BatchWriteItem', {}, V, 'The requestItems parameter is required for BatchWriteItem'],
  // Constraints, all of them in one message.
  ['a data-plane TableName off the pattern: no minimum of 3', 'GetItem', { TableName: 'a;', Key: { pk: { S: 'a' } } }, V, one(at('a;', 'tableName', PATTERN))],
  ['a control-plane TableName failing length and pattern', 'DescribeTable', { TableName: 'a;' }, V, two(at('a;', 'tableName', MIN3), at('a;', 'tableName', PATTERN))],
  // CreateTable's missing TableName is a model constraint, aggregated with the others; the other control-plane operations keep their sentence.
  ['CreateTable without TableName', 'CreateTable', { AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }, V, one("Value null at 'tableName' failed to satisfy constraint: Member must not be null")],
  ['CreateTable without TableName or KeySchema', 'CreateTable', { AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] }, V, "2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null; Value null at 'keySchema' failed to satisfy constraint: Member must not be null"],
  ['CreateTable keeps its minimum of 3', 'CreateTable', { ...tableRequest('ab', ['pk', 'S']) }, V, one(at('ab', 'tableName', MIN3))],
  ['a TableName over 255 characters', 'DescribeTable', { TableName: 'x'.repeat(256) }, V, one(at('x'.repeat(256), 'tableName', 'Member must have length less than or equal to 255'))],
  ['a null Key', 'GetItem', { TableName: 'Tbl' }, V, one(at(null, 'key', 'Member must not be null'))],
  [
    'an invalid Limit and an invalid ReturnConsumedCapacity together',
    'Query',
    { TableName: 'Tbl', Limit: 0, ReturnConsumedCapacity: 'ALL', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } } },
    V,
    two(at('0', 'limit', 'Member must have value greater than or equal to 1'), at('ALL', 'returnConsumedCapacity', RCC)),
  ],
  ['Query with an invalid Select', 'Query', { TableName: 'Tbl', Select: 'SOME' }, V, one(at('SOME', 'select', 'Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]'))],
  ['Scan segments out of range', 'Scan', { TableName: 'Tbl', Segment: 1_000_000, TotalSegments: 0 }, V, two(at('0', 'totalSegments', 'Member must have value greater than or equal to 1'), at('1000000', 'segment', 'Member must have value less than or equal to 999999'))],
  ['an IndexName too short with a bad name', 'Scan', { TableName: 'Tbl', IndexName: 'x' }, V, one(at('x', 'indexName', MIN3))],
  ['ReturnValues outside the enum', 'PutItem', { TableName: 'Tbl', Item: { pk: { S: 'b' } }, ReturnValues: 'SOME' }, V, one(at('SOME', 'returnValues', 'Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]'))],
  ['a legacy condition without ComparisonOperator', 'Scan', { TableName: 'Tbl', ScanFilter: { a: { AttributeValueList: [{ S: 'x' }] } } }, V, one(at(null, 'scanFilter.a.member.comparisonOperator', 'Member must not be null'))],
  ['ListTables with Limit 101', 'ListTables', { Limit: 101 }, V, one(at('101', 'limit', 'Member must have value less than or equal to 100'))],
  // RequestItems (2026 captures): empty in the form without the value; a bad table name is one
  // error on the whole map, shown as JSON by BatchGetItem and as Java's toString by BatchWriteItem.
  ['BatchGetItem with an empty RequestItems', 'BatchGetItem', { RequestItems: {} }, V, 'The requestItems parameter is required for BatchGetItem'],
  ['BatchWriteItem with an empty RequestItems', 'BatchWriteItem', { RequestItems: {} }, V, 'The requestItems parameter is required for BatchWriteItem'],
  ['BatchGetItem with a bad table name', 'BatchGetItem', { RequestItems: { 'bad!name': { Keys: [{ pk: { S: 'a' } }] } } }, V, one(at('{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}', 'requestItems', MAP_KEYS))],
  ['BatchGetItem with a two-character table name', 'BatchGetItem', { RequestItems: { ab: { Keys: [{ pk: { S: 'a' } }] } } }, V, one(at('{"ab":{"Keys":[{"pk":{"S":"a"}}]}}', 'requestItems', MAP_KEYS))],
  ['BatchGetItem: a bad table name joins an unknown ReturnConsumedCapacity, in member order', 'BatchGetItem', { RequestItems: { 'bad!name': { Keys: [{ pk: { S: 'a' } }] } }, ReturnConsumedCapacity: 'BOGUS' }, V, two(at('{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}', 'requestItems', MAP_KEYS), at('BOGUS', 'returnConsumedCapacity', RCC))],
  ['BatchWriteItem with a bad table name', 'BatchWriteItem', { RequestItems: { 'bad!name': [put({ pk: { S: 'x' } })] } }, V, one(at('{bad!name=[WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(S=x)}), deleteRequest=null)]}', 'requestItems', MAP_KEYS))],
  ['BatchWriteItem: an unknown ReturnConsumedCapacity alone over a bad table name', 'BatchWriteItem', { RequestItems: { 'bad!name': [put({ pk: { S: 'x' } })] }, ReturnConsumedCapacity: 'BOGUS' }, V, one(at('BOGUS', 'returnConsumedCapacity', RCC))],
  ['BatchWriteItem with an empty request list', 'BatchWriteItem', { RequestItems: { Tbl: [] } }, V, one(at('{Tbl=[]}', 'requestItems', 'Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]'))],
  [
    'CreateTable: several members at once',
    'CreateTable',
    { TableName: 'T!', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'X' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] },
    V,
    `3 validation errors detected: ${at('X', 'attributeDefinitions.1.member.attributeType', 'Member must satisfy enum value set: [B, N, S]')}; ${at('T!', 'tableName', MIN3)}; ${at('T!', 'tableName', PATTERN)}`,
  ],
  // Wrong JSON types: SerializationException, before any constraint.
  ['a boolean TableName', 'GetItem', { TableName: true }, S, 'TRUE_VALUE cannot be converted to String'],
  ['a false TableName', 'GetItem', { TableName: false }, S, 'FALSE_VALUE cannot be converted to String'],
  ['a number TableName', 'GetItem', { TableName: 12 }, S, 'NUMBER_VALUE cannot be converted to String'],
  ['a decimal TableName', 'GetItem', { TableName: 1.5 }, S, 'DECIMAL_VALUE cannot be converted to String'],
  ['an object TableName', 'GetItem', { TableName: {} }, S, 'Start of structure or map found where not expected'],
  ['a list TableName', 'GetItem', { TableName: [] }, S, 'Unrecognized collection type class java.lang.String'],
  ['a string Limit', 'Scan', { TableName: 'Tbl', Limit: '5' }, S, 'STRING_VALUE cannot be converted to Integer'],
  ['a boolean Limit', 'Scan', { TableName: 'Tbl', Limit: true }, S, 'TRUE_VALUE cannot be converted to Integer'],
  ['a string AttributesToGet', 'GetItem', { TableName: 'Tbl', Key: { pk: { S: 'a' } }, AttributesToGet: 'pk' }, S, 'Unexpected field type'],
  ['an object AttributesToGet', 'GetItem', { TableName: 'Tbl', Key: { pk: { S: 'a' } }, AttributesToGet: {} }, S, 'Start of structure or map found where not expected'],
  ['a list ExpressionAttributeNames', 'GetItem', { TableName: 'Tbl', Key: { pk: { S: 'a' } }, ExpressionAttributeNames: [] }, S, 'Start of list found where not expected'],
  ['a string ConsistentRead', 'GetItem', { TableName: 'Tbl', Key: { pk: { S: 'a' } }, ConsistentRead: 'yes' }, S, 'Unexpected token received from parser'],
  ['a string ProvisionedThroughput', 'UpdateTable', { TableName: 'Tbl', ProvisionedThroughput: 'x' }, S, 'Unexpected value type in payload'],
  ['a number where an AttributeValue string goes', 'PutItem', { TableName: 'Tbl', Item: { pk: { S: 5 } } }, S, 'NUMBER_VALUE cannot be converted to String'],
  ['a type error beats a constraint failure', 'Query', { TableName: 'a;', Limit: 0, ScanIndexForward: 3 }, S, 'NUMBER_VALUE cannot be converted to Boolean'],
  ['a type error beats a missing required parameter', 'GetItem', { ConsistentRead: 1 }, S, 'NUMBER_VALUE cannot be converted to Boolean'],
  // PutItem converts its Item once too (without ExpressionAttributeValues); its shape errors still win.
  ["PutItem: the item's type error beats a ReturnValues PutItem does not take", 'PutItem', { TableName: 'Tbl', ReturnValues: 'ALL_NEW', Item: { pk: { S: 'x' }, a: { BOOL: 'yes' } } }, S, 'Unexpected token received from parser'],
  ["PutItem: a later attribute's type error beats an earlier one's bad number", 'PutItem', { TableName: 'Tbl', Item: { pk: { S: 'x' }, n: { N: 'abc' }, m: { S: 5 } } }, S, 'NUMBER_VALUE cannot be converted to String'],
  ["PutItem: the item's type error beats a missing table", 'PutItem', { TableName: 'Missing', Item: { pk: { S: 'x' }, m: { L: {} } } }, S, 'Start of structure or map found where not expected'],
  ['PutItem: a ReturnValues PutItem does not take, with a good item', 'PutItem', { TableName: 'Tbl', ReturnValues: 'ALL_NEW', Item: { pk: { S: 'x' } } }, V, 'ReturnValues can only be ALL_OLD or NONE'],
  ["PutItem with ExpressionAttributeValues: the item's type error beats the values' bad number", 'PutItem', { TableName: 'Tbl', Item: { pk: { S: 'x' }, m: { S: 5 } }, ConditionExpression: 'a = :v', ExpressionAttributeValues: { ':v': { N: 'abc' } } }, S, 'NUMBER_VALUE cannot be converted to String'],
  ["PutItem with ExpressionAttributeValues: the values' type error beats the item's bad number", 'PutItem', { TableName: 'Tbl', Item: { pk: { S: 'x' }, n: { N: 'abc' } }, ConditionExpression: 'a = :v', ExpressionAttributeValues: { ':v': { S: 5 } } }, S, 'NUMBER_VALUE cannot be converted to String'],
  // BatchWriteItem converts each item once (no separate shape walk); a shape error anywhere still wins.
  ["BatchWriteItem: a later item's type error beats an earlier item's bad number", 'BatchWriteItem', { RequestItems: { Tbl: [put({ pk: { S: 'x' }, n: { N: 'abc' } }), put({ pk: { S: 5 } })] } }, S, 'NUMBER_VALUE cannot be converted to String'],
  ["BatchWriteItem: an item's type error beats duplicate keys", 'BatchWriteItem', { RequestItems: { Tbl: [put({ pk: { S: 'x' } }), put({ pk: { S: 'x' } }), put({ pk: { S: 'y' }, a: { SS: 'z' } })] } }, S, 'Unexpected field type'],
  ["BatchWriteItem: an item's type error beats too many requests", 'BatchWriteItem', { RequestItems: { Tbl: [...Array.from({ length: 25 }, (_, i) => put({ pk: { S: `k${i}` } })), put({ pk: { S: 'z' }, b: { BOOL: 'yes' } })] } }, S, 'Unexpected token received from parser'],
  ["BatchWriteItem: an item's type error beats a missing table", 'BatchWriteItem', { RequestItems: { Missing: [put({ pk: { S: 'x' } })], Tbl: [{ DeleteRequest: { Key: { pk: { N: 1 } } } }] } }, S, 'NUMBER_VALUE cannot be converted to String'],
  ["BatchWriteItem: an earlier item's type error beats a later WriteRequest's type error", 'BatchWriteItem', { RequestItems: { Tbl: [put({ pk: { S: true } }), { PutRequest: 7 }] } }, S, 'TRUE_VALUE cannot be converted to String'],
];

describe('request validation: exact messages', () => {
  it.each(CASES)('%s', (_what, operation, request, name, message) => {
    const before = db.scan({ TableName: 'Tbl' });
    expectError(() => db.execute(operation, request), name, message);
    expect(db.scan({ TableName: 'Tbl' })).toEqual(before);
  });

  it('a decimal Integer member is truncated, as the service reads it', () => {
    expect(db.scan({ TableName: 'Tbl', Limit: 1.9 }).Count).toBe(1);
    expectError(() => db.scan({ TableName: 'Tbl', Limit: 0.5 }), V, one(at('0', 'limit', 'Member must have value greater than or equal to 1')));
  });

  it('a table ARN passes where a TableName goes on the data plane', () => {
    const arn = db.describeTable({ TableName: 'Tbl' }).Table.TableArn as string;
    expect(db.getItem({ TableName: arn, Key: { pk: { S: 'a' } } }).Item).toEqual({ pk: { S: 'a' } });
  });

  it("a table ARN passes as a RequestItems key, outside the map keys' name rules", () => {
    const arn = db.describeTable({ TableName: 'Tbl' }).Table.TableArn as string;
    expect(db.batchGetItem({ RequestItems: { [arn]: { Keys: [{ pk: { S: 'a' } }] } } }).Responses).toEqual({ [arn]: [{ pk: { S: 'a' } }] });
    expect(db.batchWriteItem({ RequestItems: { [arn]: [{ PutRequest: { Item: { pk: { S: 'arn' } } } }] } }).UnprocessedItems).toEqual({});
    expect(db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'arn' } } }).Item).toEqual({ pk: { S: 'arn' } });
  });
});

describe('Query: key condition messages after the shape checks', () => {
  const query = (kce: string, values: Record<string, unknown>) => () =>
    db.execute('Query', { TableName: 'Range', KeyConditionExpression: kce, ExpressionAttributeValues: values });
  beforeEach(() => {
    db.createTable(tableRequest('Range', ['pk', 'S'], ['sk', 'N']));
  });

  it.each([
    ['only a non-key attribute: names the partition key', 'attr1 = :a', { ':a': { S: 'x' } }, 'Query condition missed key schema element: pk'],
    ['the partition key and a non-key attribute: names the sort key', 'pk = :p AND attr1 = :a', { ':p': { S: 'p' }, ':a': { S: 'x' } }, 'Query condition missed key schema element: sk'],
    ['the sort key alone', 'sk = :s', { ':s': { N: '1' } }, 'Query condition missed key schema element: pk'],
  ])('%s', (_what, kce, values, message) => {
    expectError(query(kce, values), V, message);
  });
});
