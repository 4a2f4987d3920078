import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { applyBatch, type ApplyContext } from '../../src/replication/apply-batch.js';
import { collectVersions, collectVersionsAsync } from '../../src/replication/collect-versions.js';
import { DEAD_LETTER_TABLE, ensureDeadLetterTable } from '../../src/replication/dead-letters.js';
import { readVersionFloor } from '../../src/replication/hub-records.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { compareHlc, readStoreClock, type Hlc } from '../../src/stream/hlc.js';
import type { SyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { createReadings, tableContents, tempDb, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

function hub(): { db: Edgetable; ctx: (nowMs?: number) => ApplyContext } {
  const { db } = tempDb(cleanups, 'etb-apply-');
  createReadings(db, 'Readings', 1);
  const deadLetters = ensureDeadLetterTable(db.context);
  const syncDb = db.store.database(SYNC_DB);
  return { db, ctx: (nowMs = NOW) => ({ store: db.store, syncDb, table: db.context.catalog.require('Readings'), deadLetters, nowMs, maxDriftMs: HOUR }) };
}

function put(ts: number, v: string, hlc: Hlc): Uint8Array {
  const keys = { sensor: { S: 's-1' }, ts: { N: String(ts) } };
  return encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { S: v } }, timeMs: hlc.ms, hlc, sizeBytes: 20, ttl: false });
}

function batchOf(records: Uint8Array[], over: Partial<SyncBatch> = {}, firstSeq = 1): SyncBatch {
  return { deviceId: 'dev-1', incarnation: 'inc-1', table: 'Readings', tableId: 'tid-1', shard: 0, parent: undefined, records: records.map((bytes, i) => ({ seq: firstSeq + i, bytes })), ...over };
}

const values = (db: Edgetable, name = 'Readings') => tableContents(db, name).map((l) => (JSON.parse(l) as [string, { S?: string }][]).find(([k]) => k === 'v')?.[1].S);

