/**
 * db.promises (src/edgetable-promises.ts over src/ops/commit-queue.ts): every operation as a
 * promise; concurrent writes share one commit and one flush, each with its own condition,
 * response and error; a write settles only once flushed; reads answer at once. That a resolved
 * write survives a power cut is proven by test/reliability/power-cut.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/ops/operations.js';
import { FaultInjector } from '../src/storage/fault-injector.js';
import { tableRequest, useTempDbs } from './ops/temp-db.js';

const temp = useTempDbs();
const item = (id: string, v = 0) => ({ id: { S: id }, v: { N: String(v) } });

describe('db.promises', () => {
  it('has every operation as a promise, with the synchronous method’s result', async () => {
    const db = temp.open();
    const names = Object.keys(OPERATIONS).map((n) => n[0]!.toLowerCase() + n.slice(1));
    for (const name of names) expect(typeof (db.promises as unknown as Record<string, unknown>)[name], name).toBe('function');
    await db.promises.createTable(tableRequest('Tab', ['id', 'S']));
    await db.promises.putItem({ TableName: 'Tab', Item: item('a', 1) });
    expect(await db.promises.getItem({ TableName: 'Tab', Key: { id: { S: 'a' } } })).toEqual(db.getItem({ TableName: 'Tab', Key: { id: { S: 'a' } } }));
    expect(await db.promises.scan({ TableName: 'Tab' })).toEqual(db.scan({ TableName: 'Tab' }));
    expect(await db.promises.execute('ListTables', {})).toEqual({ TableNames: ['Tab'] });
  });

  it('groups concurrent writes into shared commits; each keeps its own condition, response and error', async () => {
    const db = temp.open();
    db.createTable(tableRequest('Tab', ['id', 'S']));
    db.putItem({ TableName: 'Tab', Item: item('seed', 7) });
    const commits = db.store.stats().commits;
    const flushes = db.store.flushCount;
    const writes = Array.from({ length: 40 }, (_, i) =>
      i === 5
        ? db.promises.putItem({ TableName: 'Tab', Item: item('seed', 99), ConditionExpression: 'attribute_not_exists(id)' })
        : i === 9
          ? db.promises.putItem({ TableName: 'Tab', Item: { id: { N: '1' } } }) // wrong key type
          : db.promises.putItem({ TableName: 'Tab', Item: item(`k${i}`, i), ReturnValues: 'ALL_OLD' }),
    );
    const settled = await Promise.allSettled(writes);
    settled.forEach((s, i) => {
      if (i === 5) expect(s.status === 'rejected' && (s.reason as Error).name).toBe('ConditionalCheckFailedException');
      else if (i === 9) expect(s.status === 'rejected' && (s.reason as Error).name).toBe('ValidationException');
      else expect(s).toEqual({ status: 'fulfilled', value: {} });
    });
    expect(db.store.stats().commits - commits).toBeLessThan(5);
    expect(db.store.flushCount - flushes).toBeLessThan(10); // two per group, not two per write
    expect(db.promises.stats().largestGroup).toBeGreaterThan(1);
    // committed off the event loop: replayed by a worker, none on the main thread
    expect(db.store.asyncCommitStats.committed).toBeGreaterThan(0);
    expect(db.store.asyncCommitStats.onThisThread).toBe(0);
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'seed' } } }).Item).toEqual(item('seed', 7));
    expect(db.scan({ TableName: 'Tab', Select: 'COUNT' }).Count).toBe(39);
  });

  it('a synchronous write that commits between a group being computed and committed makes the group recompute: no update lost', async () => {
    const faults = new FaultInjector();
    const db = temp.open({ faults });
    db.createTable(tableRequest('Tab', ['id', 'S']));
    db.putItem({ TableName: 'Tab', Item: item('c', 0) });
    let interleaved = 0;
    faults.betweenRecordAndReplay = () => {
      if (interleaved++ < 2) db.updateItem({ TableName: 'Tab', Key: { id: { S: 'c' } }, UpdateExpression: 'ADD v :n', ExpressionAttributeValues: { ':n': { N: '100' } } });
    };
    const adds = Array.from({ length: 20 }, () =>
      db.promises.updateItem({ TableName: 'Tab', Key: { id: { S: 'c' } }, UpdateExpression: 'ADD v :one', ExpressionAttributeValues: { ':one': { N: '1' } }, ReturnValues: 'UPDATED_NEW' }),
    );
    const seen = (await Promise.all(adds)).map((r) => Number((r.Attributes!.v as { N: string }).N));
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'c' } } }).Item).toEqual(item('c', 220));
    expect(new Set(seen).size).toBe(20); // each add saw its own distinct state
    expect(Math.max(...seen)).toBe(220);
    expect(db.store.asyncCommitStats.conflicts).toBe(2);
  });

  it('runs writes in the order they were issued, table operations included', async () => {
    const db = temp.open();
    const create = db.promises.createTable(tableRequest('Ordered', ['id', 'S']));
    const put = db.promises.putItem({ TableName: 'Ordered', Item: item('x', 1) });
    const update = db.promises.updateItem({ TableName: 'Ordered', Key: { id: { S: 'x' } }, UpdateExpression: 'SET v = v + :one', ExpressionAttributeValues: { ':one': { N: '1' } }, ReturnValues: 'UPDATED_NEW' });
    const drop = db.promises.deleteTable({ TableName: 'Ordered' });
    await create;
    await put;
    expect(await update).toEqual({ Attributes: { v: { N: '2' } } });
    await drop;
    expect(db.listTables()).toEqual({ TableNames: [] });
  });

  it('settles a write only after the flushes that make it durable', async () => {
    const db = temp.open();
    db.createTable(tableRequest('Tab', ['id', 'S']));
    const events: string[] = [];
    const flushes = db.store.flushCount;
    // 'sync' durability: the worker's commit flushes the data pages and writes the meta page through LMDB's O_DSYNC descriptor
    db.store.onFlush = (kind) => events.push(`${kind}, committed: ${db.getItem({ TableName: 'Tab', Key: { id: { S: 'a' } } }).Item !== undefined}, flushes: ${db.store.flushCount - flushes}`);
    await db.promises.putItem({ TableName: 'Tab', Item: item('a') }).then(() => events.push('resolved'));
    expect(events).toEqual(['commit, committed: true, flushes: 2', 'resolved']);
  });

  it("'relaxed' durability: settles a write only after sync() flushed the meta page its commit left", async () => {
    const db = temp.open({ durability: 'relaxed', syncIntervalMs: 60_000 });
    db.createTable(tableRequest('Tab', ['id', 'S']));
    const events: string[] = [];
    const sync = db.store.sync.bind(db.store);
    db.store.sync = () => {
      events.push(`flush started, committed: ${db.getItem({ TableName: 'Tab', Key: { id: { S: 'a' } } }).Item !== undefined}`);
      return sync().then(() => void events.push('flush done'));
    };
    await db.promises.putItem({ TableName: 'Tab', Item: item('a') }).then(() => events.push('resolved'));
    expect(events).toEqual(['flush started, committed: true', 'flush done', 'resolved']);
  });

  it('close() commits the writes still queued, durably, and settles them', async () => {
    const db = temp.open();
    db.createTable(tableRequest('Tab', ['id', 'S']));
    const puts = [db.promises.putItem({ TableName: 'Tab', Item: item('q1') }), db.promises.putItem({ TableName: 'Tab', Item: item('q2') })];
    const path = db.store.path;
    db.close();
    await expect(Promise.all(puts)).resolves.toEqual([{}, {}]);
    const again = temp.open({ path });
    expect(again.scan({ TableName: 'Tab', Select: 'COUNT' }).Count).toBe(2);
  });

  it('answers reads at once and rejects a bad read with the synchronous error', async () => {
    const db = temp.open();
    await expect(db.promises.getItem({ TableName: 'Missing', Key: { id: { S: 'a' } } })).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(db.promises.describeTable({ TableName: 'x' })).rejects.toMatchObject({ name: 'ValidationException' });
  });
});
