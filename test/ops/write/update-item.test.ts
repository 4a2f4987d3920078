/**
 * UpdateItem's own wording for an update expression that sets a secondary index key to an empty
 * value, a value of the wrong type or one over the key size limits (a PutItem of the same item
 * names the index and the key instead, spec §4.4), and that nothing is written when it is refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, useTempDbs } from '../temp-db.js';

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

describe('an update expression setting a secondary index key to the wrong type or beyond its size limit', () => {
  const TYPE = 'The update expression attempted to update the secondary index key to unsupported type';
  const SIZE = 'The update expression attempted to update the secondary index key beyond allowed size limits';
  const stored = { pk: { S: 'p' }, sk: { N: '1' }, g: { S: 'g1' }, v: { S: '' } };

  it.each([
    ['a GSI partition key to a number', 'SET g = :v', { ':v': { N: '1' } }, TYPE],
    ['a GSI partition key to NULL', 'SET g = :v', { ':v': { NULL: true } }, TYPE],
    ['a GSI partition key to a list', 'SET g = list_append(:v, :v)', { ':v': { L: [] } }, TYPE],
    ['a GSI partition key from another attribute of the wrong type', 'SET g = sk', undefined, TYPE],
    ['an LSI sort key to a string', 'SET l = :v', { ':v': { S: 'x' } }, TYPE],
    ['a GSI partition key to 2,049 bytes', 'SET g = :v', { ':v': { S: 'x'.repeat(2049) } }, SIZE],
    ['an LSI sort key to 1,025 bytes', 'SET l = :v', { ':v': { B: Buffer.alloc(1025, 1).toString('base64') } }, SIZE],
  ])('%s is refused with the update-path wording and writes nothing', (_, UpdateExpression, ExpressionAttributeValues, message) => {
    expectError(() => db.updateItem({ TableName: 'Idx', Key: key, UpdateExpression, ...(ExpressionAttributeValues ? { ExpressionAttributeValues } : {}) }), 'ValidationException', message);
    expect(db.getItem({ TableName: 'Idx', Key: key }).Item).toEqual(stored);
  });

  it('keys at their size limits are accepted', () => {
    db.updateItem({ TableName: 'Idx', Key: key, UpdateExpression: 'SET g = :g, l = :l', ExpressionAttributeValues: { ':g': { S: 'x'.repeat(2048) }, ':l': { B: Buffer.alloc(1024, 1).toString('base64') } } });
    expect(db.getItem({ TableName: 'Idx', Key: key }).Item?.g).toEqual({ S: 'x'.repeat(2048) });
  });

  it('a PutItem of a wrong-typed index key keeps the wording that names the index and key', () => {
    expectError(
      () => db.putItem({ TableName: 'Idx', Item: { pk: { S: 'p' }, sk: { N: '1' }, g: { N: '1' } } }),
      'ValidationException',
      'One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: ByG',
    );
  });

  it('TransactWriteItems cancels such an Update with the same wording as its reason', () => {
    let caught: unknown;
    try {
      db.transactWriteItems({ TransactItems: [{ Update: { TableName: 'Idx', Key: key, UpdateExpression: 'SET g = :v', ExpressionAttributeValues: { ':v': { N: '1' } } } }] });
    } catch (e) {
      caught = e;
    }
    expect((caught as { name: string }).name).toBe('TransactionCanceledException');
    expect((caught as { CancellationReasons: unknown[] }).CancellationReasons).toEqual([{ Code: 'ValidationError', Message: TYPE }]);
    expect(db.getItem({ TableName: 'Idx', Key: key }).Item).toEqual(stored);
  });
});

describe('UpdateItem constraint errors joined in member order', () => {
  // Captured order: returnConsumedCapacity, tableName, returnValues, key; conditionalOperator
  // (worded [OR, AND]) before key.
  const NO_KEY = "Value null at 'key' failed to satisfy constraint: Member must not be null";
  const update = { UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: 'x' } } };
  it('lists returnConsumedCapacity, tableName, returnValues, then key', () => {
    expectError(
      () => db.updateItem({ TableName: '', ...update, ReturnConsumedCapacity: 'INVALID', ReturnValues: 'INVALID' } as never),
      'ValidationException',
      '4 validation errors detected: ' +
        "Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
        "Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1; " +
        "Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; " +
        NO_KEY,
    );
  });

  it('lists an unknown ConditionalOperator before the missing key', () => {
    expectError(
      () => db.updateItem({ TableName: 'Gone', AttributeUpdates: { x: { Action: 'PUT', Value: { S: '1' } } }, Expected: { a: { Exists: false }, b: { Exists: false } }, ConditionalOperator: 'XOR' } as never),
      'ValidationException',
      `2 validation errors detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]; ${NO_KEY}`,
    );
  });
});

describe('set members come back in DynamoDB order, however they were written', () => {
  const get = () => db.getItem({ TableName: 'Idx', Key: key, ConsistentRead: true }).Item!;

  it('ADD of an empty string member onto an existing set reads back first (tier1 updateItem/basic)', () => {
    db.updateItem({ TableName: 'Idx', Key: key, UpdateExpression: 'SET tags = :t', ExpressionAttributeValues: { ':t': { SS: ['a'] } } });
    db.updateItem({ TableName: 'Idx', Key: key, UpdateExpression: 'ADD tags :v', ExpressionAttributeValues: { ':v': { SS: [''] } } });
    expect(get().tags).toEqual({ SS: ['', 'a'] });
  });

  it('PutItem and AttributeUpdates store one order: strings and binaries bytewise, numbers by value', () => {
    db.putItem({ TableName: 'Idx', Item: { ...key, ss: { SS: ['b', 'a'] }, ns: { NS: ['10', '9', '-1'] }, bs: { BS: ['/w==', 'AA=='] } } });
    db.updateItem({ TableName: 'Idx', Key: key, AttributeUpdates: { ns: { Action: 'ADD', Value: { NS: ['2'] } } } });
    const item = get();
    expect(item.ss).toEqual({ SS: ['a', 'b'] });
    expect(item.ns).toEqual({ NS: ['-1', '2', '9', '10'] });
    expect(item.bs).toEqual({ BS: ['AA==', '/w=='] });
  });
});
