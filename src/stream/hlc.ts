/**
 * The store's hybrid logical clock (Kulkarni et al.): wall-clock milliseconds plus a counter that
 * orders events within one millisecond, or while the wall clock stands still or steps back.
 *
 * Contract (issue 17's two-way sync builds on it):
 * - ONE clock per store, persisted in the store's `_sync` database:
 *       clock  key := 'C'    value := ms:f64be counter:u32be
 *   Every change record of every table and shard of the store gets a timestamp from it, and the
 *   new value is written in the SAME write txn as the records that use it (change-log-writer.ts),
 *   so after a crash the clock is never behind a committed record. It never goes backwards: not
 *   across restarts, not across partition splits (child shards keep counting), not across tables.
 * - A local event at wall time `now` gets `tickHlc(last, now)`: the wall clock when it is ahead,
 *   else the last ms with the counter + 1, so a device's own writes are ordered by its own clock
 *   even when its wall clock steps back (a Pi without a real-time clock before NTP answers).
 * - A received clock (the hub's, carried by every sync acknowledgement; a device's, carried by
 *   every record the hub applies) is merged with `mergeHlc`, unless it is more than `maxDriftMs`
 *   ahead of the local wall clock: such a clock is refused (the caller counts it), so one bad clock
 *   cannot drag every store into the future. DEFAULT_MAX_CLOCK_DRIFT_MS is the default bound.
 * - Ties are broken by the caller (the hub's last-writer-wins: device id, then incarnation), so
 *   the order is total and the same on every hub.
 * Stores written before the store clock existed start it from their shard headers' clocks.
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';

export type Hlc = { readonly ms: number; readonly counter: number };

export const HLC_ZERO: Hlc = Object.freeze({ ms: 0, counter: 0 });

/** A received clock more than this far ahead of the local wall clock is not merged (1 hour). */
export const DEFAULT_MAX_CLOCK_DRIFT_MS = 60 * 60 * 1000;

const CLOCK_KEY = new Uint8Array([0x43]); // 'C'

/** The timestamp of a new local event after `last`, at wall time `nowMs`. */
export function tickHlc(last: Hlc, nowMs: number): Hlc {
  const wall = Math.floor(nowMs);
  return wall > last.ms ? { ms: wall, counter: 0 } : { ms: last.ms, counter: last.counter + 1 };
}

/**
 * `local` after receiving `remote` at wall time `nowMs`: the larger of the two (a received clock
 * is not an event, so nothing ticks). `undefined` when `remote` is more than `maxDriftMs` ahead of
 * `nowMs`: refused, `local` stays as it is.
 */
export function mergeHlc(local: Hlc, remote: Hlc, nowMs: number, maxDriftMs: number): Hlc | undefined {
  if (remote.ms > nowMs + maxDriftMs) return undefined;
  return compareHlc(remote, local) > 0 ? remote : local;
}

/** Total order: ms, then counter. */
export function compareHlc(a: Hlc, b: Hlc): number {
  return a.ms - b.ms || a.counter - b.counter;
}

export function maxHlc(a: Hlc, b: Hlc): Hlc {
  return compareHlc(a, b) >= 0 ? a : b;
}

/** The store's clock, or undefined when the store never had one (see the migration note above). */
export function readStoreClock(txn: ReadTxn, syncDb: Database): Hlc | undefined {
  const raw = txn.get(syncDb, CLOCK_KEY);
  if (!raw || raw.length !== 12) return undefined;
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return { ms: v.getFloat64(0), counter: v.getUint32(8) };
}

/** Persists the store's clock; callers only ever move it forward. */
export function writeStoreClock(txn: WriteTxn, syncDb: Database, hlc: Hlc): void {
  const value = new Uint8Array(12);
  const v = new DataView(value.buffer);
  v.setFloat64(0, hlc.ms);
  v.setUint32(8, hlc.counter);
  txn.put(syncDb, CLOCK_KEY, value);
}

/**
 * Merges `remote` into the persisted clock inside `txn`; returns false (nothing written) when
 * `remote` is refused as too far ahead of `nowMs`.
 */
export function mergeStoreClock(txn: WriteTxn, syncDb: Database, remote: Hlc, nowMs: number, maxDriftMs: number): boolean {
  const local = readStoreClock(txn, syncDb) ?? HLC_ZERO;
  const merged = mergeHlc(local, remote, nowMs, maxDriftMs);
  if (merged === undefined) return false;
  if (merged !== local) writeStoreClock(txn, syncDb, merged);
  return true;
}
