/**
 * TransactWriteItems as a specification: all or nothing, cancellation reasons in request order,
 * request-detectable errors at the top level, ClientRequestToken idempotency on an injected clock,
 * and the transactional ConsumedCapacity shapes.
 */
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { TransactionCanceledException } from '../../../src/model/errors.js';
import { CLIENT_REQUEST_TOKEN_TTL_MS } from '../../../src/model/limits.js';
import type { EngineContext } from '../../../src/ops/engine-context.js';
import { IDEMPOTENT_MISMATCH_MESSAGE } from '../../../src/ops/transact/transact-client-tokens.js';
import { transactWriteItems } from '../../../src/ops/transact/transact-write-items.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';
import type { AttributeValue, Key } from '../../../src/api/shapes.js';

const temp = useTempDbs();

type Clock = { ms: number };

function setup(path?: string): { db: Edgetable; ctx: EngineContext; clock: Clock } {
  const clock = { ms: 1_700_000_000_000 };
  const db = temp.open({ ...(path ? { path } : {}), now: () => clock.ms });
  const ctx: EngineContext = db.context;
  if (!ctx.catalog.find('Tbl')) {
    db.createTable(tableRequest('Tbl', ['pk', 'S']));
    db.createTable(tableRequest('Uvw', ['id', 'N'], ['sk', 'S']));
  }
  return { db, ctx, clock };
}

const get = (db: Edgetable, table: string, key: Key) => db.getItem({ TableName: table, Key: key, ConsistentRead: true }).Item;

function canceled(fn: () => unknown): TransactionCanceledException {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TransactionCanceledException);
    return e as TransactionCanceledException;
  }
  throw new Error('expected TransactionCanceledException');
}

