/**
 * Collects the hub's per-key version records (live items' and tombstones') once they are older
 * than the version horizon: a version whose HLC is more than `horizonMs` behind the hub's wall
 * clock is deleted, and the version floor (hub-records.ts) rises to the newest HLC collected, so
 * apply-batch.ts can still tell a record that is newer than everything collected (applied as
 * usual) from one that is not (see there). Runs in write txns of at most `maxPerTxn` deletions,
 * so it never holds the single writer long; a pass walks every version record once.
 *
 * What it means: a device that delivers a write more than the horizon after the write it should
 * lose to (or after a delete it should not resurrect) may not be ordered correctly any more;
 * docs/sync.md, "Version horizon", says what happens then.
 */
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { WriteTxn } from '../storage/txn.js';
import { maxHlc, type Hlc } from '../stream/hlc.js';
import { decodeVersion, readVersionFloor, VERSION_PREFIX, writeVersionFloor } from './hub-records.js';

// Devices collect their tombstones after the same horizon (replication/collect-tombstones.ts).
export { DEFAULT_VERSION_HORIZON_MS } from '../stream/item-versions.js';

const START = new TextEncoder().encode(VERSION_PREFIX);
const END = new TextEncoder().encode(String.fromCharCode(VERSION_PREFIX.charCodeAt(0) + 1));

type Step = { deleted: number; last: Uint8Array | undefined; done: boolean };

/** Deletes every version record older than `nowMs - horizonMs`; returns how many. */
export function collectVersions(store: Store, syncDb: Database, horizonMs: number, nowMs: number, maxPerTxn = 1000): number {
  let after: Uint8Array | undefined;
  let total = 0;
  for (;;) {
    const step = store.write((txn) => collectStep(txn, syncDb, nowMs - horizonMs, after, maxPerTxn));
    total += step.deleted;
    if (step.done) return total;
    after = step.last;
  }
}

/**
 * collectVersions with each txn committed off the event loop (store.writeAsync), for the hub's
 * timer: a pass over many expired versions is many txns of two flushes each, which on an SD card
 * would hold the hub's event loop for seconds. Stops between txns once `stopRequested()` is true
 * (the versions left are collected by the next pass). Returns how many it deleted.
 */
export async function collectVersionsAsync(store: Store, syncDb: Database, horizonMs: number, nowMs: number, stopRequested: () => boolean, maxPerTxn = 1000): Promise<number> {
  let after: Uint8Array | undefined;
  let total = 0;
  while (!stopRequested()) {
    const from = after;
    const step = await store.writeAsync((txn) => collectStep(txn, syncDb, nowMs - horizonMs, from, maxPerTxn));
    total += step.deleted;
    if (step.done) break;
    after = step.last;
  }
  return total;
}

/** One txn's worth: up to maxPerTxn expired versions after `after` deleted (10x that looked at), the floor raised. */
function collectStep(txn: WriteTxn, syncDb: Database, cutoffMs: number, after: Uint8Array | undefined, maxPerTxn: number): Step {
  const doomed: Uint8Array[] = [];
  let newest: Hlc | undefined;
  let last: Uint8Array | undefined;
  let seen = 0;
  for (const { key, value } of txn.cursor(syncDb, after ? { start: after, startExclusive: true, end: END } : { start: START, end: END })) {
    last = Uint8Array.prototype.slice.call(key);
    seen += 1;
    const version = decodeVersion(value);
    if (version.hlc.ms < cutoffMs) {
      doomed.push(last);
      newest = newest ? maxHlc(newest, version.hlc) : version.hlc;
      if (doomed.length >= maxPerTxn) break;
    }
    if (seen >= maxPerTxn * 10) break;
  }
  for (const key of doomed) txn.delete(syncDb, key);
  if (newest) {
    const floor = readVersionFloor(txn, syncDb);
    writeVersionFloor(txn, syncDb, floor ? maxHlc(floor, newest) : newest);
  }
  return { deleted: doomed.length, last, done: last === undefined || (doomed.length < maxPerTxn && seen < maxPerTxn * 10) };
}
