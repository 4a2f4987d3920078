/**
 * Collects a device's tombstones (docs/sync.md, "Tombstones at a device"): the version records
 * (stream/item-versions.ts) of the items a received table no longer holds. Without it a device's
 * `_sync` database grows by one record per key ever deleted. Version records of live items are
 * never collected here: they are bounded by the items, and last-writer-wins needs them.
 *
 * A tombstone exists to refuse an older write to its key that arrives after the delete. It is
 * dropped only when all of these hold, checked in the txn that drops it:
 *
 * 1. No item under the key (a write since the delete made it live again: then it is no tombstone).
 * 2. Its HLC is older than the version horizon (`horizonMs`, the hub's `versionHorizonMs`) by this
 *    device's wall clock. The hub drops its own version record of the key by the same rule
 *    (replication/collect-versions.ts); from then on an older write reaching the hub finds no version and
 *    no item there, is applied (docs/sync.md, "Version horizon"), logged and sent down to every
 *    subscribed device: a device without the tombstone applies it as well, so the copies agree (a
 *    device that kept the tombstone forever would refuse it and differ from the hub).
 * 3. The hub has the delete, and nothing older than it for this key can still come down from the
 *    hub's log:
 *    - a received tombstone came down from the hub's log, and the records logged before it came
 *      down before it: a lane delivers in log order, and a resend starts from the durable cursor,
 *      so a redelivered older record is followed by the tombstone again. Records logged after it
 *      are the hub's own decisions (rule 2), which the device should follow.
 *    - the device's own delete must be acknowledged by the hub, and acknowledged at least
 *      `horizonMs + marginMs` ago (the ack checkpoints below). An older write W that the hub
 *      applied before the delete sits in the hub's log ahead of it and is still sent to this device
 *      after the delete was applied at the hub, which never sends the delete back (it is this
 *      device's own write): only the tombstone refuses W. W was logged before the ack reached the
 *      device, so once that ack is older than the hub's horizon (plus the clock difference between
 *      hub and device, `marginMs`), W is older than the horizon too: the hub prunes it from its log
 *      (replication/hub-log.ts), and a device whose down cursor is below the log's first record re-reads
 *      its partitions whole (base read), which hold what the hub holds. A W delivered before that
 *      met the tombstone and was refused.
 *
 * What that assumes (docs/sync.md): the hub's versionHorizonMs is not longer than the device's;
 * the hub prunes its log by the horizon (logPruneIntervalMs > 0, a forwarder that keeps up, no
 * DynamoDB stream on the hub table); hub and device wall clocks agree within `marginMs` (the sync
 * agent passes maxClockDriftMs).
 *
 * State, in the device's `_sync` database, per received table:
 *
 *   gc  key := 'G' table     value := JSON TombstoneGc
 *       checkpoints: at wall time atMs, every own write of the table with an HLC below ackedBelow
 *         was acknowledged by the hub. Own writes take increasing HLCs from the one store clock
 *         (stream/hlc.ts) and the outbox is acknowledged as a prefix of each shard, so the HLC of
 *         the first own record after each shard's cursor bounds them. A pass adds one at most every
 *         horizonMs / 32; kept while younger than the horizon, plus the newest older one (so at
 *         most about 34).
 *       after: the last version key the pass in progress looked at (hex), where it resumes.
 *
 * Bounded: a step is one write txn that looks at most `maxScan` version records and drops at most
 * `maxDrop`. A crash between steps loses nothing: each step's drops and its position commit
 * together, and a step's decision depends only on what its own txn reads.
 */
import { readHash } from '../codec/partition-hash.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { decodeStreamRecord, recordOrigin } from '../stream/change-record.js';
import { compareHlc, HLC_ZERO, readStoreClock, type Hlc } from '../stream/hlc.js';
import { decodeVersion, versionKey } from '../stream/item-versions.js';
import { TOMBSTONE_GC_PREFIX } from '../stream/table-sync-records.js';
import { encodeSequenceKey } from '../stream/sequence-key.js';
import { shardDatabase } from '../stream/shard-database.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import type { Table } from '../table/table.js';