describe('TransactWriteItems: all or nothing', () => {
  it('applies a mix of Put, Update, Delete and ConditionCheck atomically', () => {
    const { db, ctx } = setup();
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'acct' }, balance: { N: '10' } } });
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'gone' }, x: { S: 'y' } } });
    db.putItem({ TableName: 'Uvw', Item: { id: { N: '1' }, sk: { S: 'a' }, open: { BOOL: true } } });
    const out = transactWriteItems(ctx, {
      TransactItems: [
        { Put: { TableName: 'Tbl', Item: { pk: { S: 'new' }, v: { N: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: 'Tbl', Key: { pk: { S: 'acct' } }, UpdateExpression: 'SET balance = balance - :d', ConditionExpression: 'balance >= :d', ExpressionAttributeValues: { ':d': { N: '4' } } } },
        { Delete: { TableName: 'Tbl', Key: { pk: { S: 'gone' } } } },
        { ConditionCheck: { TableName: 'Uvw', Key: { id: { N: '1' }, sk: { S: 'a' } }, ConditionExpression: '#o = :t', ExpressionAttributeNames: { '#o': 'open' }, ExpressionAttributeValues: { ':t': { BOOL: true } } } },
      ],
    });
    expect(out).toEqual({});
    expect(get(db, 'Tbl', { pk: { S: 'new' } })).toEqual({ pk: { S: 'new' }, v: { N: '1' } });
    expect(get(db, 'Tbl', { pk: { S: 'acct' } })).toEqual({ pk: { S: 'acct' }, balance: { N: '6' } });
    expect(get(db, 'Tbl', { pk: { S: 'gone' } })).toBeUndefined();
    expect(get(db, 'Uvw', { id: { N: '1' }, sk: { S: 'a' } })).toEqual({ id: { N: '1' }, sk: { S: 'a' }, open: { BOOL: true } });
  });

  it('a failing ConditionCheck cancels every action: nothing written, one reason per action in order', () => {
    const { db, ctx } = setup();
    const stored = { pk: { S: 'lock' }, holder: { S: 'bob' } };
    db.putItem({ TableName: 'Tbl', Item: stored });
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'keep' } } });
    const error = canceled(() =>
      transactWriteItems(ctx, {
        TransactItems: [
          { Put: { TableName: 'Tbl', Item: { pk: { S: 'a' } } } },
          { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'lock' } }, ConditionExpression: 'holder = :me', ExpressionAttributeValues: { ':me': { S: 'ann' } }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
          { Delete: { TableName: 'Tbl', Key: { pk: { S: 'keep' } } } },
          { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'absent' } }, ConditionExpression: 'attribute_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
        ],
      }),
    );
    expect(error.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, None, ConditionalCheckFailed]');
    expect(error.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: stored },
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
    ]);
    expect(get(db, 'Tbl', { pk: { S: 'a' } })).toBeUndefined();
    expect(get(db, 'Tbl', { pk: { S: 'keep' } })).toEqual({ pk: { S: 'keep' } });
  });

  it.each([
    ['an operand of the wrong type', 'SET n = n + :one', { ':one': { N: '1' } }, 'An operand in the update expression has an incorrect data type'],
    ['a missing attribute', 'SET m = absent + :one', { ':one': { N: '1' } }, 'The provided expression refers to an attribute that does not exist in the item'],
    ['an item grown past 400 KB', 'SET big = :big', { ':big': { S: 'x'.repeat(400 * 1024) } }, 'Item size to update has exceeded the maximum allowed size'],
  ])('data-dependent update errors cancel with ValidationError: %s', (_name, expression, values, message) => {
    const { db, ctx } = setup();
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'k' }, n: { S: 'text' } } });
    const error = canceled(() =>
      transactWriteItems(ctx, {
        TransactItems: [
          { Update: { TableName: 'Tbl', Key: { pk: { S: 'k' } }, UpdateExpression: expression, ExpressionAttributeValues: values } },
          { Put: { TableName: 'Tbl', Item: { pk: { S: 'other' } } } },
        ],
      }),
    );
    expect(error.CancellationReasons).toEqual([{ Code: 'ValidationError', Message: message }, { Code: 'None' }]);
    expect(get(db, 'Tbl', { pk: { S: 'other' } })).toBeUndefined();
  });

  it.each([
    ['a scalar of another type', { N: '5' }, 'N'],
    ['a list', { L: [{ S: 'x' }] }, 'L'],
  ])('a Put item key attribute of the wrong type cancels with ValidationError: %s', (_name, value, actual) => {
    const { db, ctx } = setup();
    const error = canceled(() =>
      transactWriteItems(ctx, { TransactItems: [{ Put: { TableName: 'Tbl', Item: { pk: value } } }, { Put: { TableName: 'Tbl', Item: { pk: { S: 'p' } } } }] }),
    );
    expect(error.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError, None]');
    expect(error.CancellationReasons).toEqual([
      { Code: 'ValidationError', Message: `One or more parameter values were invalid: Type mismatch for key pk expected: S actual: ${actual}` },
      { Code: 'None' },
    ]);
    expect(get(db, 'Tbl', { pk: { S: 'p' } })).toBeUndefined();
  });

  it('a lookup Key of the wrong type cancels with ValidationError', () => {
    const { ctx } = setup();
    const error = canceled(() =>
      transactWriteItems(ctx, { TransactItems: [{ Delete: { TableName: 'Tbl', Key: { pk: { N: '1' } } } }, { Put: { TableName: 'Tbl', Item: { pk: { S: 'p' } } } }] }),
    );
    expect(error.CancellationReasons).toEqual([{ Code: 'ValidationError', Message: 'The provided key element does not match the schema' }, { Code: 'None' }]);
  });
});

