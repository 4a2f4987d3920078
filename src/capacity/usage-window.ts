/**
 * Units consumed over the last few minutes, in one-second slots (a ring of WINDOW_SECONDS slots,
 * each stamped with the second it holds). Adding is O(1) and allocation-free; a sum walks the
 * slots it covers. In memory only: a new process starts with an empty window.
 */

export const WINDOW_SECONDS = 300;

export class UsageWindow {
  private readonly sums = new Float64Array(WINDOW_SECONDS);
  private readonly stamps = new Float64Array(WINDOW_SECONDS).fill(-1);

  add(units: number, nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = second % WINDOW_SECONDS;
    if (this.stamps[slot] !== second) {
      this.stamps[slot] = second;
      this.sums[slot] = 0;
    }
    this.sums[slot]! += units;
  }

  /** Units added during the last `seconds` seconds (the current second included). */
  sum(seconds: number, nowMs: number): number {
    const now = Math.floor(nowMs / 1000);
    const span = Math.min(seconds, WINDOW_SECONDS);
    let total = 0;
    for (let s = now - span + 1; s <= now; s++) {
      const slot = ((s % WINDOW_SECONDS) + WINDOW_SECONDS) % WINDOW_SECONDS;
      if (this.stamps[slot] === s) total += this.sums[slot]!;
    }
    return total;
  }
}