export type AckCheckpoint = { readonly atMs: number; readonly ackedBelow: Hlc };

export type TombstoneGc = { readonly checkpoints: readonly AckCheckpoint[]; readonly after?: string };

export type TombstoneContext = {
  readonly store: Store;
  readonly syncDb: Database;
  readonly table: Table;
  /** This store's writer id (the sync deviceId) and incarnation: what marks a version as its own. */
  readonly self: { readonly device: string; readonly incarnation: string };
  readonly horizonMs: number;
  /** How far hub and device wall clocks may differ; own deletes wait this much longer. */
  readonly marginMs: number;
  readonly nowMs: number;
};

export type TombstoneLimits = { readonly maxScan: number; readonly maxDrop: number };

export const TOMBSTONE_LIMITS: TombstoneLimits = { maxScan: 5000, maxDrop: 500 };

export type TombstoneStep = { readonly scanned: number; readonly dropped: number; readonly done: boolean };

/** Own records looked at after each shard's cursor for the first own one; past that, no checkpoint. */
const OUTBOX_LOOK = 256;

/** Checkpoints a pass adds per horizon, at most. */
const CHECKPOINTS_PER_HORIZON = 32;

const enc = new TextEncoder();
const dec = new TextDecoder();

function gcKey(table: string): Uint8Array {
  return enc.encode(`${TOMBSTONE_GC_PREFIX}${table}`);
}

export function readTombstoneGc(txn: ReadTxn, db: Database, table: string): TombstoneGc {
  const raw = txn.get(db, gcKey(table));
  return raw ? (JSON.parse(dec.decode(raw)) as TombstoneGc) : { checkpoints: [] };
}

function writeTombstoneGc(txn: WriteTxn, db: Database, table: string, gc: TombstoneGc): void {
  txn.put(db, gcKey(table), enc.encode(JSON.stringify(gc)));
}

/**
 * Adds an ack checkpoint when the newest is older than horizonMs / 32 (or from the future: a wall
 * clock that stepped back); returns whether it did. Skipped when the outbox holds more than
 * OUTBOX_LOOK received records before its first own one (the agent passes over those soon).
 */
export function recordAckCheckpoint(ctx: TombstoneContext): boolean {
  const { store, syncDb, table, nowMs } = ctx;
  const everyMs = Math.max(1, Math.floor(ctx.horizonMs / CHECKPOINTS_PER_HORIZON));
  return store.write((txn) => {
    const gc = readTombstoneGc(txn, syncDb, table.name);
    const newest = gc.checkpoints[gc.checkpoints.length - 1];
    if (newest && newest.atMs <= nowMs && nowMs - newest.atMs < everyMs) return false;
    const ackedBelow = ackedBelowNow(txn, syncDb, table);
    if (ackedBelow === undefined) return false;
    const cutoff = nowMs - ctx.horizonMs - ctx.marginMs;
    const all = [...gc.checkpoints, { atMs: nowMs, ackedBelow }];
    let lastOld = -1;
    all.forEach((c, i) => {
      if (c.atMs <= cutoff) lastOld = i;
    });
    const kept = all.filter((c, i) => i === lastOld || c.atMs > cutoff).slice(-(CHECKPOINTS_PER_HORIZON * 2));
    writeTombstoneGc(txn, syncDb, table.name, { ...gc, checkpoints: kept });
    return true;
  });
}

/**
 * The HLC below which every own write of `table` is acknowledged now: the lowest HLC of the first
 * own record after each shard's cursor, or, with none pending, just past the store clock (every own
 * write so far has an HLC at or below it). Undefined when a shard's first OUTBOX_LOOK records
 * after its cursor are all received ones.
 */
