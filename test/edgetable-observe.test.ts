/**
 * db.observe (src/edgetable.ts, src/observe/): every local write path delivers its committed
 * changes, after commit, in commit order, never for an aborted txn; sync-applied writes carry
 * origin 'sync' and the device; a listener's failure breaks neither the write nor the others;
 * the async iterator unsubscribes when its loop ends.
 */
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../src/edgetable.js';
import type { TableChange } from '../src/index.js';
import type { WireAttributeValue } from '../src/model/attribute-value.js';
import { SYNC_DB } from '../src/partition/database-names.js';
import { applyBatch } from '../src/replication/apply-batch.js';
import { ensureDeadLetterTable } from '../src/replication/dead-letters.js';
import { encodeChangeRecord } from '../src/stream/change-record.js';
import { tableRequest, useTempDbs } from './ops/temp-db.js';

const temp = useTempDbs();

/** Lets queued deliveries (microtasks) and settled promises run. */
const delivered = () => new Promise((resolve) => setImmediate(resolve));

function record(db: Edgetable, table = 'Orders'): TableChange[] {
  const seen: TableChange[] = [];
  db.observe(table, (c) => void seen.push(c));
  return seen;
}

/** A compact view of a change: event, key, new and old values of `v`. */
const brief = (c: TableChange) => [c.eventName, str(c.dynamodb.Keys.id), str(c.dynamodb.NewImage?.v), str(c.dynamodb.OldImage?.v)];

function str(value: WireAttributeValue | undefined): string | undefined {
  return value && 'S' in value ? value.S : undefined;
}

function orders(options: Parameters<typeof temp.open>[0] = {}): Edgetable {
  const db = temp.open({ ttlSweepIntervalMs: 0, ...options });
  db.createTable(tableRequest('Orders', ['id', 'S']));
  return db;
}

const item = (id: string, v: string) => ({ id: { S: id }, v: { S: v } });

describe('db.observe: the single-item operations', () => {
  it('PutItem, UpdateItem and DeleteItem deliver INSERT, MODIFY and REMOVE with both images, after the write returns', async () => {
    const db = orders();
    const seen = record(db);
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    expect(seen).toEqual([]); // delivered after the commit, asynchronously
    db.updateItem({ TableName: 'Orders', Key: { id: { S: 'a' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: '2' } } });
    db.deleteItem({ TableName: 'Orders', Key: { id: { S: 'a' } } });
    await delivered();
    expect(seen.map(brief)).toEqual([
      ['INSERT', 'a', '1', undefined],
      ['MODIFY', 'a', '2', '1'],
      ['REMOVE', 'a', undefined, '2'],
    ]);
    expect(seen.map((c) => c.sequence)).toEqual([1, 2, 3]);
    expect(seen[0]).toMatchObject({ tableName: 'Orders', origin: 'local', dynamodb: { Keys: { id: { S: 'a' } }, NewImage: item('a', '1') } });
    expect(seen[0]!.deviceId).toBeUndefined();
    expect(seen[0]!.dynamodb.SizeBytes).toBeGreaterThan(0);
  });

  it('a put of an identical item, a delete of an absent one and a failed condition deliver nothing', async () => {
    const db = orders();
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    const seen = record(db);
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    db.deleteItem({ TableName: 'Orders', Key: { id: { S: 'zz' } } });
    expect(() => db.putItem({ TableName: 'Orders', Item: item('a', '9'), ConditionExpression: 'attribute_not_exists(id)' })).toThrow(/conditional/i);
    await delivered();
    expect(seen).toEqual([]);
  });

  it('only the observed table is delivered, and only changes committed while subscribed', async () => {
    const db = orders();
    db.createTable(tableRequest('Other', ['id', 'S']));
    db.putItem({ TableName: 'Orders', Item: item('before', '0') });
    const seen = record(db);
    db.putItem({ TableName: 'Other', Item: item('x', '1') });
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    await delivered();
    expect(seen.map(brief)).toEqual([['INSERT', 'a', '1', undefined]]);
  });

  it('a listener unsubscribed before delivery receives nothing more, and unsubscribing twice is harmless', async () => {
    const db = orders();
    const seen: TableChange[] = [];
    const stop = db.observe('Orders', (c) => void seen.push(c));
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    stop();
    stop();
    await delivered();
    expect(seen).toEqual([]);
    expect(db.changeFeed.observes('Orders')).toBe(false);
  });

  it('rejects a bad table name or options with ValidationException', () => {
    const db = orders();
    expect(() => db.observe('bad name!', () => undefined)).toThrow(expect.objectContaining({ name: 'ValidationException' }));
    expect(() => db.observe('Orders', { bufferSize: 0 })).toThrow(expect.objectContaining({ name: 'ValidationException' }));
    expect(() => db.observe('Orders', { whenFull: 'drop' as 'error' })).toThrow(expect.objectContaining({ name: 'ValidationException' }));
  });
});

