/**
 * The Replica port (src/replication/replica.ts, db.replica): what sync/ and hub/ see of the engine.
 * Its writes take the engine's one asynchronous commit path, db.promises' queue
 * (ops/commit-queue.ts submitTxn): counted with the other writes, run in submission order after
 * them, seen by observers, durable when they resolve, refused once the store closed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import type { Item } from '../../src/model/attribute-value.js';
import type { DownEntry, WriteRejection } from '../../src/replication/replica-types.js';
import type { TableChange } from '../../src/observe/table-change.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { createReadings, tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function store(): { db: Edgetable; path: string } {
  const path = tempPath(cleanups, 'etb-replica-');
  const db = open({ path });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  createReadings(db);
  return { db, path };
}

const keys = (ts: number): Item => ({ sensor: { S: 's-1' }, ts: { N: String(ts) } });
const item = (ts: number, v: string): Item => ({ ...keys(ts), v: { S: v } });
const fromHub = (ts: number, v: string): DownEntry => ({ remove: false, keys: keys(ts), image: item(ts, v), version: { hlc: { ms: Date.now(), counter: 0 }, device: 'van-2', incarnation: 'inc-2' } });
const valueAt = (db: Edgetable, ts: number) => db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's-1' }, ts: { N: String(ts) } } }).Item?.v?.S;

describe('Replica: writes on the engine commit path', () => {
  it('an applied down batch is one more write of db.promises: counted, and run after the writes queued before it', async () => {
    const { db } = store();
    const before = db.promises.stats();
    // Queued first: if the down batch bypassed the queue it would commit first and the put would win.
    const put = db.promises.putItem({ TableName: 'Readings', Item: { sensor: { S: 's-1' }, ts: { N: '1' }, v: { S: 'local' } } });
    const applied = db.replica.applyDown('Readings', [fromHub(1, 'hub')], { maxDriftMs: 3_600_000 });
    await put;
    expect(await applied).toEqual({ applied: 1, superseded: 0, clockRefused: 0 });
    expect(valueAt(db, 1)).toBe('hub');
    const after = db.promises.stats();
    expect(after.requests - before.requests).toBe(2);
    expect(after.groups - before.groups).toBe(2);
  });

  it('observers see a down write as the writing device, once it is durable', async () => {
    const { db, path } = store();
    const seen: TableChange[] = [];
    db.observe('Readings', (change) => void seen.push(change));
    await db.replica.applyDown('Readings', [fromHub(2, 'hub')], { maxDriftMs: 3_600_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toMatchObject([{ eventName: 'INSERT', origin: 'sync', deviceId: 'van-2', dynamodb: { NewImage: { v: { S: 'hub' } } } }]);
    db.close();
    const reopened = open({ path }); // resolved means committed: another open sees it
    try {
      expect(valueAt(reopened, 2)).toBe('hub');
    } finally {
      reopened.close();
    }
  });

  it('restores a refused write (the hub\'s item back in place) through the queue', async () => {
    const { db } = store();
    db.putItem({ TableName: 'Readings', Item: item(3, 'mine') });
    const rejection: WriteRejection = { seq: 1, keys: keys(3), item: item(3, 'mine'), hubItem: item(3, 'theirs'), reason: 'version conflict' };
    const before = db.promises.stats().requests;
    expect(await db.replica.restoreRejected('Readings', [rejection])).toEqual([true]);
    expect(valueAt(db, 3)).toBe('theirs');
    expect(db.promises.stats().requests - before).toBe(1);
  });

  it('refuses a replication write once the store closed, writing nothing', async () => {
    const { db } = store();
    const replica = db.replica;
    db.close();
    expect(replica.open).toBe(false);
    await expect(replica.applyDown('Readings', [fromHub(4, 'late')], { maxDriftMs: 3_600_000 })).rejects.toBeInstanceOf(StorageError);
  });
});

describe('Replica: the outbox seen through plain values', () => {
  it('lists shards, reads their records and moves the cursor on an acknowledgement', async () => {
    const { db } = store();
    db.replica.enableOutbox('Readings', { outboxBudgetBytes: 1 << 20, whenFull: 'reject', retentionMs: 0 });
    for (let ts = 1; ts <= 3; ts++) db.putItem({ TableName: 'Readings', Item: item(ts, `v${ts}`) });
    const shards = db.replica.outboxShards(['Readings', 'NoSuchTable']).filter((p) => p.header.nextSeq > 1);
    expect(shards).toHaveLength(1); // one partition key: one shard
    const [{ table, shard, header }] = shards as [(typeof shards)[0]];
    expect(table).toBe(db.replica.table('Readings')); // one handle per definition
    expect(header).toMatchObject({ ackedSeq: 0, nextSeq: 4 });
    const changes = db.replica.readChanges('Readings', shard, 1, 10);
    expect(changes.map((c) => c.seq)).toEqual([1, 2, 3]);
    const outcome = await db.replica.acknowledge('Readings', shard, 2, 0);
    expect(outcome.records).toBe(2);
    expect(db.replica.syncStatus(['Readings']).find((s) => s.shard === shard)).toMatchObject({ ackedSeq: 2, lastSeq: 3, lagRecords: 1 });
  });

  it('gives a table as its name, definition and keys, and a new handle when it is re-created', () => {
    const { db } = store();
    const first = db.replica.table('Readings')!;
    expect(first).toMatchObject({ name: 'Readings', keyNames: ['sensor', 'ts'], partitionKey: { name: 'sensor', type: 'S' } });
    expect(first.def.TableId).toEqual(expect.any(String));
    db.deleteTable({ TableName: 'Readings' });
    expect(db.replica.table('Readings')).toBeUndefined();
    createReadings(db);
    const second = db.replica.table('Readings')!;
    expect(second).not.toBe(first);
    expect(second.def.TableId).not.toBe(first.def.TableId);
  });
});
