/**
 * TransactGetItems: responses in request order from one snapshot, projection, absent items as {},
 * 2 RCU per 4 KB per item, and the request rules shared with TransactWriteItems.
 */
import { describe, expect, it } from 'vitest';
import type { EngineContext } from '../../../src/ops/engine-context.js';
import { transactGetItems } from '../../../src/ops/transact/transact-get-items.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();

function setup() {
  const db = temp.open();
  db.createTable(tableRequest('Tbl', ['pk', 'S']));
  db.createTable(tableRequest('Uvw', ['id', 'N'], ['sk', 'S']));
  db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'a' }, n: { N: '1' }, m: { M: { x: { S: 'y' }, z: { N: '2' } } } } });
  db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'big' }, b: { S: 'x'.repeat(5000) } } });
  db.putItem({ TableName: 'Uvw', Item: { id: { N: '7' }, sk: { S: 's' }, v: { BOOL: true } } });
  const ctx: EngineContext = db.context;
  return { db, ctx };
}

const getOf = (TableName: string, Key: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ Get: { TableName, Key, ...extra } });

describe('TransactGetItems', () => {
  it('answers in request order, with {} for absent items and projections that match nothing', () => {
    const { ctx } = setup();
    const out = transactGetItems(ctx, {
      TransactItems: [
        getOf('Uvw', { id: { N: '7' }, sk: { S: 's' } }),
        getOf('Tbl', { pk: { S: 'nope' } }),
        getOf('Tbl', { pk: { S: 'a' } }, { ProjectionExpression: '#m.x, n', ExpressionAttributeNames: { '#m': 'm' } }),
        getOf('Tbl', { pk: { S: 'big' } }, { ProjectionExpression: 'absent' }),
      ],
    });
    expect(out).toEqual({
      Responses: [
        { Item: { id: { N: '7' }, sk: { S: 's' }, v: { BOOL: true } } },
        {},
        { Item: { n: { N: '1' }, m: { M: { x: { S: 'y' } } } } },
        {},
      ],
    });
  });

  it('charges 2 RCU per 4 KB per item (absent items 2), per table in order of appearance', () => {
    const { ctx } = setup();
    const items = [getOf('Tbl', { pk: { S: 'big' } }), getOf('Uvw', { id: { N: '7' }, sk: { S: 's' } }), getOf('Tbl', { pk: { S: 'nope' } })];
    expect(transactGetItems(ctx, { TransactItems: items, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual([
      { TableName: 'Tbl', CapacityUnits: 6, ReadCapacityUnits: 6 },
      { TableName: 'Uvw', CapacityUnits: 2, ReadCapacityUnits: 2 },
    ]);
    expect(transactGetItems(ctx, { TransactItems: items, ReturnConsumedCapacity: 'INDEXES' }).ConsumedCapacity).toEqual([
      { TableName: 'Tbl', CapacityUnits: 6, ReadCapacityUnits: 6, Table: { CapacityUnits: 6, ReadCapacityUnits: 6 } },
      { TableName: 'Uvw', CapacityUnits: 2, ReadCapacityUnits: 2, Table: { CapacityUnits: 2, ReadCapacityUnits: 2 } },
    ]);
    expect(transactGetItems(ctx, { TransactItems: items })).not.toHaveProperty('ConsumedCapacity');
  });

  it.each([
    ['the same item twice', [getOf('Tbl', { pk: { S: 'a' } }), getOf('Tbl', { pk: { S: 'a' } })], 'ValidationException', 'Transaction request cannot include multiple operations on one item'],
    ['an element without Get', [{}], 'ValidationException', "1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null"],
    ['a missing Key', [getOf('Tbl', { pk: { S: 'a' } }), { Get: { TableName: 'Tbl' } }], 'ValidationException', "1 validation error detected: Value null at 'transactItems.2.member.get.key' failed to satisfy constraint: Member must not be null"],
    ['an unknown table', [getOf('Nope', { pk: { S: 'a' } })], 'ResourceNotFoundException', 'Requested resource not found'],
    // The whole request is checked before any table is looked up (as TransactWriteItems; uncaptured here).
    ['a later projection syntax error beside an unknown table', [getOf('Nope', { pk: { S: 'a' } }), getOf('Tbl', { pk: { S: 'a' } }, { ProjectionExpression: 'n,' })], 'ValidationException', 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","'],
    ['a later NULL false key value beside an unknown table', [getOf('Nope', { pk: { S: 'a' } }), getOf('Tbl', { pk: { NULL: false } })], 'ValidationException', 'One or more parameter values were invalid: Null attribute value types must have the value of true'],
    ['a projection syntax error beside a key that does not match the schema', [getOf('Tbl', { pk: { N: '1' } }, { ProjectionExpression: 'n,' })], 'ValidationException', 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","'],
    ['an empty list', [], 'ValidationException', "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"],
  ])('rejects %s', (_name, items, name, message) => {
    const { ctx } = setup();
    expectError(() => transactGetItems(ctx, { TransactItems: items }), name, message);
  });

  it.each([
    ['a key attribute of the wrong type', { pk: { N: '1' } }],
    ['a key missing its attribute', { other: { S: 'a' } }],
    ['a key with an extra attribute', { pk: { S: 'a' }, extra: { S: 'b' } }],
  ])('cancels on %s with a ValidationError reason for that Get, None for the others', (_name, key) => {
    const { ctx } = setup();
    const error = expectError(
      () => transactGetItems(ctx, { TransactItems: [getOf('Tbl', { pk: { S: 'a' } }), getOf('Tbl', key)] }),
      'TransactionCanceledException',
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]',
    ) as Error & { CancellationReasons: unknown[] };
    expect(error.CancellationReasons).toEqual([{ Code: 'None' }, { Code: 'ValidationError', Message: 'The provided key element does not match the schema' }]);
  });

  it('accepts 100 Gets and rejects 101', () => {
    const { ctx } = setup();
    const items = Array.from({ length: 101 }, (_, i) => getOf('Tbl', { pk: { S: `k${i}` } }));
    expect((transactGetItems(ctx, { TransactItems: items.slice(0, 100) }).Responses as unknown[]).length).toBe(100);
    let message = '';
    try {
      transactGetItems(ctx, { TransactItems: items });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^1 validation error detected: Value '\[com\.amazonaws\.dynamodb\.v20120810\.TransactGetItem@/);
    expect(message).toMatch(/Member must have length less than or equal to 100$/);
  });
});