describe('TransactWriteItems: request-detectable errors are top-level', () => {
  const put = (pk: string) => ({ Put: { TableName: 'Tbl', Item: { pk: { S: pk } } } });
  it.each([
    ['the same item twice', [put('a'), { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'a' } }, ConditionExpression: 'attribute_exists(pk)' } }], 'ValidationException', 'Transaction request cannot include multiple operations on one item'],
    ['two actions in one element', [{ ...put('a'), Delete: { TableName: 'Tbl', Key: { pk: { S: 'a' } } } }], 'ValidationException', 'TransactItems can only contain one of Check, Put, Update or Delete'],
    ['no action in an element', [{}], 'ValidationException', "1 validation error detected: Value '' at 'transactItems' failed to satisfy constraint: TransactWriteRequest should contain Delete or Put or Update or ConditionCheck"],
    ['no action in the second element', [put('a'), {}], 'ValidationException', "1 validation error detected: Value '' at 'transactItems' failed to satisfy constraint: TransactWriteRequest should contain Delete or Put or Update or ConditionCheck"],
    ['an empty list', [], 'ValidationException', "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"],
    ['an oversized Put item', [{ Put: { TableName: 'Tbl', Item: { pk: { S: 'a' }, b: { S: 'x'.repeat(400 * 1024) } } } }], 'ValidationException', 'Item size has exceeded the maximum allowed size'],
    ['an empty key value', [{ Delete: { TableName: 'Tbl', Key: { pk: { S: '' } } } }], 'ValidationException', 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk'],
    ['an empty Put item key value', [{ Put: { TableName: 'Tbl', Item: { pk: { S: '' } } } }], 'ValidationException', 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk'],
    ['a Put item without its key', [{ Put: { TableName: 'Tbl', Item: { other: { S: 'a' } } } }], 'ValidationException', 'One or more parameter values were invalid: Missing the key pk in the item'],
    ['a syntax error beside a wrong-typed Put key', [{ Put: { TableName: 'Tbl', Item: { pk: { N: '5' } }, ConditionExpression: 'attribute_exists(' } }], 'ValidationException', 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("'],
    ['a syntax error', [{ ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'a' } }, ConditionExpression: 'attribute_exists(' } }], 'ValidationException', 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("'],
    ['an update of a key attribute', [{ Update: { TableName: 'Tbl', Key: { pk: { S: 'a' } }, UpdateExpression: 'SET pk = :v', ExpressionAttributeValues: { ':v': { S: 'b' } } } }], 'ValidationException', 'One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key'],
    ['a missing ConditionExpression', [{ ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'a' } } } }], 'ValidationException', "1 validation error detected: Value null at 'transactItems.1.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null"],
    ['an unknown table', [put('a'), { Put: { TableName: 'Nope', Item: { pk: { S: 'a' } } } }], 'ResourceNotFoundException', 'Requested resource not found'],
  ])('%s', (_name, items, name, message) => {
    const { db, ctx } = setup();
    expectError(() => transactWriteItems(ctx, { TransactItems: items }), name, message);
    expect(get(db, 'Tbl', { pk: { S: 'a' } })).toBeUndefined();
  });

  it('rejects 101 actions with the Coral length message', () => {
    const { ctx } = setup();
    const items = Array.from({ length: 101 }, (_, i) => put(`k${i}`));
    const error = expectError(() => transactWriteItems(ctx, { TransactItems: items }), 'ValidationException', expect.any(String) as unknown as string);
    expect(error.message).toMatch(/^1 validation error detected: Value '\[com\.amazonaws\.dynamodb\.v20120810\.TransactWriteItem@[0-9a-f]{8}, /);
    expect(error.message).toMatch(/' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100$/);
    expect(transactWriteItems(ctx, { TransactItems: items.slice(0, 100) })).toEqual({});
  });

  it('lists a too long ClientRequestToken before an unknown ReturnConsumedCapacity', () => {
    const { ctx } = setup();
    expectError(
      () => transactWriteItems(ctx, { TransactItems: [put('a')], ClientRequestToken: 'x'.repeat(37), ReturnConsumedCapacity: 'BOGUS' }),
      'ValidationException',
      `2 validation errors detected: Value '${'x'.repeat(37)}' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36; ` +
        "Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
    );
  });

  it('checks the ClientRequestToken length', () => {
    const { ctx } = setup();
    expectError(
      () => transactWriteItems(ctx, { TransactItems: [put('a')], ClientRequestToken: 'x'.repeat(37) }),
      'ValidationException',
      `1 validation error detected: Value '${'x'.repeat(37)}' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36`,
    );
  });
});

