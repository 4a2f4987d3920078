/**
 * Which partition key carries a partition's traffic: a Space-Saving summary (Metwally et al.) of
 * consumed units by partition-key hash, at most MAX_TRACKED_KEYS counters, decaying with a half
 * life of KEY_HEAT_HALF_LIFE_MS so it reflects the last minute or so. `topShare` is the hottest
 * key's share of the partition's units: Space-Saving overestimates a key by at most the smallest
 * counter, so with many keys of even traffic the share tends to 1/MAX_TRACKED_KEYS, and with one
 * key carrying the traffic it tends to 1. The split policy (table/split-policy.ts) reads it: a
 * partition hot because of one key cannot be cooled by a split (the key stays whole).
 * In memory only, per process, like the usage windows.
 */

export const MAX_TRACKED_KEYS = 8;
export const KEY_HEAT_HALF_LIFE_MS = 30_000;

export class KeyHeat {
  private readonly counts = new Map<number, number>();
  private total = 0;
  private decayedAtMs: number | undefined;

  add(hash: number, units: number, nowMs: number): void {
    if (units <= 0) return;
    this.decay(nowMs);
    this.total += units;
    const known = this.counts.get(hash);
    if (known !== undefined) {
      this.counts.set(hash, known + units);
      return;
    }
    if (this.counts.size < MAX_TRACKED_KEYS) {
      this.counts.set(hash, units);
      return;
    }
    let minHash = hash;
    let min = Infinity;
    for (const [h, c] of this.counts) {
      if (c < min) {
        min = c;
        minHash = h;
      }
    }
    this.counts.delete(minHash);
    this.counts.set(hash, min + units);
  }

  /** The hottest key's share of the units recorded (0 when none). */
  topShare(nowMs: number): number {
    this.decay(nowMs);
    if (this.total <= 0) return 0;
    let top = 0;
    for (const c of this.counts.values()) if (c > top) top = c;
    return Math.min(1, top / this.total);
  }

  private decay(nowMs: number): void {
    const last = this.decayedAtMs;
    this.decayedAtMs = nowMs;
    if (last === undefined || nowMs <= last) return;
    const factor = 0.5 ** ((nowMs - last) / KEY_HEAT_HALF_LIFE_MS);
    this.total *= factor;
    for (const [h, c] of this.counts) this.counts.set(h, c * factor);
  }
}