describe('applyBatch', () => {
  it('a stream is (device, incarnation, tableId, shard): a re-flashed store or re-created table restarting at seq 1 is applied, a redelivery is not', () => {
    const { db, ctx } = hub();
    expect(applyBatch(ctx(), batchOf([put(1, 'old', { ms: NOW - 10, counter: 0 })]))).toMatchObject({ status: 'applied', applied: 1, appliedSeq: 1 });
    expect(applyBatch(ctx(), batchOf([put(1, 'old', { ms: NOW - 10, counter: 0 })]))).toMatchObject({ applied: 0, duplicates: 1 });
    expect(applyBatch(ctx(), batchOf([put(1, 'reflashed', { ms: NOW - 5, counter: 0 })], { incarnation: 'inc-2' }))).toMatchObject({ applied: 1, duplicates: 0, appliedSeq: 1 });
    expect(values(db)).toEqual(['reflashed']);
    expect(applyBatch(ctx(), batchOf([put(1, 'recreated', { ms: NOW - 1, counter: 0 })], { incarnation: 'inc-2', tableId: 'tid-2' }))).toMatchObject({ applied: 1, duplicates: 0 });
    expect(values(db)).toEqual(['recreated']);
  });

  it('a table deleted and re-created under the same name inherits no version: a write older than the old table\'s applies', () => {
    const { db, ctx } = hub();
    applyBatch(ctx(), batchOf([put(1, 'old table', { ms: NOW - 10, counter: 0 })]));
    db.deleteTable({ TableName: 'Readings' });
    createReadings(db, 'Readings', 1);
    const result = applyBatch(ctx(), batchOf([put(1, 'new table', { ms: NOW - 1000, counter: 0 })], { deviceId: 'dev-2', tableId: 'tid-2' }));
    expect(result).toMatchObject({ status: 'applied', applied: 1 });
    expect(values(db)).toEqual(['new table']);
  });

  it('last-writer-wins ties on the same HLC go to the larger device id, then the larger incarnation', () => {
    const { db, ctx } = hub();
    const hlc = { ms: NOW - 100, counter: 3 };
    applyBatch(ctx(), batchOf([put(1, 'b-inc-2', hlc)], { deviceId: 'dev-b', incarnation: 'inc-2' }));
    applyBatch(ctx(), batchOf([put(1, 'a', hlc)], { deviceId: 'dev-a' }));
    applyBatch(ctx(), batchOf([put(1, 'b-inc-1', hlc)], { deviceId: 'dev-b', incarnation: 'inc-1' }));
    expect(values(db)).toEqual(['b-inc-2']);
  });

  it('merges device clocks into the hub clock, refuses (counts, keeps, names) a record more than maxDrift ahead, and acks with a later clock', () => {
    const { db, ctx } = hub();
    const result = applyBatch(ctx(), batchOf([put(1, 'x', { ms: NOW + 1000, counter: 7 }), put(2, 'far', { ms: NOW + 2 * HOUR, counter: 0 })]));
    expect(result).toMatchObject({ status: 'applied', applied: 1, clockRefused: 1, deadLettered: 1, appliedSeq: 2 });
    expect(result.rejections).toEqual([expect.objectContaining({ seq: 2, reason: `clock ahead: the record's clock is ${2 * HOUR} ms ahead of the hub's, over maxClockDriftMs ${HOUR}` })]);
    expect(compareHlc(result.hubClock, { ms: NOW + 1000, counter: 7 })).toBeGreaterThan(0);
    expect(result.hubClock.ms).toBeLessThan(NOW + HOUR);
    const syncDb = db.store.database(SYNC_DB);
    expect(db.store.read((txn) => readStoreClock(txn, syncDb))).toEqual(result.hubClock);
    expect(values(db)).toEqual(['x']); // the far-future record is not applied by its own clock
  });

  it('a batch it cannot apply is refused whole: nothing applied, its records kept in the dead-letter table, the stream moves past them', () => {
    const { db, ctx } = hub();
    const bad = encodeChangeRecord({ eventName: 'INSERT', keys: { sensor: { S: 's-1' } }, newImage: { sensor: { S: 's-1' }, v: { S: 'no sort key' } }, timeMs: NOW, hlc: { ms: NOW, counter: 0 }, sizeBytes: 5, ttl: false });
    const result = applyBatch(ctx(), batchOf([put(1, 'good', { ms: NOW, counter: 0 }), bad], {}, 10));
    expect(result).toMatchObject({ status: 'refused', applied: 0, deadLettered: 2, appliedSeq: 11 });
    expect(result.reason).toMatch(/^record 11: /);
    expect(values(db)).toEqual([]);
    const letters = db.scan({ TableName: DEAD_LETTER_TABLE }).Items as Record<string, { S?: string; N?: string; B?: string }>[];
    expect(letters.map((l) => [l.stream!.S, l.seq!.N, l.device!.S, l.shard!.N])).toEqual([
      ['dev-1/inc-1/Readings/tid-1/0', '10', 'dev-1', '0'],
      ['dev-1/inc-1/Readings/tid-1/0', '11', 'dev-1', '0'],
    ]);
    expect(Uint8Array.from(Buffer.from(letters[1]!.record!.B!, 'base64'))).toEqual(bad); // scan returns binary as base64, as DynamoDB's JSON does
    expect(letters[1]!.reason!.S).toBe(result.reason);
    // Redelivered: duplicates, nothing new kept.
    expect(applyBatch(ctx(), batchOf([put(1, 'good', { ms: NOW, counter: 0 }), bad], {}, 10))).toMatchObject({ status: 'refused', deadLettered: 0, duplicates: 2 });
    expect(db.scan({ TableName: DEAD_LETTER_TABLE }).Count).toBe(2);
    // The stream goes on after the refused records.
    expect(applyBatch(ctx(), batchOf([put(2, 'next', { ms: NOW + 1, counter: 0 })], {}, 12))).toMatchObject({ status: 'applied', applied: 1 });
  });

  it('collects version records past the horizon in bounded txns; a late record older than the floor is applied to an absent item and dead-lettered over an existing one', () => {
    const { db, ctx } = hub();
    const old = { ms: NOW - 40 * 24 * HOUR, counter: 0 };
    applyBatch(ctx(), batchOf([1, 2, 3, 4, 5].map((ts) => put(ts, `v${ts}`, old))));
    applyBatch(ctx(), batchOf([put(6, 'recent', { ms: NOW - HOUR, counter: 0 })], {}, 6));
    const syncDb = db.store.database(SYNC_DB);
    const versions = () => db.store.read((txn) => [...txn.cursor(syncDb, { start: Uint8Array.of(0x76), end: Uint8Array.of(0x77) })].length);
    expect(versions()).toBe(6);
    expect(collectVersions(db.store, syncDb, 30 * 24 * HOUR, NOW, 2)).toBe(5);
    expect(versions()).toBe(1);
    expect(db.store.read((txn) => readVersionFloor(txn, syncDb))).toEqual(old);
    // Another device delivers, late, writes older than the floor.
    const late = { ms: old.ms - 1000, counter: 0 };
    const result = applyBatch(ctx(), batchOf([put(1, 'late-over-existing', late), put(9, 'late-new-key', late)], { deviceId: 'dev-2' }));
    expect(result).toMatchObject({ applied: 1, deadLettered: 1 });
    expect(values(db)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5', 'recent', 'late-new-key']);
    expect(db.scan({ TableName: DEAD_LETTER_TABLE }).Items![0]!.reason).toEqual({ S: "older than the hub's version horizon, and the hub holds an item whose version was collected" });
    // Newer than the floor: last-writer-wins as usual, no version record needed.
    expect(applyBatch(ctx(), batchOf([put(2, 'newer', { ms: NOW, counter: 0 })], { deviceId: 'dev-2' }, 3))).toMatchObject({ applied: 1 });
    expect(values(db)).toContain('newer');
  });

  it("the timer's collection commits each txn off the event loop with the same result, and stops between txns when asked", async () => {
    const { db, ctx } = hub();
    const old = { ms: NOW - 40 * 24 * HOUR, counter: 0 };
    applyBatch(ctx(), batchOf([1, 2, 3, 4, 5, 6, 7].map((ts) => put(ts, `v${ts}`, old))));
    applyBatch(ctx(), batchOf([put(8, 'recent', { ms: NOW - HOUR, counter: 0 })], {}, 8));
    const syncDb = db.store.database(SYNC_DB);
    const versions = () => db.store.read((txn) => [...txn.cursor(syncDb, { start: Uint8Array.of(0x76), end: Uint8Array.of(0x77) })].length);
    const replayed = () => db.store.asyncCommitStats.committed;
    // Asked to stop after its first txn: 2 of the 7 expired versions go, the rest wait.
    let steps = 0;
    const before = replayed();
    expect(await collectVersionsAsync(db.store, syncDb, 30 * 24 * HOUR, NOW, () => steps++ >= 1, 2)).toBe(2);
    expect(versions()).toBe(6);
    expect(replayed() - before).toBe(1);
    // The rest, in txns of at most 2, each committed by a worker.
    expect(await collectVersionsAsync(db.store, syncDb, 30 * 24 * HOUR, NOW, () => false, 2)).toBe(5);
    expect(versions()).toBe(1);
    expect(replayed() - before).toBeGreaterThanOrEqual(4);
    expect(db.store.read((txn) => readVersionFloor(txn, syncDb))).toEqual(old);
  });
});
