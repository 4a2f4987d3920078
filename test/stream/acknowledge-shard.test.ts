import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { acknowledgeShard } from '../../src/stream/acknowledge-shard.js';
import { decodeStreamRecord } from '../../src/stream/change-record.js';
import { compareHlc, readStoreClock } from '../../src/stream/hlc.js';
import { readShardRaw } from '../../src/stream/stream-reader.js';
import { readShardHeader, writeSyncSettings } from '../../src/stream/shard-state.js';
import { readRefusals } from '../../src/stream/sync-refusals.js';
import { tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HOUR = 3_600_000;

function device(): Edgetable {
  const db = open({ path: tempPath(cleanups, 'etb-ack-'), splitCheckIntervalMs: 0 });
  cleanups.push(() => db.close());
  db.createTable({ TableName: 'Things', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
  const table = db.context.catalog.require('Things');
  db.store.write((txn) => writeSyncSettings(txn, table.meta, { outboxBudgetBytes: 0, whenFull: 'reject', retentionMs: HOUR }));
  return db;
}

const lastHlc = (db: Edgetable) => {
  const raw = readShardRaw(db.store, 'Things', 0, 1, 1000);
  return decodeStreamRecord(raw[raw.length - 1]!.bytes).hlc;
};

describe('acknowledgeShard', () => {
  it("merges the hub's clock into the store clock, so the next local write comes after it even with the wall clock behind", () => {
    const db = device();
    db.putItem({ TableName: 'Things', Item: { pk: { S: 'a' } } });
    const table = db.context.catalog.require('Things');
    const now = Date.now();
    const hubClock = { ms: now + 10 * 60_000, counter: 3 }; // the hub is ten minutes ahead
    expect(acknowledgeShard(db.store, table, 0, 1, HOUR, now, { hubClock, maxDriftMs: HOUR })).toMatchObject({ records: 1, clockRefused: false, clock: hubClock });
    db.putItem({ TableName: 'Things', Item: { pk: { S: 'b' } } });
    expect(compareHlc(lastHlc(db), hubClock)).toBeGreaterThan(0);
  });

  it('refuses (reports) a hub clock more than maxDrift ahead, and leaves the store clock as it was', () => {
    const db = device();
    db.putItem({ TableName: 'Things', Item: { pk: { S: 'a' } } });
    const table = db.context.catalog.require('Things');
    const syncDb = db.store.database(SYNC_DB);
    const before = db.store.read((txn) => readStoreClock(txn, syncDb));
    const now = Date.now();
    expect(acknowledgeShard(db.store, table, 0, 1, HOUR, now, { hubClock: { ms: now + 2 * HOUR, counter: 0 }, maxDriftMs: HOUR })).toMatchObject({ records: 1, clockRefused: true, clock: before });
  });

  it('a refused ack moves the cursor past the records and persists the refusal under the TableId', () => {
    const db = device();
    for (const pk of ['a', 'b', 'c']) db.putItem({ TableName: 'Things', Item: { pk: { S: pk } } });
    const table = db.context.catalog.require('Things');
    const now = Date.now();
    expect(acknowledgeShard(db.store, table, 0, 2, 0, now, { refusedMessage: 'record 1: bad' }).records).toBe(2);
    const syncDb = db.store.database(SYNC_DB);
    expect(db.store.read((txn) => readShardHeader(txn, table.meta, 0))!.ackedSeq).toBe(2);
    expect(db.store.read((txn) => readRefusals(txn, syncDb, table.def.TableId, 0))).toEqual({ batches: 1, records: 2, lastMessage: 'record 1: bad', lastAtMs: now });
    expect(readShardRaw(db.store, 'Things', 0, 1, 10).map((r) => r.seq)).toEqual([3]); // pruned like acknowledged ones
  });
});
