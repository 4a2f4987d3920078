/** The hub tables' change logs: versions for the hub's own writes, origins for devices', and pruning by the slowest reader. */
import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { applyBatch } from '../../src/replication/apply-batch.js';
import { ensureDeadLetterTable } from '../../src/replication/dead-letters.js';
import { writeDownState } from '../../src/replication/down-state.js';
import { enableHubLog, pruneHubLog } from '../../src/replication/hub-log.js';
import { hubLogRecords } from '../../src/replication/hub-log-size.js';
import { decodeStreamRecord, encodeChangeRecord } from '../../src/stream/change-record.js';
import { readVersion } from '../../src/stream/item-versions.js';
import { readShardRaw } from '../../src/stream/stream-reader.js';
import { createReadings, tempDb, writeReadings, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HUB = { writer: 'hub', incarnation: 'hub-inc' };

function hubTable() {
  const { db } = tempDb(cleanups, 'etb-hub-log-');
  createReadings(db, 'Readings', 1);
  const table = db.context.catalog.require('Readings');
  enableHubLog(db.store, table, HUB);
  return { db, table, syncDb: db.store.database(SYNC_DB) };
}

const seqs = (db: ReturnType<typeof hubTable>['db']) => readShardRaw(db.store, 'Readings', 0, 1, 10_000).map((r) => r.seq);

describe('hub log', () => {
  it("a write through the hub's API gets a version (its HLC, the hub id); a device's write keeps the device's version as its origin", () => {
    const { db, table, syncDb } = hubTable();
    writeReadings(db, 0, 1);
    const [own] = readShardRaw(db.store, 'Readings', 0, 1, 10).map((r) => decodeStreamRecord(r.bytes));
    const key = table.keyOf({ sensor: { S: 's-0' }, ts: { N: '0' } }).bytes;
    expect(own).not.toHaveProperty('origin');
    expect(db.store.read((txn) => readVersion(txn, syncDb, 'Readings', key))).toEqual({ hlc: own!.kind === 'change' ? own!.hlc : undefined, device: 'hub', incarnation: 'hub-inc' });

    const keys = { sensor: { S: 's-9' }, ts: { N: '9' } };
    const hlc = { ms: Date.now(), counter: 0 };
    const bytes = encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { S: 'x' } }, timeMs: hlc.ms, hlc, sizeBytes: 10, ttl: false });
    applyBatch({ store: db.store, syncDb, table, deadLetters: ensureDeadLetterTable(db.context), nowMs: Date.now(), maxDriftMs: 3_600_000 }, { deviceId: 'van-1', incarnation: 'van-inc', table: 'Readings', tableId: 't', shard: 0, parent: undefined, records: [{ seq: 1, bytes }] });
    const last = readShardRaw(db.store, 'Readings', 0, 2, 10).map((r) => decodeStreamRecord(r.bytes))[0]!;
    expect(last).toMatchObject({ origin: { device: 'van-1', incarnation: 'van-inc', hlc } });
    expect(db.store.read((txn) => readVersion(txn, syncDb, 'Readings', table.keyOf(keys).bytes))).toEqual({ hlc, device: 'van-1', incarnation: 'van-inc' });
  });

  it("a device's winning write that changes no item here (delete of an absent key, identical put) is logged version-only, with its origin, for the down direction; readers of the stream skip it", () => {
    const { db, table, syncDb } = hubTable();
    const ctx = { store: db.store, syncDb, table, deadLetters: ensureDeadLetterTable(db.context), nowMs: Date.now(), maxDriftMs: 3_600_000 };
    const keys = { sensor: { S: 's-7' }, ts: { N: '7' } };
    const image = { ...keys, v: { S: 'same' } };
    const t = Date.now();
    const send = (device: string, seq: number, ms: number, eventName: 'INSERT' | 'REMOVE') => {
      const hlc = { ms, counter: 0 };
      const bytes = encodeChangeRecord({ eventName, keys, ...(eventName === 'REMOVE' ? {} : { newImage: image }), timeMs: ms, hlc, sizeBytes: 10, ttl: false });
      return applyBatch(ctx, { deviceId: device, incarnation: `${device}-inc`, table: 'Readings', tableId: 't', shard: 0, parent: undefined, records: [{ seq, bytes }] });
    };
    send('van-1', 1, t, 'INSERT');
    send('van-1', 2, t + 1, 'REMOVE');
    // van-2 deleted the item too, later: nothing is stored, but the key's version is now van-2's.
    expect(send('van-2', 1, t + 5, 'REMOVE')).toMatchObject({ applied: 1 });
    // van-3 puts the item back, then van-2 puts the identical item: again only the version moves.
    send('van-3', 1, t + 6, 'INSERT');
    expect(send('van-2', 2, t + 9, 'INSERT')).toMatchObject({ applied: 1 });
    const records = readShardRaw(db.store, 'Readings', 0, 1, 10).map((r) => decodeStreamRecord(r.bytes));
    expect(records.map((r) => (r.kind === 'change' ? [r.eventName, r.origin?.device, r.versionOnly ?? false] : r.kind))).toEqual([
      ['INSERT', 'van-1', false],
      ['REMOVE', 'van-1', false],
      ['REMOVE', 'van-2', true],
      ['INSERT', 'van-3', false],
      ['MODIFY', 'van-2', true],
    ]);
    expect(records[2]).not.toHaveProperty('newImage');
    expect(records[4]).toMatchObject({ newImage: image, origin: { hlc: { ms: t + 9, counter: 0 } } });
    expect(db.store.read((txn) => readVersion(txn, syncDb, 'Readings', table.keyOf(keys).bytes))).toEqual({ hlc: { ms: t + 9, counter: 0 }, device: 'van-2', incarnation: 'van-2-inc' });
    // Not stream events: the item changed three times, not five.
    expect(db.readShard('Readings', 0).Records.map((r) => [r.eventName, r.dynamodb.SequenceNumber])).toEqual([
      ['INSERT', '1'],
      ['REMOVE', '2'],
      ['INSERT', '4'],
    ]);
  });

  it('prunes up to the slowest down cursor, never past a forwarder, and everything older than the horizon', () => {
    const { db, table, syncDb } = hubTable();
    writeReadings(db, 0, 100);
    const now = Date.now();
    const state = (cursor: number) => ({ fingerprint: 'f', deviceTableId: 'd', phase: 'delta' as const, cursors: { 0: cursor } });
    db.store.write((txn) => {
      writeDownState(txn, syncDb, 'van-1', 'i1', 'Readings', state(60));
      writeDownState(txn, syncDb, 'van-2', 'i2', 'Readings', state(40));
    });
    const horizon = { syncDb, horizonMs: 3_600_000, nowMs: now };
    expect(pruneHubLog(db.store, table, { ...horizon, forwardCursor: () => 25 })).toBe(25);
    expect(seqs(db)[0]).toBe(26);
    expect(pruneHubLog(db.store, table, horizon)).toBe(15);
    expect(seqs(db)[0]).toBe(41);
    // Past the horizon the records go whatever the cursors say: those devices re-read whole.
    expect(pruneHubLog(db.store, table, { ...horizon, nowMs: now + 3_600_001 })).toBe(60);
    expect(seqs(db)).toEqual([]);
  });

  it('keeps a table log under its size cap, newest records first, and reports what no reader had read yet', () => {
    const { db, table, syncDb } = hubTable();
    writeReadings(db, 0, 100);
    db.store.write((txn) => writeDownState(txn, syncDb, 'van-1', 'i1', 'Readings', { fingerprint: 'f', deviceTableId: 'd', phase: 'delta', cursors: { 0: 10 } }));
    const unread: number[] = [];
    const capped = { syncDb, horizonMs: 3_600_000, nowMs: Date.now(), forwardCursor: () => 20, onUnread: (n: number) => void unread.push(n) };
    // Under the cap: only what every reader is done with goes (up to the device's 10).
    expect(pruneHubLog(db.store, table, { ...capped, maxRecords: 100 })).toBe(10);
    expect(unread).toEqual([]);
    expect(hubLogRecords(db.store, table)).toBe(90);
    // Over it: the oldest go down to the cap, and the 60 the device had not read are reported.
    expect(pruneHubLog(db.store, table, { ...capped, maxRecords: 30 })).toBe(60);
    expect(unread).toEqual([60]);
    expect(seqs(db)).toEqual(Array.from({ length: 30 }, (_, i) => 71 + i));
    expect(hubLogRecords(db.store, table)).toBe(30);
  });

  it('leaves the log of a table with a DynamoDB stream to the Streams API', () => {
    const { db } = tempDb(cleanups, 'etb-hub-log-');
    db.createTable({
      TableName: 'Streamed',
      KeySchema: [{ AttributeName: 'k', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'k', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    });
    db.putItem({ TableName: 'Streamed', Item: { k: { S: 'a' } } });
    const table = db.context.catalog.require('Streamed');
    enableHubLog(db.store, table, HUB);
    expect(readShardRaw(db.store, 'Streamed', 0, 1, 10)).toHaveLength(1); // not logged a second time
    expect(pruneHubLog(db.store, table, { syncDb: db.store.database(SYNC_DB), horizonMs: 0, nowMs: Date.now() + 1000 })).toBe(0);
  });
});