describe('TransactWriteItems: the whole request is checked before any table is looked up', () => {
  // Captured against DynamoDB (spec §6.7): actions are checked one by one in request order for
  // what the request alone decides (values, names, expressions); only then are tables resolved.
  const NEST = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
  const nested = (levels: number): AttributeValue => {
    let v: AttributeValue = { S: 'leaf' };
    for (let i = 0; i < levels; i++) v = { M: { n: v } };
    return v;
  };
  const absentPut = (item: Record<string, AttributeValue> = {}) => ({ Put: { TableName: 'Gone', Item: { pk: { S: 'a' }, ...item } } });
  const brokenCheck = { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'c' } }, ConditionExpression: 'attribute_not_exists(' } };
  const unusedCheck = { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'c' } }, ConditionExpression: 'attribute_not_exists(pk)', ExpressionAttributeValues: { ':v': { S: 'x' } } } };
  const SYNTAX_EOF = 'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("';
  const SYNTAX_EQ = 'Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"';
  const UNUSED = 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}';
  it.each([
    ['a malformed condition after a missing table', [absentPut(), brokenCheck], SYNTAX_EOF],
    ['an unused value after a missing table', [absentPut(), unusedCheck], UNUSED],
    ['an unused value before a missing table', [unusedCheck, absentPut()], UNUSED],
    ['an unused value beside a duplicate target', [{ Put: { TableName: 'Tbl', Item: { pk: { S: 'c' } } } }, unusedCheck], UNUSED],
    ['a Put item nested 40 levels before a later empty attribute name', [absentPut({ d: nested(40) }), absentPut({ '': { S: 'x' } })], NEST],
    ['an empty attribute name before a later Put item nested 100 levels', [absentPut({ '': { S: 'x' } }), absentPut({ d: nested(100) })], 'Empty attribute name'],
    ['a top-level empty attribute name written after a value nested 100 levels in the same item', [absentPut({ d: nested(100), '': { S: 'x' } })], 'Empty attribute name'],
    ['a value nested 40 levels before an empty map key in the same item', [absentPut({ m: { M: { '': { S: 'x' } } }, d: nested(40) })], NEST],
    ['a Delete key nested 40 levels before a later syntax error', [{ Delete: { TableName: 'Gone', Key: { pk: nested(40) } } }, { Put: { TableName: 'Gone', Item: { pk: { S: 'a' } }, ConditionExpression: 'a = = b' } }], NEST],
    ['a syntax error before a later Delete key nested 100 levels', [{ Put: { TableName: 'Gone', Item: { pk: { S: 'a' } }, ConditionExpression: 'a = = b' } }, { Delete: { TableName: 'Gone', Key: { pk: nested(100) } } }], SYNTAX_EQ],
    ['a syntax error before the same Delete key nested 100 levels', [{ Delete: { TableName: 'Gone', Key: { pk: nested(100) }, ConditionExpression: 'a = = b' } }], SYNTAX_EQ],
    [
      'a ConditionCheck value nested 40 levels before a later empty attribute name',
      [{ ConditionCheck: { TableName: 'Gone', Key: { pk: { S: 'b' } }, ConditionExpression: 'd = :deep', ExpressionAttributeValues: { ':deep': nested(40) } } }, absentPut({ '': { S: 'x' } })],
      `ExpressionAttributeValues contains invalid value: ${NEST} for key :deep`,
    ],
    [
      'an oversized condition before the same Delete key nested 100 levels',
      [{ Delete: { TableName: 'Gone', Key: { pk: nested(100) }, ConditionExpression: 'a = :v' + ' AND a = :v'.repeat(373), ExpressionAttributeValues: { ':v': { S: 'x' } } } }],
      'Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4109',
    ],
    [
      'an oversized UpdateExpression before a later ConditionCheck key nested 100 levels',
      [
        { Update: { TableName: 'Gone', Key: { pk: { S: 'a' } }, UpdateExpression: 'SET ' + Array.from({ length: 500 }, (_, i) => `a${i} = :v`).join(', '), ExpressionAttributeValues: { ':v': { S: 'x' } } } },
        { ConditionCheck: { TableName: 'Gone', Key: { pk: nested(100) }, ConditionExpression: 'attribute_exists(a)' } },
      ],
      'Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;',
    ],
  ])('%s', (_name, items, message) => {
    const { db, ctx } = setup();
    expectError(() => transactWriteItems(ctx, { TransactItems: items }), 'ValidationException', message);
    expect(get(db, 'Tbl', { pk: { S: 'c' } })).toBeUndefined();
  });

  it('reports the missing table when the rest of the request is well formed', () => {
    const { ctx } = setup();
    expectError(() => transactWriteItems(ctx, { TransactItems: [absentPut(), { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'c' } }, ConditionExpression: 'attribute_not_exists(pk)' } }] }), 'ResourceNotFoundException', 'Requested resource not found');
  });
});

