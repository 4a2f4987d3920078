/**
 * A token bucket in capacity units (spec §5.7): refills continuously at `rate` units per second
 * and holds at most `rate * burstSeconds` units, so unused capacity accrues for up to
 * `burstSeconds` and can then be spent faster than the rate.
 *
 * Admission is DynamoDB's: a request passes while the bucket is not empty (`admits`), whatever
 * its size, and is then charged in full (`take`), which may drive the balance below zero; the
 * debt is repaid by refill before the next request passes. So one request may be larger than the
 * rate (a 400 KB put on a 5 WCU table), yet over time no more than the rate plus the burst passes.
 *
 * Time is passed in (milliseconds since the epoch, from the engine's injectable clock); a clock
 * that goes backwards adds nothing.
 */

/** Balances within this of zero count as empty (float refill arithmetic). */
const EPSILON = 1e-9;

export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  /** Starts holding `initialSeconds` of units (capped at the bucket's capacity); default: full. */
  constructor(
    private rate: number,
    private readonly burstSeconds: number,
    nowMs: number,
    initialSeconds = burstSeconds,
  ) {
    this.tokens = Math.min(rate * initialSeconds, rate * burstSeconds);
    this.lastMs = nowMs;
  }

  get capacity(): number {
    return this.rate * this.burstSeconds;
  }

  /** Units available at `nowMs` (negative while in debt). */
  balance(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens;
  }

  /** Whether a request may pass now: the bucket is not empty (and not in debt). */
  admits(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens > EPSILON;
  }

  /** Spends `units` (negative: refunds them), without checking the balance. */
  take(units: number, nowMs: number): void {
    this.refill(nowMs);
    this.tokens = Math.min(this.tokens - units, this.capacity);
  }

  /**
   * A new rate from `atMs` on (UpdateTable); saved units above the new capacity are lost. A time
   * before the bucket's last refill applies the rate from that refill.
   */
  setRate(rate: number, atMs: number): void {
    this.refill(atMs);
    this.rate = rate;
    this.tokens = Math.min(this.tokens, this.capacity);
  }

  get unitsPerSecond(): number {
    return this.rate;
  }

  private refill(nowMs: number): void {
    const elapsedMs = nowMs - this.lastMs;
    if (elapsedMs <= 0) return;
    this.lastMs = nowMs;
    // Multiply before dividing: 100 ms at 10 units/s is exactly 1 unit.
    this.tokens = Math.min(this.capacity, this.tokens + (elapsedMs * this.rate) / 1000);
  }
}
