/**
 * Per-device acknowledgement and duplicate state of the bridge (docs/sensor-frame.md,
 * "Acknowledgement and sequence numbers"; docs/bridge.md, "Exactly once").
 *
 * One state per device, for the device's current boot (docs/sensor-frame.md, "Boots"): seqs start
 * again at 1 on every boot, so a state speaks of one boot only; a frame of a greater boot replaces
 * it with startBoot(boot), which is how the old boot's state is collected (one state per device).
 *
 * Invariants of a DedupState:
 * - every seq <= settled is settled: written durably, or below a `base` the node sent (given up);
 * - `durable` holds seqs > settled + 1 that are written durably (settled + 1 never is: it would
 *   have been absorbed into settled);
 * - the ack for the device is `settled`: "highest contiguous settled seq", what etb_node_handle_ack
 *   frees its ring up to.
 * States are immutable: a batch computes the next state, writes it in the same BatchWriteItem as
 * its readings, and the bridge adopts it only after the commit returns.
 */
import { MAX_BRIDGE_DURABLE_SEQS } from '../model/limits.js';

export type DedupState = {
  /** The boot these seqs belong to; 0 = a version 1 node (no boot id). */
  readonly boot: number;
  readonly settled: number;
  /** Ascending, each > settled + 1, at most MAX_BRIDGE_DURABLE_SEQS entries. */
  readonly durable: readonly number[];
};

export const EMPTY_DEDUP_STATE: DedupState = Object.freeze({ boot: 0, settled: 0, durable: Object.freeze([]) as readonly number[] });

/** The state of a boot nothing is known of yet: nothing settled. */
export function startBoot(boot: number): DedupState {
  return Object.freeze({ boot, settled: 0, durable: EMPTY_DEDUP_STATE.durable });
}

/** How far ahead of the bridge's clock a boot id may be, read as seconds since 1970, unless told otherwise: a day. */
export const DEFAULT_MAX_BOOT_AHEAD_SECONDS = 86_400;

/**
 * Whether `boot` is further ahead of the bridge's clock than allowed. A node's boot id is a counter
 * or its clock's seconds at boot (docs/sensor-frame.md, "Boots"); a counter is never near the
 * present, a clock far ahead of the bridge's is wrong, and its boot adopted would make every later,
 * right boot id a smaller one: refused as stale until the state is forgotten.
 */
export function isBootAhead(boot: number, nowMs: number, maxAheadSeconds: number): boolean {
  return boot > Math.floor(nowMs / 1000) + maxAheadSeconds;
}

/** A frame with this seq was written before (or given up by its node): ack it, do not write it. */
export function isSettled(state: DedupState, seq: number): boolean {
  return seq <= state.settled || binarySearch(state.durable, seq);
}

/** The node promises never to send a seq below `base` again: everything below it is settled. */
export function applyBase(state: DedupState, base: number): DedupState {
  if (base - 1 <= state.settled) return state;
  return normalize(state.boot, base - 1, state.durable);
}

/** The state once `seqs` are durable. */
export function addDurable(state: DedupState, seqs: Iterable<number>): DedupState {
  const merged = new Set(state.durable);
  for (const s of seqs) if (s > state.settled) merged.add(s);
  return normalize(state.boot, state.settled, [...merged].sort((a, b) => a - b));
}

/**
 * Absorbs durable seqs contiguous with settled and drops those below it. Past the window cap the
 * smallest durable seqs are forgotten: a resend of one of them is written again, which the
 * (deviceId, ts) primary key makes an identical overwrite, never a second item.
 */
function normalize(boot: number, settled: number, sortedDurable: readonly number[]): DedupState {
  let i = 0;
  while (i < sortedDurable.length && sortedDurable[i]! <= settled + 1) {
    settled = Math.max(settled, sortedDurable[i]!);
    i++;
  }
  let rest = sortedDurable.slice(i);
  if (rest.length > MAX_BRIDGE_DURABLE_SEQS) rest = rest.slice(rest.length - MAX_BRIDGE_DURABLE_SEQS);
  return Object.freeze({ boot, settled, durable: Object.freeze(rest) });
}

function binarySearch(sorted: readonly number[], x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
