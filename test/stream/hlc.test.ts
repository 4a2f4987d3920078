import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { open, type Edgetable } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { compareHlc, mergeHlc, readStoreClock, tickHlc, type Hlc } from '../../src/stream/hlc.js';
import { decodeStreamRecord } from '../../src/stream/change-record.js';
import { readShardRaw } from '../../src/stream/stream-reader.js';
import { writeSyncSettings } from '../../src/stream/shard-state.js';
import { tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function openAt(path: string, now: () => number): Edgetable {
  const db = open({ path, now, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return db;
}

function synced(db: Edgetable, name: string, partitions = 1): void {
  db.createTable({
    TableName: name,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: partitions,
  });
  const table = db.context.catalog.require(name);
  db.store.write((txn) => writeSyncSettings(txn, table.meta, { outboxBudgetBytes: 0, whenFull: 'reject', retentionMs: 3_600_000 }));
}

/** Every change record's HLC of a table, in (shard, seq) order. */
function clocks(db: Edgetable, name: string): Hlc[] {
  return db.listShards(name).flatMap((s) => readShardRaw(db.store, name, s.ShardId, 1, 100_000).map((r) => decodeStreamRecord(r.bytes).hlc));
}

function storeClock(db: Edgetable): Hlc | undefined {
  const syncDb = db.store.database(SYNC_DB);
  return db.store.read((txn) => readStoreClock(txn, syncDb));
}

const hlcArb = fc.record({ ms: fc.nat({ max: 2 ** 45 }), counter: fc.nat({ max: 2 ** 20 }) });

describe('hybrid logical clock', () => {
  it('tickHlc is strictly increasing whatever the wall clock does', () => {
    fc.assert(
      fc.property(hlcArb, fc.array(fc.nat({ max: 2 ** 45 }), { maxLength: 50 }), (start, walls) => {
        let last = start;
        for (const wall of walls) {
          const next = tickHlc(last, wall);
          expect(compareHlc(next, last)).toBeGreaterThan(0);
          expect(next.ms).toBeGreaterThanOrEqual(wall);
          last = next;
        }
      }),
    );
  });

  it('mergeHlc keeps the larger clock, and refuses one more than maxDrift ahead of the wall clock', () => {
    const local = { ms: 1000, counter: 5 };
    expect(mergeHlc(local, { ms: 900, counter: 9 }, 1000, 100)).toBe(local);
    expect(mergeHlc(local, { ms: 1000, counter: 6 }, 1000, 100)).toEqual({ ms: 1000, counter: 6 });
    expect(mergeHlc(local, { ms: 1100, counter: 0 }, 1000, 100)).toEqual({ ms: 1100, counter: 0 });
    expect(mergeHlc(local, { ms: 1101, counter: 0 }, 1000, 100)).toBeUndefined();
  });

  it('one persisted clock per store: monotonic across tables, a restart with the wall clock stepped back, and a partition split', () => {
    const path = tempPath(cleanups, 'etb-hlc-');
    let wall = 5_000_000;
    const now = () => wall;
    let db = openAt(path, now);
    synced(db, 'Alpha');
    synced(db, 'Bravo');
    db.putItem({ TableName: 'Alpha', Item: { pk: { S: 'k' }, v: { N: '1' } } });
    wall -= 60_000; // the wall clock steps back a minute
    db.putItem({ TableName: 'Bravo', Item: { pk: { S: 'k' }, v: { N: '1' } } });
    const [a1] = clocks(db, 'Alpha');
    const [b1] = clocks(db, 'Bravo');
    expect(compareHlc(b1!, a1!)).toBeGreaterThan(0); // another table continues the store's clock
    db.close();
    wall -= 3_600_000; // rebooted without a real-time clock: an hour behind
    db = openAt(path, now);
    db.putItem({ TableName: 'Alpha', Item: { pk: { S: 'k' }, v: { N: '2' } } });
    const afterRestart = clocks(db, 'Alpha')[1]!;
    expect(compareHlc(afterRestart, b1!)).toBeGreaterThan(0);
    // After a split the children continue from the store's clock, not from zero.
    const split = db.splitPartition('Alpha', 0)!;
    db.putItem({ TableName: 'Alpha', Item: { pk: { S: 'k' }, v: { N: '3' } } });
    const childRecords = split.children.flatMap((c) => readShardRaw(db.store, 'Alpha', c.id, 1, 10).map((r) => decodeStreamRecord(r.bytes).hlc));
    expect(childRecords).toHaveLength(1);
    expect(compareHlc(childRecords[0]!, afterRestart)).toBeGreaterThan(0);
    expect(storeClock(db)).toEqual(childRecords[0]);
  });

  it('a store written before the store clock existed continues from its shard headers', () => {
    const path = tempPath(cleanups, 'etb-hlc-');
    let wall = 9_000_000;
    const db = openAt(path, () => wall);
    synced(db, 'Alpha');
    db.putItem({ TableName: 'Alpha', Item: { pk: { S: 'k' }, v: { N: '1' } } });
    const first = clocks(db, 'Alpha')[0]!;
    db.store.write((txn) => txn.delete(db.store.database(SYNC_DB), new Uint8Array([0x43]))); // as an older store
    wall -= 10_000;
    db.putItem({ TableName: 'Alpha', Item: { pk: { S: 'k' }, v: { N: '2' } } });
    expect(compareHlc(clocks(db, 'Alpha')[1]!, first)).toBeGreaterThan(0);
  });
});
