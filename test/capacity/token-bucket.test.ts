import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/capacity/token-bucket.js';

describe('TokenBucket', () => {
  it('starts with one second of units and refills at the rate, exactly on 100 ms steps', () => {
    const b = new TokenBucket(10, 300, 0);
    expect(b.balance(0)).toBe(10);
    b.take(10, 0);
    expect(b.canTake(1, 99)).toBe(false);
    expect(b.canTake(1, 100)).toBe(true);
    expect(b.balance(1000)).toBe(10);
  });

  it('saves at most burstSeconds of units', () => {
    const b = new TokenBucket(2, 300, 0);
    expect(b.balance(10_000_000)).toBe(600);
  });

  it('admits a request larger than the whole bucket once it is full', () => {
    const b = new TokenBucket(1, 300, 0);
    expect(b.canTake(400, 0)).toBe(false);
    expect(b.canTake(400, 299_000)).toBe(true);
  });

  it('debt is repaid before the next admission; a clock going back adds nothing', () => {
    const b = new TokenBucket(2, 300, 1000);
    b.take(5, 1000);
    expect(b.balance(1000)).toBe(-3);
    expect(b.canTake(1, 2000)).toBe(false);
    expect(b.balance(500)).toBe(-1);
    expect(b.canTake(1, 3000)).toBe(true);
  });

  it('setRate applies from the given moment and drops units above the new capacity', () => {
    const b = new TokenBucket(10, 300, 0);
    b.setRate(1, 100_000); // 10 + 100 s x 10, capped at 3000 -> 1010, new cap 300
    expect(b.balance(100_000)).toBe(300);
  });

  it('never admits more than the initial units plus rate x elapsed time (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.record({ advanceMs: fc.integer({ min: 0, max: 3000 }), units: fc.integer({ min: 1, max: 20 }) }), { maxLength: 200 }),
        (rate, steps) => {
          const b = new TokenBucket(rate, 300, 0);
          let now = 0;
          let admitted = 0;
          for (const s of steps) {
            now += s.advanceMs;
            if (s.units <= b.capacity && b.canTake(s.units, now)) {
              b.take(s.units, now);
              admitted += s.units;
            }
          }
          expect(admitted).toBeLessThanOrEqual(rate + (rate * now) / 1000 + 1e-6);
        },
      ),
    );
  });
});