describe('TransactWriteItems: ConsumedCapacity', () => {
  it('reports 2 WCU per KB of max(old, new) per action, one element per table in request order', () => {
    const { db, ctx } = setup();
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'big' }, b: { S: 'x'.repeat(1500) } } }); // 2 KB once rounded
    const request = (mode: string) => ({
      ReturnConsumedCapacity: mode,
      TransactItems: [
        { Update: { TableName: 'Uvw', Key: { id: { N: '1' }, sk: { S: 's' } }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { S: mode } } } },
        { Put: { TableName: 'Tbl', Item: { pk: { S: 'big' } } } }, // old item 2 KB -> 4 WCU
        { ConditionCheck: { TableName: 'Tbl', Key: { pk: { S: 'c' } }, ConditionExpression: 'attribute_not_exists(pk)' } }, // absent: 2 WCU
        { Delete: { TableName: 'Tbl', Key: { pk: { S: 'gone' } } } }, // absent: 2 WCU
      ],
    });
    expect(transactWriteItems(ctx, request('TOTAL'))).toEqual({
      ConsumedCapacity: [
        { TableName: 'Uvw', CapacityUnits: 2, WriteCapacityUnits: 2 },
        { TableName: 'Tbl', CapacityUnits: 8, WriteCapacityUnits: 8 },
      ],
    });
    expect(transactWriteItems(ctx, request('INDEXES'))).toEqual({
      ConsumedCapacity: [
        { TableName: 'Uvw', CapacityUnits: 2, WriteCapacityUnits: 2, Table: { CapacityUnits: 2, WriteCapacityUnits: 2 } },
        { TableName: 'Tbl', CapacityUnits: 6, WriteCapacityUnits: 6, Table: { CapacityUnits: 6, WriteCapacityUnits: 6 } },
      ],
    });
    expect(transactWriteItems(ctx, request('NONE'))).toEqual({});
  });
});

