/**
 * The item operations (spec §6.2, §6.5, §5.2, §5.3): ReturnValues, conditional writes with
 * ReturnValuesOnConditionCheckFailure, upsert, projections, BatchGetItem across tables, absent
 * items, ConsumedCapacity at the unit boundaries, binary round trips and key lengths.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { ConditionalCheckFailedException } from '../../src/model/errors.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';
import type { Item, ReturnValue } from '../../src/api/shapes.js';

const temp = useTempDbs();
let db: Edgetable;

beforeEach(() => {
  db = temp.open();
  db.createTable(tableRequest('Items', ['pk', 'S'], ['sk', 'N'], 4));
  db.createTable(tableRequest('Simple', ['id', 'S'], undefined, 2));
});

const key = (pk: string, sk: number) => ({ pk: { S: pk }, sk: { N: String(sk) } });

function conditionFailure(fn: () => unknown): ConditionalCheckFailedException {
  const error = expectError(fn, 'ConditionalCheckFailedException', 'The conditional request failed');
  expect(error).toBeInstanceOf(ConditionalCheckFailedException);
  return error as ConditionalCheckFailedException;
}

describe('PutItem', () => {
  it('ReturnValues ALL_OLD returns the replaced item, nothing for a new one', () => {
    const first = { ...key('a', 1), v: { S: 'one' }, b: { B: new Uint8Array([1, 2, 3]) } };
    expect(db.putItem({ TableName: 'Items', Item: first, ReturnValues: 'ALL_OLD' })).toEqual({});
    const second = db.putItem({ TableName: 'Items', Item: { ...key('a', 1), v: { S: 'two' } }, ReturnValues: 'ALL_OLD' });
    expect(second).toEqual({ Attributes: { ...key('a', 1), v: { S: 'one' }, b: { B: 'AQID' } } });
    expect(db.putItem({ TableName: 'Items', Item: { ...key('a', 1), v: { S: 'three' } } })).toEqual({});
    expect(db.getItem({ TableName: 'Items', Key: key('a', 1) }).Item).toEqual({ ...key('a', 1), v: { S: 'three' } });
  });

  it('a failed condition throws, carries Item only with ALL_OLD, and writes nothing', () => {
    const stored = { ...key('a', 1), v: { N: '1' } };
    db.putItem({ TableName: 'Items', Item: stored });
    const replacement = { TableName: 'Items', Item: { ...key('a', 1), v: { N: '2' } }, ConditionExpression: 'attribute_not_exists(pk)' };
    expect(conditionFailure(() => db.putItem(replacement)).Item).toBeUndefined();
    expect(conditionFailure(() => db.putItem({ ...replacement, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).Item).toEqual(stored);
    expect(db.getItem({ TableName: 'Items', Key: key('a', 1) }).Item).toEqual(stored);
    // The same condition on an absent item passes.
    db.putItem({ ...replacement, Item: { ...key('a', 2), v: { N: '2' } } });
    expect(db.getItem({ TableName: 'Items', Key: key('a', 2) }).Item).toEqual({ ...key('a', 2), v: { N: '2' } });
  });
});

describe('DeleteItem', () => {
  it('a failed condition throws with the stored item under ALL_OLD and deletes nothing', () => {
    const stored = { ...key('a', 1), v: { N: '1' } };
    db.putItem({ TableName: 'Items', Item: stored });
    const request = { TableName: 'Items', Key: key('a', 1), ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': { N: '2' } } };
    expect(conditionFailure(() => db.deleteItem({ ...request, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).Item).toEqual(stored);
    expect(db.getItem({ TableName: 'Items', Key: key('a', 1) }).Item).toEqual(stored);
    expect(db.deleteItem({ ...request, ExpressionAttributeValues: { ':v': { N: '1.0' } }, ReturnValues: 'ALL_OLD' })).toEqual({ Attributes: stored });
    expect(db.getItem({ TableName: 'Items', Key: key('a', 1) })).toEqual({});
  });

  it('deleting an absent item succeeds, returns nothing and costs one write unit', () => {
    expect(db.deleteItem({ TableName: 'Items', Key: key('none', 1) })).toEqual({});
    expect(db.deleteItem({ TableName: 'Items', Key: key('none', 1), ReturnValues: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL' })).toEqual({
      ConsumedCapacity: { TableName: 'Items', CapacityUnits: 1 },
    });
    // A condition on an absent item sees no attributes; with ALL_OLD there is no Item to carry.
    const failure = conditionFailure(() =>
      db.deleteItem({ TableName: 'Items', Key: key('none', 1), ConditionExpression: 'attribute_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    expect(failure.Item).toBeUndefined();
    expect(db.describeTable({ TableName: 'Items' }).Table.ItemCount).toBe(0);
  });
});

describe('UpdateItem', () => {
  const stored = { ...key('u', 1), a: { N: '1' }, m: { M: { c: { S: 'x' }, d: { S: 'y' } } }, n: { N: '5' }, gone: { S: 'z' } };
  const update = {
    TableName: 'Items',
    Key: key('u', 1),
    UpdateExpression: 'SET a = :a, m.c = :c REMOVE gone ADD n :one',
    ExpressionAttributeValues: { ':a': { N: '2' }, ':c': { S: 'X' }, ':one': { N: '1' } },
  };
  const after = { ...key('u', 1), a: { N: '2' }, m: { M: { c: { S: 'X' }, d: { S: 'y' } } }, n: { N: '6' } };

  it.each([
    ['NONE', undefined],
    ['ALL_OLD', stored],
    ['ALL_NEW', after],
    ['UPDATED_OLD', { a: { N: '1' }, m: { M: { c: { S: 'x' } } }, n: { N: '5' }, gone: { S: 'z' } }],
    ['UPDATED_NEW', { a: { N: '2' }, m: { M: { c: { S: 'X' } } }, n: { N: '6' } }],
  ])('ReturnValues %s', (mode, expected) => {
    db.putItem({ TableName: 'Items', Item: stored });
    const result = db.updateItem({ ...update, ReturnValues: mode as ReturnValue });
    expect(result).toEqual(expected ? { Attributes: expected } : {});
    expect(db.getItem({ TableName: 'Items', Key: key('u', 1), ConsistentRead: true }).Item).toEqual(after);
  });

  it('creates the item when absent (upsert); ALL_OLD then returns nothing', () => {
    expect(db.updateItem({ ...update, UpdateExpression: 'SET a = :a ADD n :one', ExpressionAttributeValues: { ':a': { N: '2' }, ':one': { N: '1' } }, ReturnValues: 'ALL_OLD' })).toEqual({});
    expect(db.getItem({ TableName: 'Items', Key: key('u', 1) }).Item).toEqual({ ...key('u', 1), a: { N: '2' }, n: { N: '1' } });
    // No UpdateExpression at all still creates the bare key.
    expect(db.updateItem({ TableName: 'Items', Key: key('u', 2), ReturnValues: 'ALL_NEW' })).toEqual({ Attributes: key('u', 2) });
    expect(db.describeTable({ TableName: 'Items' }).Table.ItemCount).toBe(2);
  });

  it('a failed condition carries the stored item under ALL_OLD and changes nothing', () => {
    db.putItem({ TableName: 'Items', Item: stored });
    const failure = conditionFailure(() =>
      db.updateItem({ ...update, ConditionExpression: 'a > :a', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    expect(failure.Item).toEqual(stored);
    expect(db.getItem({ TableName: 'Items', Key: key('u', 1) }).Item).toEqual(stored);
  });

  it('the condition sees the item before the upsert: attribute_exists on an absent key creates nothing', () => {
    conditionFailure(() => db.updateItem({ ...update, ConditionExpression: 'attribute_exists(pk)' }));
    expect(db.getItem({ TableName: 'Items', Key: key('u', 1) })).toEqual({});
    expect(db.describeTable({ TableName: 'Items' }).Table.ItemCount).toBe(0);
  });
});

describe('reads', () => {
  it('GetItem with a ProjectionExpression returns only the named paths', () => {
    db.putItem({
      TableName: 'Items',
      Item: { ...key('g', 1), a: { S: 'A' }, m: { M: { c: { S: 'C' }, d: { N: '4' } } }, l: { L: [{ S: 'l0' }, { B: 'AQ==' }, { S: 'l2' }] }, other: { S: 'no' } },
    });
    const result = db.getItem({ TableName: 'Items', Key: key('g', 1), ProjectionExpression: 'a, m.d, #l[1], nothere', ExpressionAttributeNames: { '#l': 'l' } });
    expect(result).toEqual({ Item: { a: { S: 'A' }, m: { M: { d: { N: '4' } } }, l: { L: [{ B: 'AQ==' }] } } });
  });

  it('BatchGetItem across two tables with a projection; absent keys are simply missing', () => {
    for (let i = 0; i < 5; i++) db.putItem({ TableName: 'Items', Item: { ...key('b', i), v: { N: String(i) }, w: { S: 'w' } } });
    db.putItem({ TableName: 'Simple', Item: { id: { S: 's1' }, x: { S: 'X' }, y: { BOOL: true } } });
    const result = db.batchGetItem({
      RequestItems: {
        Items: { Keys: [key('b', 1), key('b', 3), key('b', 99)], ProjectionExpression: 'sk, v' },
        Simple: { Keys: [{ id: { S: 's1' } }, { id: { S: 'absent' } }], ConsistentRead: true },
      },
      ReturnConsumedCapacity: 'TOTAL',
    });
    expect(result.UnprocessedKeys).toEqual({});
    const byV = (a: Record<string, unknown>, b: Record<string, unknown>) => Number((a.v as { N: string }).N) - Number((b.v as { N: string }).N);
    expect([...result.Responses.Items!].sort(byV)).toEqual([
      { sk: { N: '1' }, v: { N: '1' } },
      { sk: { N: '3' }, v: { N: '3' } },
    ]);
    expect(result.Responses.Simple).toEqual([{ id: { S: 's1' }, x: { S: 'X' }, y: { BOOL: true } }]);
    // Each key is charged as a GetItem, absent ones at the minimum (spec §5.2).
    expect(result.ConsumedCapacity).toEqual([
      { TableName: 'Items', CapacityUnits: 1.5 },
      { TableName: 'Simple', CapacityUnits: 2 },
    ]);
  });
});

describe('BatchGetItem past the 16 MB response cap', () => {
  it('returns 52 of 100 items of 300 KB (the documented example, spec §6.5) and the rest in UnprocessedKeys, shaped like RequestItems; nothing is lost', () => {
    const ITEM_BYTES = 300 * 1024;
    const ids = Array.from({ length: 100 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    for (let i = 0; i < ids.length; i += 25) {
      const requests = ids.slice(i, i + 25).map((id) => ({ PutRequest: { Item: { id: { S: id }, d: { B: new Uint8Array(ITEM_BYTES - 2 - id.length - 1).fill(7) } } } }));
      db.batchWriteItem({ RequestItems: { Simple: requests } });
    }
    const request = { Keys: ids.map((id) => ({ id: { S: id } })), ProjectionExpression: 'id' };
    const first = db.batchGetItem({ RequestItems: { Simple: request }, ReturnConsumedCapacity: 'TOTAL' });
    const returned = first.Responses.Simple!.map((i) => (i.id as { S: string }).S);
    const unprocessed = first.UnprocessedKeys as Record<string, { Keys: { id: { S: string } }[]; ProjectionExpression?: string }>;
    // The item that would cross the cap is not returned: it leads UnprocessedKeys.
    expect(returned).toEqual(ids.slice(0, 52));
    // Only the returned items are charged: 75 units of 4 KB each, halved for eventual consistency.
    expect(first.ConsumedCapacity).toEqual([{ TableName: 'Simple', CapacityUnits: 52 * 37.5 }]);
    expect(Object.keys(unprocessed)).toEqual(['Simple']);
    expect(unprocessed.Simple!.ProjectionExpression).toBe('id');
    const rest = unprocessed.Simple!.Keys.map((k) => k.id.S);
    expect([...returned, ...rest].sort()).toEqual(ids);
    const second = db.batchGetItem({ RequestItems: unprocessed });
    expect(second.UnprocessedKeys).toEqual({});
    expect(second.Responses.Simple!.map((i) => (i.id as { S: string }).S).sort()).toEqual(rest.sort());
  });
});

describe('ConsumedCapacity (TOTAL)', () => {
  /** An item of exactly `size` bytes in table Simple: 'id' (2) + 'k' (1) + 'p' (1) + padding. */
  const sized = (k: string, size: number) => ({ id: { S: k }, p: { S: 'x'.repeat(size - 2 - k.length - 1) } });

  it('GetItem: 4,096 bytes = 1 unit strong, 0.5 eventual; 4,097 = 2 and 1; absent = minimum', () => {
    db.putItem({ TableName: 'Simple', Item: sized('a', 4096) });
    db.putItem({ TableName: 'Simple', Item: sized('b', 4097) });
    const read = (id: string, ConsistentRead: boolean) =>
      db.getItem({ TableName: 'Simple', Key: { id: { S: id } }, ConsistentRead, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity;
    expect(read('a', true)).toEqual({ TableName: 'Simple', CapacityUnits: 1 });
    expect(read('a', false)).toEqual({ TableName: 'Simple', CapacityUnits: 0.5 });
    expect(read('b', true)).toEqual({ TableName: 'Simple', CapacityUnits: 2 });
    expect(read('b', false)).toEqual({ TableName: 'Simple', CapacityUnits: 1 });
    expect(read('none', true)).toEqual({ TableName: 'Simple', CapacityUnits: 1 });
    expect(read('none', false)).toEqual({ TableName: 'Simple', CapacityUnits: 0.5 });
    // A projection does not lower the cost.
    expect(db.getItem({ TableName: 'Simple', Key: { id: { S: 'b' } }, ProjectionExpression: 'id', ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual({
      TableName: 'Simple',
      CapacityUnits: 1,
    });
  });

  it('PutItem: 1,024 bytes = 1 unit, 1,025 = 2; a replacement costs max(old, new)', () => {
    const put = (item: Item) => db.putItem({ TableName: 'Simple', Item: item, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity;
    expect(put(sized('a', 1024))).toEqual({ TableName: 'Simple', CapacityUnits: 1 });
    expect(put(sized('b', 1025))).toEqual({ TableName: 'Simple', CapacityUnits: 2 });
    expect(put(sized('b', 10))).toEqual({ TableName: 'Simple', CapacityUnits: 2 });
    expect(put(sized('b', 3000))).toEqual({ TableName: 'Simple', CapacityUnits: 3 });
    expect(db.putItem({ TableName: 'Simple', Item: sized('c', 10) })).toEqual({});
    expect(db.putItem({ TableName: 'Simple', Item: sized('c', 10), ReturnConsumedCapacity: 'INDEXES' }).ConsumedCapacity).toEqual({
      TableName: 'Simple',
      CapacityUnits: 1,
      Table: { CapacityUnits: 1 },
    });
  });

  it('UpdateItem and DeleteItem are sized on the larger image', () => {
    db.putItem({ TableName: 'Simple', Item: sized('a', 2048) });
    const updated = db.updateItem({ TableName: 'Simple', Key: { id: { S: 'a' } }, UpdateExpression: 'REMOVE p', ReturnConsumedCapacity: 'TOTAL' });
    expect(updated.ConsumedCapacity).toEqual({ TableName: 'Simple', CapacityUnits: 2 });
    db.putItem({ TableName: 'Simple', Item: sized('a', 1500) });
    expect(db.deleteItem({ TableName: 'Simple', Key: { id: { S: 'a' } }, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual({
      TableName: 'Simple',
      CapacityUnits: 2,
    });
  });
});

describe('binary values and key lengths', () => {
  it('binary attributes go in as Uint8Array and come back as base64', () => {
    const bytes = Uint8Array.from([0, 1, 2, 0x7f, 0x80, 0xfe, 0xff]);
    const item = {
      ...key('bin', 1),
      b: { B: bytes },
      empty: { B: new Uint8Array(0) },
      bs: { BS: [Uint8Array.from([1]), 'Ag=='] },
      nested: { M: { inner: { L: [{ B: Uint8Array.from([9, 9]) }] } } },
    };
    db.putItem({ TableName: 'Items', Item: item });
    expect(db.getItem({ TableName: 'Items', Key: key('bin', 1) }).Item).toEqual({
      ...key('bin', 1),
      b: { B: Buffer.from(bytes).toString('base64') },
      empty: { B: '' },
      bs: { BS: expect.arrayContaining(['AQ==', 'Ag==']) },
      nested: { M: { inner: { L: [{ B: 'CQk=' }] } } },
    });
    // Binary keys: written as bytes, found again by their base64 form.
    db.createTable(tableRequest('Blobs', ['k', 'B'], ['s', 'B']));
    db.putItem({ TableName: 'Blobs', Item: { k: { B: bytes }, s: { B: Uint8Array.from([0]) }, v: { S: 'found' } } });
    const found = db.getItem({ TableName: 'Blobs', Key: { k: { B: Buffer.from(bytes).toString('base64') }, s: { B: 'AA==' } } });
    expect(found.Item).toEqual({ k: { B: 'AAECf4D+/w==' }, s: { B: 'AA==' }, v: { S: 'found' } });
  });

  it('a 2,048-byte partition key works for every operation', () => {
    const long = 'é'.repeat(1024); // 2,048 UTF-8 bytes
    const asciiLong = 'k'.repeat(2048);
    for (const pk of [long, asciiLong]) {
      db.putItem({ TableName: 'Items', Item: { pk: { S: pk }, sk: { N: '1' }, v: { S: 'one' } } });
      db.putItem({ TableName: 'Items', Item: { pk: { S: pk }, sk: { N: '2' }, v: { S: 'two' } } });
      expect(db.getItem({ TableName: 'Items', Key: { pk: { S: pk }, sk: { N: '2' } } }).Item).toEqual({ pk: { S: pk }, sk: { N: '2' }, v: { S: 'two' } });
      const page = db.query({ TableName: 'Items', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: pk } } });
      expect(page.Items!.map((i) => (i.v as { S: string }).S)).toEqual(['one', 'two']);
    }
    db.deleteItem({ TableName: 'Items', Key: { pk: { S: long }, sk: { N: '1' } } });
    expect(db.scan({ TableName: 'Items' }).Count).toBe(3);
    // Two long keys sharing their first 2,047 bytes are different items.
    db.putItem({ TableName: 'Simple', Item: { id: { S: 'k'.repeat(2047) + 'a' } } });
    db.putItem({ TableName: 'Simple', Item: { id: { S: 'k'.repeat(2047) + 'b' } } });
    expect(db.scan({ TableName: 'Simple' }).Count).toBe(2);
  });

  it('keys up to DynamoDB\'s limits (2,048-byte partition, 1,024-byte sort key) work in every item operation', () => {
    const longSort = '\u0000'.repeat(1024); // 1,024 bytes; its order-preserving encoding is 2,050
    const longPartition = 'p'.repeat(2048);
    db.createTable(tableRequest('Sorted', ['pk', 'S'], ['sk', 'S']));
    const key = { pk: { S: longPartition }, sk: { S: longSort } };
    db.putItem({ TableName: 'Sorted', Item: { ...key, v: { S: 'put' } } });
    expect(db.getItem({ TableName: 'Sorted', Key: key }).Item).toEqual({ ...key, v: { S: 'put' } });
    db.updateItem({ TableName: 'Sorted', Key: key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'updated' } } });
    db.batchWriteItem({ RequestItems: { Sorted: [{ PutRequest: { Item: { pk: { S: longPartition }, sk: { S: longSort.slice(1) + 'a' } } } }] } });
    expect(db.batchGetItem({ RequestItems: { Sorted: { Keys: [key] } } }).Responses).toEqual({ Sorted: [{ ...key, v: { S: 'updated' } }] });
    const query = (condition: string, forward = true) =>
      (db.query({ TableName: 'Sorted', KeyConditionExpression: `pk = :p AND ${condition}`, ScanIndexForward: forward, ExpressionAttributeValues: { ':p': { S: longPartition }, ':s': { S: longSort } } }).Items ?? []).map((i) => (i as { sk: { S: string } }).sk.S.length);
    expect(query('sk <= :s')).toEqual([1024]);
    expect(query('sk >= :s')).toEqual([1024, 1024]);
    expect(query('sk >= :s', false)).toEqual([1024, 1024]);
    expect(query('sk > :s')).toEqual([1024]);
    db.deleteItem({ TableName: 'Sorted', Key: key });
    expect(db.scan({ TableName: 'Sorted' }).Count).toBe(1);
    // Over DynamoDB's own limits, DynamoDB's own messages.
    expectError(
      () => db.putItem({ TableName: 'Sorted', Item: { pk: { S: 'a' }, sk: { S: 's'.repeat(1025) } } }),
      'ValidationException',
      'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
    );
    expectError(
      () => db.putItem({ TableName: 'Sorted', Item: { pk: { S: 'p'.repeat(2049) }, sk: { S: 's' } } }),
      'ValidationException',
      'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes',
    );
    expect(db.scan({ TableName: 'Sorted' }).Count).toBe(1);
  });
});
