/**
 * Hybrid logical clock timestamps (Kulkarni et al.): wall-clock milliseconds plus a counter that
 * orders events within one millisecond, or while the wall clock stands still or steps back. A
 * timestamp never goes backwards for one shard (the last one is kept in the shard header, so this
 * holds across restarts), which is what last-writer-wins per key needs: a key lives in one shard.
 */

export type Hlc = { readonly ms: number; readonly counter: number };

export const HLC_ZERO: Hlc = Object.freeze({ ms: 0, counter: 0 });

/** The timestamp of a new local event after `last`, at wall time `nowMs`. */
export function tickHlc(last: Hlc, nowMs: number): Hlc {
  const wall = Math.floor(nowMs);
  return wall > last.ms ? { ms: wall, counter: 0 } : { ms: last.ms, counter: last.counter + 1 };
}

/** Total order: ms, then counter. */
export function compareHlc(a: Hlc, b: Hlc): number {
  return a.ms - b.ms || a.counter - b.counter;
}
