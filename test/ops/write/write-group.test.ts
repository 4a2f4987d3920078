import { describe, expect, it } from 'vitest';
import { executeWriteGroup, executeWriteGroupAsync, type GroupedRequest } from '../../../src/ops/write/write-group.js';
import { FaultInjector } from '../../../src/storage/fault-injector.js';
import { StorageError } from '../../../src/storage/storage-error.js';
import { tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();

const put = (id: string, extra: Record<string, unknown> = {}): GroupedRequest => ({
  operation: 'PutItem',
  request: { TableName: 'Tab', Item: { id: { S: id }, v: { N: '1' } }, ...extra },
});

describe('executeWriteGroup', () => {
  it('runs every request in one commit, each with its own response or error', () => {
    const db = temp.open();
    db.createTable(tableRequest('Tab', ['id', 'S']));
    const commits = db.store.stats().commits;
    const results = executeWriteGroup(db.context, [
      put('a'),
      // sees the put before it in the list: the condition fails
      put('a', { ConditionExpression: 'attribute_not_exists(id)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
      { operation: 'UpdateItem', request: { TableName: 'Tab', Key: { id: { S: 'a' } }, UpdateExpression: 'ADD v :one', ExpressionAttributeValues: { ':one': { N: '2' } }, ReturnValues: 'ALL_NEW' } },
      { operation: 'BatchWriteItem', request: { RequestItems: { Tab: [{ PutRequest: { Item: { id: { S: 'b' } } } }, { PutRequest: { Item: { id: { S: 'c' } } } }] } } },
      { operation: 'DeleteItem', request: { TableName: 'Tab', Key: { id: { S: 'c' } }, ReturnValues: 'ALL_OLD' } },
      { operation: 'PutItem', request: { TableName: 'Missing', Item: { id: { S: 'x' } } } },
      {
        operation: 'TransactWriteItems',
        request: { TransactItems: [{ ConditionCheck: { TableName: 'Tab', Key: { id: { S: 'c' } }, ConditionExpression: 'attribute_exists(id)' } }, { Put: { TableName: 'Tab', Item: { id: { S: 'd' } } } }] },
      },
    ]);
    expect(db.store.stats().commits - commits).toBe(1);
    expect(results.map((r) => (r.ok ? 'ok' : (r.error as Error).name))).toEqual([
      'ok',
      'ConditionalCheckFailedException',
      'ok',
      'ok',
      'ok',
      'ResourceNotFoundException',
      'TransactionCanceledException',
    ]);
    const failed = results[1] as { ok: false; error: { Item?: unknown } };
    expect(failed.error.Item).toEqual({ id: { S: 'a' }, v: { N: '1' } });
    expect(results[2]).toEqual({ ok: true, response: { Attributes: { id: { S: 'a' }, v: { N: '3' } } } });
    expect(results[4]).toEqual({ ok: true, response: { Attributes: { id: { S: 'c' } } } });
    const ids = (db.scan({ TableName: 'Tab' }).Items as { id: { S: string } }[]).map((i) => i.id.S).sort();
    expect(ids).toEqual(['a', 'b']);
  });

  it('a storage fault aborts the group: every request reports it and nothing is written', () => {
    const faults = new FaultInjector();
    const db = temp.open({ faults });
    db.createTable(tableRequest('Tab', ['id', 'S']));
    faults.failCommitAt = faults.commits + 1;
    const results = executeWriteGroup(db.context, [put('a'), put('b')]);
    expect(results.every((r) => !r.ok && r.error instanceof StorageError && r.error.code === 'IO')).toBe(true);
    expect(db.scan({ TableName: 'Tab' }).Count).toBe(0);
    // the store is usable afterwards
    expect(executeWriteGroup(db.context, [put('a')])).toEqual([{ ok: true, response: {} }]);
  });

  /** A group whose first request fails its condition and whose third is invalid, beside two good puts. */
  const mixedGroup = (): GroupedRequest[] => [
    put('a', { ConditionExpression: 'attribute_exists(id)' }),
    put('b'),
    { operation: 'UpdateItem', request: { TableName: 'Tab', Key: { id: { S: 'b' } }, UpdateExpression: 'SET v = :missing' } },
    put('c'),
  ];
  const outcomes = (results: readonly { ok: boolean; error?: unknown }[]): string[] =>
    results.map((r) => (r.ok ? 'ok' : r.error instanceof StorageError ? `StorageError ${r.error.code}` : (r.error as Error).name));

  it.each([
    ['sync', 'commit'],
    ['log', 'commit'],
    ['log', 'log flush'],
  ] as const)("a storage fault in the group's commit (durability '%s', at the %s) fails the requests that would have written; a request's own conditional-check or validation failure stays itself", (durability, at) => {
    const faults = new FaultInjector();
    const db = temp.open({ faults, durability });
    db.createTable(tableRequest('Tab', ['id', 'S']));
    if (at === 'commit') faults.failCommitAt = faults.commits + 1;
    else faults.failLogFlushAt = faults.logFlushes + 1;
    expect(outcomes(executeWriteGroup(db.context, mixedGroup()))).toEqual(['ConditionalCheckFailedException', 'StorageError IO', 'ValidationException', 'StorageError IO']);
    expect(db.scan({ TableName: 'Tab' }).Count).toBe(0);
  });

  it.each(['sync', 'log'] as const)("the same through db.promises' group commit (durability '%s')", async (durability) => {
    const faults = new FaultInjector();
    const db = temp.open({ faults, durability });
    db.createTable(tableRequest('Tab', ['id', 'S']));
    if (durability === 'log') faults.failLogFlushAt = faults.logFlushes + 1;
    else faults.failCommitAt = faults.commits + 1;
    expect(outcomes(await executeWriteGroupAsync(db.context, mixedGroup()))).toEqual(['ConditionalCheckFailedException', 'StorageError IO', 'ValidationException', 'StorageError IO']);
    expect(db.scan({ TableName: 'Tab' }).Count).toBe(0);
    expect(outcomes(await executeWriteGroupAsync(db.context, mixedGroup()))).toEqual(['ConditionalCheckFailedException', 'ok', 'ValidationException', 'ok']);
  });

  it('refuses operations that are not item writes before running any', () => {
    const db = temp.open();
    db.createTable(tableRequest('Tab', ['id', 'S']));
    expect(() => executeWriteGroup(db.context, [put('a'), { operation: 'GetItem' as 'PutItem', request: {} }])).toThrow(RangeError);
    expect(db.scan({ TableName: 'Tab' }).Count).toBe(0);
    expect(executeWriteGroup(db.context, [])).toEqual([]);
  });
});
