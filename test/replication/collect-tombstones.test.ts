/**
 * A device's tombstones (version records of items it no longer holds) are collected after the
 * version horizon (src/replication/collect-tombstones.ts): received ones once older than the horizon, its
 * own deletes only once the hub acknowledged them at least a horizon ago; live items' version
 * records stay; a collection interrupted by a crash or a failed commit resumes safely.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { acknowledgeShard } from '../../src/stream/acknowledge-shard.js';
import { enableSync } from '../../src/stream/enable-sync.js';
import { DEFAULT_MAX_CLOCK_DRIFT_MS } from '../../src/stream/hlc.js';
import { readVersion, versionKey, type Version } from '../../src/stream/item-versions.js';
import { listShardIds, readShardHeader } from '../../src/stream/shard-state.js';
import { ensureStoreIdentity } from '../../src/stream/store-identity.js';
import { applyDown } from '../../src/replication/apply-down.js';
import { collectTombstonesStep, readTombstoneGc, recordAckCheckpoint, type TombstoneContext } from '../../src/replication/collect-tombstones.js';
import type { DownEntry } from '../../src/sync/protocol/down-messages.js';
import type { Table } from '../../src/table/table.js';
import { createWorkOrders, getOrder, putOrder } from '../sync/down-fixtures.js';
import { tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const H = 60_000; // the horizon of these tests
const SELF = 'tablet-7';

type Device = { db: Edgetable; path: string; table: Table; incarnation: string };

function openDevice(path: string, faults?: FaultInjector): Device {
  const db = open({ path, ...(faults ? { faults } : {}) });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  if (!db.context.catalog.find('WorkOrders')) createWorkOrders(db);
  const table = db.context.catalog.require('WorkOrders');
  const incarnation = ensureStoreIdentity(db.store);
  enableSync(db.store, table, { outboxBudgetBytes: 0, whenFull: 'reject', retentionMs: 0, versions: { writer: SELF, incarnation } });
  return { db, path, table, incarnation };
}

function ctx(d: Device, nowMs: number, marginMs = 0): TombstoneContext {
  return { store: d.db.store, syncDb: d.db.store.database(SYNC_DB), table: d.table, self: { device: SELF, incarnation: d.incarnation }, horizonMs: H, marginMs, nowMs };
}

/** A whole pass at `nowMs` (checkpoint, then steps); returns the tombstones dropped. */
function pass(d: Device, nowMs: number, limits?: { maxScan: number; maxDrop: number }): number {
  recordAckCheckpoint(ctx(d, nowMs));
  let dropped = 0;
  for (;;) {
    const step = collectTombstonesStep(ctx(d, nowMs), limits);
    dropped += step.dropped;
    if (step.done) return dropped;
  }
}

function hubVersion(ms: number): Version {
  return { hlc: { ms, counter: 0 }, device: 'hub', incarnation: 'hub-1' };
}

function received(d: Device, entries: { job: string; remove?: boolean; ms: number }[]) {
  const down: DownEntry[] = entries.map((e) => {
    const keys = { site: { S: 'site-7' }, job: { S: e.job } };
    return e.remove ? { remove: true, keys, version: hubVersion(e.ms) } : { remove: false, keys, image: { ...keys, state: { S: `at-${e.ms}` } }, version: hubVersion(e.ms) };
  });
  return applyDown({ store: d.db.store, syncDb: d.db.store.database(SYNC_DB), table: d.table, nowMs: Date.now(), maxDriftMs: DEFAULT_MAX_CLOCK_DRIFT_MS }, down);
}

function versionOf(d: Device, job: string): Version | undefined {
  const key = d.table.keyOf({ site: { S: 'site-7' }, job: { S: job } }).bytes;
  return d.db.store.read((txn) => readVersion(txn, d.db.store.database(SYNC_DB), 'WorkOrders', key));
}

/** Version records of the table, tombstones and live items' alike. */
function versionCount(d: Device): number {
  const start = versionKey('WorkOrders', new Uint8Array(0));
  const end = Uint8Array.from(start);
  end[end.length - 1] = 1;
  return d.db.store.read((txn) => [...txn.cursor(d.db.store.database(SYNC_DB), { start, end })].length);
}

