/**
 * UpdateItem's own wording for an update expression that sets a secondary index key to an empty
 * value (a PutItem of the same item names the index and the key instead), and that nothing is
 * written when it is refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { expectError, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

beforeEach(() => {
  db = temp.open();
  db.createTable({
    TableName: 'Idx',
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'N' },
      { AttributeName: 'g', AttributeType: 'S' },
      { AttributeName: 'l', AttributeType: 'B' },
    ],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    GlobalSecondaryIndexes: [{ IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
    LocalSecondaryIndexes: [
      { IndexName: 'ByL', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'l', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
    ],
  });
  db.putItem({ TableName: 'Idx', Item: { pk: { S: 'p' }, sk: { N: '1' }, g: { S: 'g1' }, v: { S: '' } } });
});

const UPDATE_EMPTY = (kind: string) =>
  `One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty ${kind} value.`;
const key = { pk: { S: 'p' }, sk: { N: '1' } };

describe('an update expression setting a secondary index key to an empty value', () => {
  it.each([
    ['a GSI partition key to an empty string', 'SET g = :e', { ':e': { S: '' } }, 'string'],
    ['an LSI sort key to an empty binary', 'SET l = :e', { ':e': { B: '' } }, 'binary'],
    ['an index key on an item that does not exist yet', 'SET g = :e', { ':e': { S: '' } }, 'string', { pk: { S: 'new' }, sk: { N: '2' } }],
  ])('%s is refused with the update-path wording', (_, UpdateExpression, ExpressionAttributeValues, kind, Key = key) => {
    expectError(() => db.updateItem({ TableName: 'Idx', Key, UpdateExpression, ExpressionAttributeValues }), 'ValidationException', UPDATE_EMPTY(kind));
    expect(db.getItem({ TableName: 'Idx', Key: key }).Item).toEqual({ pk: { S: 'p' }, sk: { N: '1' }, g: { S: 'g1' }, v: { S: '' } });
    expect(db.getItem({ TableName: 'Idx', Key: { pk: { S: 'new' }, sk: { N: '2' } } }).Item).toBeUndefined();
  });

  it('a PutItem of the same item keeps the wording that names the index and key', () => {
    expectError(
      () => db.putItem({ TableName: 'Idx', Item: { pk: { S: 'p' }, sk: { N: '1' }, g: { S: '' } } }),
      'ValidationException',
      'One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ByG, IndexKey: g',
    );
  });

  it('an empty string on a non-key attribute is still accepted', () => {
    db.updateItem({ TableName: 'Idx', Key: key, UpdateExpression: 'SET w = :e', ExpressionAttributeValues: { ':e': { S: '' } } });
    expect(db.getItem({ TableName: 'Idx', Key: key }).Item?.w).toEqual({ S: '' });
  });
});