describe('db.observe: batches, transactions, PartiQL, db.promises', () => {
  it('BatchWriteItem delivers each put and delete in request order', async () => {
    const db = orders();
    db.putItem({ TableName: 'Orders', Item: item('old', '0') });
    const seen = record(db);
    db.batchWriteItem({ RequestItems: { Orders: [{ PutRequest: { Item: item('b', '1') } }, { DeleteRequest: { Key: { id: { S: 'old' } } } }, { PutRequest: { Item: item('c', '2') } }] } });
    await delivered();
    expect(seen.map(brief)).toEqual([
      ['INSERT', 'b', '1', undefined],
      ['REMOVE', 'old', undefined, '0'],
      ['INSERT', 'c', '2', undefined],
    ]);
  });

  it('TransactWriteItems across two tables delivers all its changes in one commit; a cancelled one delivers none', async () => {
    const db = orders();
    db.createTable(tableRequest('Audit', ['id', 'S']));
    const all: TableChange[] = [];
    db.observe('Orders', (c) => void all.push(c));
    db.observe('Audit', (c) => void all.push(c));
    db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Orders', Item: item('a', '1') } }, { Put: { TableName: 'Audit', Item: item('log-1', 'a') } }] });
    expect(() =>
      db.transactWriteItems({
        TransactItems: [{ Put: { TableName: 'Orders', Item: item('b', '1') } }, { Put: { TableName: 'Audit', Item: item('log-1', 'x'), ConditionExpression: 'attribute_not_exists(id)' } }],
      }),
    ).toThrow(expect.objectContaining({ name: 'TransactionCanceledException' }));
    await delivered();
    expect(all.map((c) => [c.tableName, ...brief(c)])).toEqual([
      ['Orders', 'INSERT', 'a', '1', undefined],
      ['Audit', 'INSERT', 'log-1', 'a', undefined],
    ]);
    expect(all.map((c) => c.sequence)).toEqual([1, 2]);
  });

  it('PartiQL writes are observed', async () => {
    const db = orders();
    const seen = record(db);
    db.executeStatement({ Statement: "INSERT INTO Orders VALUE {'id': 'p', 'v': '1'}" });
    await delivered();
    expect(seen.map(brief)).toEqual([['INSERT', 'p', '1', undefined]]);
  });

  it('db.promises writes grouped into one commit arrive in commit order; a failed condition in the group delivers nothing', async () => {
    const db = orders();
    const seen = record(db);
    const writes = Array.from({ length: 20 }, (_, i) => db.promises.putItem({ TableName: 'Orders', Item: item(`k${String(i).padStart(2, '0')}`, String(i)) }));
    const failing = db.promises.putItem({ TableName: 'Orders', Item: item('k00', 'no'), ConditionExpression: 'attribute_not_exists(id)' });
    await Promise.all(writes);
    await expect(failing).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    await delivered();
    expect(seen.map((c) => str(c.dynamodb.Keys.id))).toEqual(Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`));
    expect(seen.every((c) => c.eventName === 'INSERT')).toBe(true);
  });
});

describe('db.observe: TTL, map growth, sync', () => {
  it('a TTL expiry is a REMOVE with DynamoDB’s service identity', async () => {
    const clock = { ms: 1_800_000_000_000 };
    const db = orders({ now: () => clock.ms });
    db.updateTimeToLive({ TableName: 'Orders', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    db.putItem({ TableName: 'Orders', Item: { ...item('t', '1'), expires: { N: String(clock.ms / 1000 - 10) } } });
    db.putItem({ TableName: 'Orders', Item: { ...item('keep', '1'), expires: { N: String(clock.ms / 1000 + 3600) } } });
    const seen = record(db);
    expect(db.sweepExpired()).toBe(1);
    await delivered();
    expect(seen.map(brief)).toEqual([['REMOVE', 't', undefined, '1']]);
    expect(seen[0]).toMatchObject({ origin: 'local', userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' } });
  });

  it('a write re-run after the map grew is delivered once', async () => {
    const db = orders({ mapSizeBytes: 1 << 20, maxMapSizeBytes: 64 << 20 });
    const seen = record(db);
    const big = 'x'.repeat(300 * 1024);
    for (let i = 0; i < 8; i++) db.putItem({ TableName: 'Orders', Item: item(`big-${i}`, big) });
    expect(db.store.stats().mapSizeBytes).toBeGreaterThan(1 << 20); // the map did grow (and some write re-ran)
    await delivered();
    expect(seen.map((c) => str(c.dynamodb.Keys.id))).toEqual(Array.from({ length: 8 }, (_, i) => `big-${i}`));
  });

  it("a device's batch applied at the hub is delivered with origin 'sync' and the device id", async () => {
    const db = orders();
    const seen = record(db);
    const keys = { id: { S: 'w-1' } };
    const bytes = encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { S: 'from-device' } }, timeMs: Date.now(), hlc: { ms: Date.now(), counter: 0 }, sizeBytes: 10, ttl: false });
    const ctx = { store: db.store, syncDb: db.store.database(SYNC_DB), table: db.context.catalog.require('Orders'), deadLetters: ensureDeadLetterTable(db.context), nowMs: Date.now(), maxDriftMs: 3_600_000 };
    applyBatch(ctx, { deviceId: 'van-7', incarnation: 'inc', table: 'Orders', tableId: 'tid', shard: 0, parent: undefined, records: [{ seq: 1, bytes }] });
    db.putItem({ TableName: 'Orders', Item: item('w-2', 'back-office') });
    await delivered();
    expect(seen.map((c) => [c.origin, c.deviceId, ...brief(c)])).toEqual([
      ['sync', 'van-7', 'INSERT', 'w-1', 'from-device', undefined],
      ['local', undefined, 'INSERT', 'w-2', 'back-office', undefined],
    ]);
  });
});

describe('db.observe: delivery order and listener failures', () => {
  it('a listener that writes gets its own change after every change already committed, never re-entrantly', async () => {
    const db = orders();
    const order: string[] = [];
    db.observe('Orders', (c) => {
      const id = str(c.dynamodb.Keys.id)!;
      order.push(id);
      if (id === 'a') db.putItem({ TableName: 'Orders', Item: item('from-listener', '1') });
    });
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    db.putItem({ TableName: 'Orders', Item: item('b', '1') });
    await delivered();
    expect(order).toEqual(['a', 'b', 'from-listener']);
  });

  it('a listener that throws or rejects breaks neither the write nor the other listeners; onError is told', async () => {
    const db = orders();
    const errors: [string, string][] = [];
    const onError = (err: unknown, c: TableChange) => void errors.push([(err as Error).message, str(c.dynamodb.Keys.id)!]);
    db.observe('Orders', () => {
      throw new Error('sync boom');
    }, { onError });
    db.observe('Orders', async () => {
      await Promise.resolve();
      throw new Error('async boom');
    }, { onError });
    const seen = record(db);
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    db.putItem({ TableName: 'Orders', Item: item('b', '1') });
    await delivered();
    expect(seen.map((c) => str(c.dynamodb.Keys.id))).toEqual(['a', 'b']);
    expect(db.getItem({ TableName: 'Orders', Key: { id: { S: 'b' } } }).Item).toEqual(item('b', '1'));
    expect(errors.sort()).toEqual([['async boom', 'a'], ['async boom', 'b'], ['sync boom', 'a'], ['sync boom', 'b']]);
    expect(db.changeFeed.listenerErrors).toBe(4);
  });

  it('changes are frozen: a listener cannot alter what the next one sees', async () => {
    const db = orders();
    db.observe('Orders', (c) => {
      expect(() => ((c as { eventName: string }).eventName = 'REMOVE')).toThrow(TypeError);
    });
    const seen = record(db);
    db.putItem({ TableName: 'Orders', Item: item('a', '1') });
    await delivered();
    expect(seen[0]!.eventName).toBe('INSERT');
  });
});

describe('db.observe as an async iterator', () => {
  it('yields the changes in commit order and unsubscribes when the loop breaks', async () => {
    const db = orders();
    const changes = db.observe('Orders');
    expect(db.changeFeed.observes('Orders')).toBe(true);
    const writer = (async () => {
      for (let i = 0; i < 5; i++) {
        await db.promises.putItem({ TableName: 'Orders', Item: item(`k${i}`, String(i)) });
      }
    })();
    const ids: string[] = [];
    for await (const change of changes) {
      ids.push(str(change.dynamodb.Keys.id)!);
      if (ids.length === 5) break;
    }
    await writer;
    expect(ids).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(db.changeFeed.observes('Orders')).toBe(false);
  });

  it('ends when the database closes, after yielding the changes committed before', async () => {
    const db = orders();
    const changes = db.observe('Orders');
    const pending = db.promises.putItem({ TableName: 'Orders', Item: item('last', '1') }); // committed by close()
    db.close();
    await expect(pending).resolves.toBeDefined();
    const ids: string[] = [];
    for await (const change of changes) ids.push(str(change.dynamodb.Keys.id)!);
    expect(ids).toEqual(['last']);
  });
});