describe('TransactWriteItems: ClientRequestToken', () => {
  const increment = (extra: Record<string, unknown> = {}) => ({
    ClientRequestToken: 'tok-1',
    TransactItems: [{ Update: { TableName: 'Tbl', Key: { pk: { S: 'ctr' } }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } } }],
    ...extra,
  });
  const counter = (db: Edgetable) => (get(db, 'Tbl', { pk: { S: 'ctr' } }) as { n: { N: string } } | undefined)?.n.N;

  it('a repeat within 10 minutes succeeds without re-applying; after 10 minutes it applies again', () => {
    const { db, ctx, clock } = setup();
    expect(transactWriteItems(ctx, increment({ ReturnConsumedCapacity: 'TOTAL' }))).toEqual({
      ConsumedCapacity: [{ TableName: 'Tbl', CapacityUnits: 2, WriteCapacityUnits: 2 }],
    });
    clock.ms += CLIENT_REQUEST_TOKEN_TTL_MS - 1;
    // The replay reports a transactional read of the item instead of the write.
    expect(transactWriteItems(ctx, increment({ ReturnConsumedCapacity: 'TOTAL' }))).toEqual({
      ConsumedCapacity: [{ TableName: 'Tbl', CapacityUnits: 2, ReadCapacityUnits: 2 }],
    });
    expect(counter(db)).toBe('1');
    clock.ms += 1;
    transactWriteItems(ctx, increment());
    expect(counter(db)).toBe('2');
    clock.ms += 60_000;
    transactWriteItems(ctx, increment());
    expect(counter(db)).toBe('2');
  });

  it('member order does not make a request different', () => {
    const { db, ctx } = setup();
    transactWriteItems(ctx, increment());
    const reordered = {
      TransactItems: [{ Update: { ExpressionAttributeValues: { ':one': { N: '1' } }, UpdateExpression: 'ADD n :one', Key: { pk: { S: 'ctr' } }, TableName: 'Tbl' } }],
      ClientRequestToken: 'tok-1',
    };
    expect(transactWriteItems(ctx, reordered)).toEqual({});
    expect(counter(db)).toBe('1');
  });

  it('the same token with other parameters is an IdempotentParameterMismatchException', () => {
    const { db, ctx } = setup();
    transactWriteItems(ctx, increment());
    const other = increment();
    (other.TransactItems[0]!.Update.ExpressionAttributeValues[':one'] as { N: string }).N = '2';
    expectError(() => transactWriteItems(ctx, other), 'IdempotentParameterMismatchException', IDEMPOTENT_MISMATCH_MESSAGE);
    expect(counter(db)).toBe('1');
  });

  it('a cancelled transaction does not record its token', () => {
    const { db, ctx } = setup();
    const guarded = (cond: string) => ({
      ClientRequestToken: 'tok-2',
      TransactItems: [{ Put: { TableName: 'Tbl', Item: { pk: { S: 'p' } }, ConditionExpression: cond } }],
    });
    canceled(() => transactWriteItems(ctx, guarded('attribute_exists(pk)')));
    transactWriteItems(ctx, guarded('attribute_not_exists(pk)'));
    expect(get(db, 'Tbl', { pk: { S: 'p' } })).toEqual({ pk: { S: 'p' } });
  });

  it('prunes expired tokens as later transactions commit', () => {
    const { db, ctx, clock } = setup();
    for (let i = 0; i < 5; i++) transactWriteItems(ctx, { ...increment(), ClientRequestToken: `old-${i}` });
    const count = () => db.store.read((txn) => txn.count(db.store.database('_tokens')));
    expect(count()).toBe(10); // a token entry and an expiry entry each
    clock.ms += CLIENT_REQUEST_TOKEN_TTL_MS;
    transactWriteItems(ctx, { ...increment(), ClientRequestToken: 'fresh' });
    expect(count()).toBe(2);
  });

  it('the token survives closing and reopening the store', () => {
    const path = `${temp.dir()}/db`;
    const first = setup(path);
    transactWriteItems(first.ctx, increment());
    first.db.close();
    const second = setup(path);
    second.clock.ms = first.clock.ms + 5 * 60_000;
    expect(transactWriteItems(second.ctx, increment())).toEqual({});
    expect(counter(second.db)).toBe('1');
  });
});

describe('TransactWriteItems on a table with a GSI', () => {
  it('bills index writes unreduced beside the doubled table arm, and cancels an update that breaks an index key', () => {
    const { db, ctx } = setup();
    db.createTable({
      ...tableRequest('Gix', ['pk', 'S']),
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }],
      GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
    });
    const put = { Put: { TableName: 'Gix', Item: { pk: { S: 'a' }, g: { S: 'x' } } } };
    expect(transactWriteItems(ctx, { TransactItems: [put], ReturnConsumedCapacity: 'INDEXES' })).toEqual({
      ConsumedCapacity: [{ TableName: 'Gix', CapacityUnits: 3, WriteCapacityUnits: 3, Table: { CapacityUnits: 2, WriteCapacityUnits: 2 }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 1, WriteCapacityUnits: 1 } } }],
    });
    const error = canceled(() =>
      transactWriteItems(ctx, { TransactItems: [{ Update: { TableName: 'Gix', Key: { pk: { S: 'a' } }, UpdateExpression: 'SET g = :n', ExpressionAttributeValues: { ':n': { N: '1' } } } }] }),
    );
    expect(error.CancellationReasons[0]?.Code).toBe('ValidationError');
    expect(get(db, 'Gix', { pk: { S: 'a' } })).toEqual({ pk: { S: 'a' }, g: { S: 'x' } });
  });
});