function ackEverything(d: Device): void {
  const shards = d.db.store.read((txn) => listShardIds(txn, d.table.meta).map((id) => ({ id, last: readShardHeader(txn, d.table.meta, id)!.nextSeq - 1 })));
  for (const { id, last } of shards) acknowledgeShard(d.db.store, d.table, id, last, 0, Date.now());
}

describe('device tombstones', () => {
  it('a received tombstone goes once older than the horizon; live items keep their version records and still refuse older writes', () => {
    const d = openDevice(tempPath(cleanups, 'etb-gc-'));
    const t0 = Date.now();
    received(d, [
      { job: 'j1', ms: t0 - 10_000 },
      { job: 'j2', ms: t0 - 10_000 },
      { job: 'j3', ms: t0 - 10_000 },
      { job: 'j1', remove: true, ms: t0 - 5_000 },
    ]);
    expect(getOrder(d.db, 'site-7', 'j1')).toBeUndefined();
    expect(pass(d, t0)).toBe(0); // younger than the horizon
    expect(versionOf(d, 'j1')).toEqual(hubVersion(t0 - 5_000));
    // Within the horizon the tombstone refuses an older put (a late redelivery).
    expect(received(d, [{ job: 'j1', ms: t0 - 7_000 }]).superseded).toBe(1);
    expect(getOrder(d.db, 'site-7', 'j1')).toBeUndefined();

    expect(pass(d, t0 + H)).toBe(1);
    expect(versionOf(d, 'j1')).toBeUndefined();
    // Live items keep theirs, however old, and an older write still loses to them.
    expect(versionOf(d, 'j2')).toEqual(hubVersion(t0 - 10_000));
    expect(versionOf(d, 'j3')).toEqual(hubVersion(t0 - 10_000));
    expect(received(d, [{ job: 'j2', ms: t0 - 20_000 }]).superseded).toBe(1);
    expect(getOrder(d.db, 'site-7', 'j2')?.state).toEqual({ S: `at-${t0 - 10_000}` });
    expect(pass(d, t0 + 10 * H)).toBe(0);
    expect(versionCount(d)).toBe(2);
  });

  it('after the horizon an older write is applied, as at the hub: the hub collected its tombstone too and sends that write to every device', () => {
    // The condition under which a deleted item comes back (docs/sync.md, "Version horizon"): a write
    // older than the delete reaches the hub more than the horizon after it. The hub finds no version
    // and no item, applies it and sends it down; a device that kept its tombstone would refuse it
    // and differ from the hub for good. Collecting at the same horizon keeps the copies equal.
    const d = openDevice(tempPath(cleanups, 'etb-gc-'));
    const t0 = Date.now() - 2 * H;
    received(d, [
      { job: 'j1', ms: t0 },
      { job: 'j1', remove: true, ms: t0 + 1_000 },
    ]);
    expect(pass(d, Date.now())).toBe(1);
    expect(received(d, [{ job: 'j1', ms: t0 + 500 }]).applied).toBe(1);
    expect(getOrder(d.db, 'site-7', 'j1')?.state).toEqual({ S: `at-${t0 + 500}` });
  });

  it("the device's own delete stays while the hub has not acknowledged it, and for a horizon (plus the clock margin) after the ack", () => {
    const d = openDevice(tempPath(cleanups, 'etb-gc-'));
    putOrder(d.db, 'site-7', 'j1', 'new');
    d.db.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j1' } } });
    const own = versionOf(d, 'j1')!;
    expect(own.device).toBe(SELF);
    const t0 = Date.now();
    // Unacknowledged: kept however old it gets (the hub may not have it; a received older write
    // must still lose to it here as it will at the hub).
    expect(pass(d, t0 + 10 * H)).toBe(0);
    expect(versionOf(d, 'j1')).toEqual(own);

    ackEverything(d);
    const margin = 5_000;
    const at = (ms: number) => {
      recordAckCheckpoint(ctx(d, ms, margin));
      return collectTombstonesStep(ctx(d, ms, margin)).dropped;
    };
    const acked = t0 + 11 * H; // the first checkpoint that sees it acknowledged
    expect(at(acked)).toBe(0);
    expect(at(acked + H)).toBe(0); // acknowledged a horizon ago, but not the margin
    expect(versionOf(d, 'j1')).toEqual(own);
    expect(at(acked + H + margin)).toBe(1);
    expect(versionOf(d, 'j1')).toBeUndefined();
    expect(d.db.store.read((txn) => readTombstoneGc(txn, d.db.store.database(SYNC_DB), 'WorkOrders')).checkpoints.length).toBeLessThanOrEqual(3);
  });

  it('an own delete still in the outbox keeps later ones too: the checkpoint is the first pending own write', () => {
    const d = openDevice(tempPath(cleanups, 'etb-gc-'));
    putOrder(d.db, 'site-7', 'j1', 'new');
    d.db.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j1' } } });
    ackEverything(d);
    putOrder(d.db, 'site-7', 'j2', 'new');
    d.db.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j2' } } });
    const t0 = Date.now();
    expect(pass(d, t0)).toBe(0);
    expect(pass(d, t0 + 2 * H)).toBe(1); // j1 acknowledged at the first checkpoint; j2 pending
    expect(versionOf(d, 'j1')).toBeUndefined();
    expect(versionOf(d, 'j2')?.device).toBe(SELF);
  });

  it('a collection interrupted (failed commit, close, reopen) resumes where it committed and drops only tombstones', () => {
    const path = tempPath(cleanups, 'etb-gc-');
    let d = openDevice(path);
    const t0 = Date.now() - 2 * H;
    const jobs = Array.from({ length: 60 }, (_, i) => `j${String(i).padStart(2, '0')}`);
    received(d, jobs.map((job) => ({ job, ms: t0 })));
    received(d, jobs.filter((_, i) => i % 4 !== 0).map((job) => ({ job, remove: true, ms: t0 + 1 }))); // 45 tombstones, 15 live
    const limits = { maxScan: 7, maxDrop: 5 };
    recordAckCheckpoint(ctx(d, Date.now()));
    const first = collectTombstonesStep(ctx(d, Date.now()), limits);
    const second = collectTombstonesStep(ctx(d, Date.now()), limits);
    expect(first.done || second.done).toBe(false);
    const dropped = first.dropped + second.dropped;
    expect(dropped).toBeGreaterThan(0);
    const syncDb = () => d.db.store.database(SYNC_DB);
    const position = d.db.store.read((txn) => readTombstoneGc(txn, syncDb(), 'WorkOrders').after);
    expect(position).toBeDefined();
    d.db.close();

    // Reopened with a disk that fails the next commit: that step changes nothing, position included.
    const faults = new FaultInjector();
    d = openDevice(path, faults);
    expect(versionCount(d)).toBe(60 - dropped);
    faults.failCommitAt = faults.commits + 1;
    expect(() => collectTombstonesStep(ctx(d, Date.now()), limits)).toThrow(/injected fault/);
    expect(versionCount(d)).toBe(60 - dropped);
    expect(d.db.store.read((txn) => readTombstoneGc(txn, syncDb(), 'WorkOrders').after)).toBe(position);

    // The pass resumes after the committed position and ends with only the live items' records.
    let more = 0;
    for (let step = collectTombstonesStep(ctx(d, Date.now()), limits); ; step = collectTombstonesStep(ctx(d, Date.now()), limits)) {
      more += step.dropped;
      if (step.done) break;
    }
    expect(dropped + more).toBe(45);
    expect(versionCount(d)).toBe(15);
    for (const [i, job] of jobs.entries()) expect(versionOf(d, job) !== undefined).toBe(i % 4 === 0);
    expect(d.db.store.read((txn) => readTombstoneGc(txn, syncDb(), 'WorkOrders').after)).toBeUndefined();
  });
});
