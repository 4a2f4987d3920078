/**
 * Which value checker each operation runs (model/value-layer.ts), seen from the operations: the
 * same duplicate set members sent to every surface, and the words each one answers with
 * (2026-10 captures). The current checker (PutItem, UpdateItem, DeleteItem, GetItem,
 * BatchGetItem, Query) quotes the members, sorted up to the first repeat, and never wraps an
 * ExpressionAttributeValues value's error; the older one (BatchWriteItem, transactions) lists
 * them as sent and wraps expression values. Nothing is written by any of them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AttributeValue } from '../../src/api/shapes.js';
import type { Edgetable } from '../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

const VALIDATION = 'ValidationException';
const INVALID = 'One or more parameter values were invalid: ';

/** Sent with a repeat and out of order: SS b, a, b; BS /w==, AA==, AA==; NS 2, 1, 2. */
const SETS: AttributeValue[] = [{ SS: ['b', 'a', 'b'] }, { BS: ['/w==', 'AA==', 'AA=='] }, { NS: ['2', '1', '2'] }];
const CURRENT = [
  `${INVALID}Input collection ["a", "b", "b"] contains duplicates.`,
  `${INVALID}Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.`,
  `${INVALID}Input collection contains duplicates.`,
];
const OLDER = [
  `${INVALID}Input collection [b, a, b] contains duplicates.`,
  `${INVALID}Input collection [/w==, AA==, AA==]of type BS contains duplicates.`,
  'Input collection contains duplicates',
];

/** Each set sent through `send`; each refusal's message, after checking nothing changed. */
function refusals(send: (set: AttributeValue) => unknown): string[] {
  const before = db.scan({ TableName: 'Tbl', ConsistentRead: true }).Items;
  const got = SETS.map((set) => {
    try {
      send(set);
    } catch (e) {
      expect((e as Error).name).toBe(VALIDATION);
      return (e as Error).message;
    }
    return '(accepted)';
  });
  expect(db.scan({ TableName: 'Tbl', ConsistentRead: true }).Items).toEqual(before);
  return got;
}

beforeEach(() => {
  db = temp.open();
  db.createTable(tableRequest('Tbl', ['pk', 'S']));
  db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'old' }, s: { S: 'kept' } } });
});

describe('duplicate set members, current checker', () => {
  it('PutItem and UpdateItem: bare, in an item, a condition value, Expected and AttributeUpdates', () => {
    const want = CURRENT;
    expect(refusals((s) => db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'new' }, s } }))).toEqual(want);
    expect(
      refusals((s) => db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'new' } }, ConditionExpression: 'attribute_not_exists(pk) OR s = :t', ExpressionAttributeValues: { ':t': s } })),
    ).toEqual(want);
    expect(refusals((s) => db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'new' } }, Expected: { s: { Value: s } } }))).toEqual(want);
    expect(refusals((s) => db.updateItem({ TableName: 'Tbl', Key: { pk: { S: 'new' } }, AttributeUpdates: { s: { Action: 'PUT', Value: s } } }))).toEqual(want);
    expect(refusals((s) => db.updateItem({ TableName: 'Tbl', Key: { pk: s }, UpdateExpression: 'SET o = :o', ExpressionAttributeValues: { ':o': { N: '1' } } }))).toEqual(want);
  });

  it('DeleteItem: the current wording, bare, with no ExpressionAttributeValues wrapper', () => {
    expect(refusals((s) => db.deleteItem({ TableName: 'Tbl', Key: { pk: { S: 'old' } }, ConditionExpression: 's = :t', ExpressionAttributeValues: { ':t': s } }))).toEqual(CURRENT);
  });

  it('GetItem, BatchGetItem and Query: bare, in a key, a key condition, a filter, ExclusiveStartKey and QueryFilter', () => {
    expect(refusals((s) => db.getItem({ TableName: 'Tbl', Key: { pk: s } }))).toEqual(CURRENT);
    expect(refusals((s) => db.batchGetItem({ RequestItems: { Tbl: { Keys: [{ pk: s }] } } }))).toEqual(CURRENT);
    expect(refusals((s) => db.query({ TableName: 'Tbl', KeyConditionExpression: 'pk = :t', ExpressionAttributeValues: { ':t': s } }))).toEqual(CURRENT);
    expect(
      refusals((s) => db.query({ TableName: 'Tbl', KeyConditionExpression: 'pk = :p', FilterExpression: 's = :t', ExpressionAttributeValues: { ':p': { S: 'old' }, ':t': s } })),
    ).toEqual(CURRENT);
    expect(
      refusals((s) => db.query({ TableName: 'Tbl', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'old' } }, ExclusiveStartKey: { pk: s } })),
    ).toEqual(CURRENT);
    expect(
      refusals((s) =>
        db.query({
          TableName: 'Tbl',
          KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'old' }] } },
          QueryFilter: { s: { ComparisonOperator: 'EQ', AttributeValueList: [s] } },
        }),
      ),
    ).toEqual(CURRENT);
  });

  it('a start key that does not fit the table still names the start key', () => {
    expectError(
      () => db.query({ TableName: 'Tbl', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'old' } }, ExclusiveStartKey: { other: { S: 'x' } } }),
      VALIDATION,
      'The provided starting key is invalid: The provided key element does not match the schema',
    );
  });
});

describe('duplicate set members, older checker', () => {
  it('BatchWriteItem: bare, as sent, in an item and a delete key', () => {
    expect(refusals((s) => db.batchWriteItem({ RequestItems: { Tbl: [{ PutRequest: { Item: { pk: { S: 'new' }, s } } }] } }))).toEqual(OLDER);
    expect(refusals((s) => db.batchWriteItem({ RequestItems: { Tbl: [{ DeleteRequest: { Key: { pk: s } } }] } }))).toEqual(OLDER);
  });

  it('TransactWriteItems and TransactGetItems: bare, with expression values in the wrapper', () => {
    const forKey = (m: string) => `ExpressionAttributeValues contains invalid value: ${m} for key :t`;
    expect(refusals((s) => db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Tbl', Item: { pk: { S: 'new' }, s } } }] }))).toEqual(OLDER);
    expect(refusals((s) => db.transactWriteItems({ TransactItems: [{ Delete: { TableName: 'Tbl', Key: { pk: s } } }] }))).toEqual(OLDER);
    expect(
      refusals((s) =>
        db.transactWriteItems({ TransactItems: [{ Update: { TableName: 'Tbl', Key: { pk: { S: 'old' } }, UpdateExpression: 'SET s = :t', ExpressionAttributeValues: { ':t': s } } }] }),
      ),
    ).toEqual(OLDER.map(forKey));
    expect(
      refusals((s) =>
        db.transactWriteItems({
          TransactItems: [{ ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'old' } }, ConditionExpression: 'attribute_not_exists(pk) OR s = :t', ExpressionAttributeValues: { ':t': s } } }],
        }),
      ),
    ).toEqual(OLDER.map(forKey));
    expect(refusals((s) => db.transactGetItems({ TransactItems: [{ Get: { TableName: 'Tbl', Key: { pk: s } } }] }))).toEqual(OLDER);
  });
});