function ackedBelowNow(txn: ReadTxn, syncDb: Database, table: Table): Hlc | undefined {
  const clock = readStoreClock(txn, syncDb) ?? HLC_ZERO;
  let below: Hlc = { ms: clock.ms, counter: clock.counter + 1 };
  for (const shard of listShardIds(txn, table.meta)) {
    const header = readShardHeader(txn, table.meta, shard)!;
    if (header.ackedSeq >= header.nextSeq - 1) continue;
    let seen = 0;
    let found: Hlc | undefined;
    for (const { value } of txn.cursor(shardDatabase(table, shard), { start: encodeSequenceKey(header.ackedSeq + 1), limit: OUTBOX_LOOK })) {
      seen += 1;
      if (recordOrigin(value) === undefined) {
        found = decodeStreamRecord(value).hlc;
        break;
      }
    }
    if (found === undefined) {
      if (seen >= OUTBOX_LOOK) return undefined;
      continue;
    }
    if (compareHlc(found, below) < 0) below = found;
  }
  return below;
}

/**
 * The HLC below which own tombstones may go: that of the newest checkpoint taken at least
 * horizonMs + marginMs ago, or undefined (none yet: own tombstones stay).
 */
function settledBelow(gc: TombstoneGc, cutoffMs: number): Hlc | undefined {
  for (let i = gc.checkpoints.length - 1; i >= 0; i--) if (gc.checkpoints[i]!.atMs <= cutoffMs) return gc.checkpoints[i]!.ackedBelow;
  return undefined;
}

/** One step of a pass over the table's version records; `done` once the pass reached the end. */
export function collectTombstonesStep(ctx: TombstoneContext, limits: TombstoneLimits = TOMBSTONE_LIMITS): TombstoneStep {
  const { store, syncDb, table, self } = ctx;
  const prefix = versionKey(table.name, new Uint8Array(0));
  const end = Uint8Array.from(prefix);
  end[end.length - 1] = 1; // the byte after the 0x00 separator
  return store.write((txn) => {
    const gc = readTombstoneGc(txn, syncDb, table.name);
    const cutoffMs = ctx.nowMs - ctx.horizonMs;
    const settled = settledBelow(gc, cutoffMs - ctx.marginMs);
    const from = gc.after !== undefined ? { start: Uint8Array.from(Buffer.from(gc.after, 'hex')), startExclusive: true } : { start: prefix };
    const candidates: Uint8Array[] = [];
    let scanned = 0;
    let last: Uint8Array | undefined;
    for (const { key, value } of txn.cursor(syncDb, { ...from, end, limit: limits.maxScan })) {
      scanned += 1;
      last = Uint8Array.prototype.slice.call(key);
      const version = decodeVersion(value);
      if (version.hlc.ms >= cutoffMs) continue;
      const own = version.device === self.device && version.incarnation === self.incarnation;
      if (own && (settled === undefined || compareHlc(version.hlc, settled) >= 0)) continue;
      candidates.push(last);
      if (candidates.length >= limits.maxDrop) break;
    }
    let dropped = 0;
    for (const key of candidates) {
      const itemKey = key.subarray(prefix.length);
      const hash = readHash(itemKey, 0);
      if (table.recordIn(txn, table.partitionOf(hash).db, { hash, bytes: itemKey }) !== undefined) continue; // live
      txn.delete(syncDb, key);
      dropped += 1;
    }
    const done = last === undefined || (scanned < limits.maxScan && candidates.length < limits.maxDrop);
    const { after: _after, ...rest } = gc;
    writeTombstoneGc(txn, syncDb, table.name, done ? rest : { ...rest, after: Buffer.from(last!).toString('hex') });
    return { scanned, dropped, done };
  });
}

/** A whole pass now (a checkpoint if due, then steps to the end); returns the tombstones dropped. */
export function collectTombstones(ctx: Omit<TombstoneContext, 'nowMs'> & { readonly now: () => number }, limits?: TombstoneLimits): number {
  recordAckCheckpoint({ ...ctx, nowMs: ctx.now() });
  let dropped = 0;
  for (;;) {
    const step = collectTombstonesStep({ ...ctx, nowMs: ctx.now() }, limits);
    dropped += step.dropped;
    if (step.done) return dropped;
  }
}
