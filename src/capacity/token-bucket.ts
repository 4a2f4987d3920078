/**
 * A token bucket in capacity units (spec §5.7): refills continuously at `rate` units per second
 * and holds at most `rate * burstSeconds` units, so unused capacity accrues for up to
 * `burstSeconds` and can then be spent faster than the rate. `take` may drive the balance below
 * zero (a request admitted on an estimate and settled on its actual units); the debt is repaid by
 * refill before the next request is admitted.
 *
 * Time is passed in (milliseconds since the epoch, from the engine's injectable clock); a clock
 * that goes backwards adds nothing.
 */

/** Balances within this of the asked units count as enough (float refill arithmetic). */
const EPSILON = 1e-9;

export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  /** Starts holding `initialSeconds` of units (capped at the bucket's capacity). */
  constructor(
    private rate: number,
    private readonly burstSeconds: number,
    nowMs: number,
    initialSeconds = 1,
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

  /**
   * Whether `units` may be spent now. A request larger than the whole bucket is admitted once the
   * bucket is full, so no request is refused forever.
   */
  canTake(units: number, nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens + EPSILON >= Math.min(units, this.capacity);
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
