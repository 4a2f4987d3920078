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
  // Counters in insertion order (a Space-Saving eviction takes the first smallest), in fixed
  // arrays: every read and write adds here, so an add allocates nothing and scans at most
  // MAX_TRACKED_KEYS entries.
  private readonly hashes = new Float64Array(MAX_TRACKED_KEYS);
  private readonly counts = new Float64Array(MAX_TRACKED_KEYS);
  private size = 0;
  private total = 0;
  private decayedAtMs: number | undefined;

  add(hash: number, units: number, nowMs: number): void {
    if (units <= 0) return;
    this.decay(nowMs);
    this.total += units;
    const { hashes, counts, size } = this;
    for (let i = 0; i < size; i++) {
      if (hashes[i] === hash) {
        counts[i] = counts[i]! + units;
        return;
      }
    }
    if (size < MAX_TRACKED_KEYS) {
      hashes[size] = hash;
      counts[size] = units;
      this.size = size + 1;
      return;
    }
    let minAt = 0;
    for (let i = 1; i < size; i++) if (counts[i]! < counts[minAt]!) minAt = i;
    const min = counts[minAt]!;
    // The evicted counter leaves; the new key takes its count and goes last, as it would in a Map.
    hashes.copyWithin(minAt, minAt + 1, size);
    counts.copyWithin(minAt, minAt + 1, size);
    hashes[size - 1] = hash;
    counts[size - 1] = min + units;
  }

  /** The hottest key's share of the units recorded (0 when none). */
  topShare(nowMs: number): number {
    this.decay(nowMs);
    if (this.total <= 0) return 0;
    let top = 0;
    for (let i = 0; i < this.size; i++) if (this.counts[i]! > top) top = this.counts[i]!;
    return Math.min(1, top / this.total);
  }

  private decay(nowMs: number): void {
    const last = this.decayedAtMs;
    this.decayedAtMs = nowMs;
    if (last === undefined || nowMs <= last) return;
    const factor = 0.5 ** ((nowMs - last) / KEY_HEAT_HALF_LIFE_MS);
    this.total *= factor;
    for (let i = 0; i < this.size; i++) this.counts[i] = this.counts[i]! * factor;
  }
}
