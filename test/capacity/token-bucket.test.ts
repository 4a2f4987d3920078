import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/capacity/token-bucket.js';

describe('TokenBucket', () => {
  it('starts full (its burst available) unless told otherwise', () => {
    expect(new TokenBucket(5, 300, 0).balance(0)).toBe(1500);
    expect(new TokenBucket(10, 300, 0, 1).balance(0)).toBe(10);
  });

  it('refills at the rate, exactly on 100 ms steps', () => {
    const b = new TokenBucket(10, 300, 0, 1);
    b.take(10, 0);
    expect(b.admits(0)).toBe(false);
    expect(b.balance(100)).toBe(1);
    expect(b.balance(1000)).toBe(10);
  });

  it('saves at most burstSeconds of units', () => {
    const b = new TokenBucket(2, 300, 0, 0);
    expect(b.balance(10_000_000)).toBe(600);
  });

  it('admits any request while not empty, even one larger than the whole bucket', () => {
    const b = new TokenBucket(1, 300, 0, 0.001);
    expect(b.admits(0)).toBe(true);
    b.take(400, 0);
    expect(b.admits(0)).toBe(false);
  });

  it('an empty bucket admits nothing: exactly zero is empty', () => {
    const b = new TokenBucket(4, 300, 0, 1);
    b.take(4, 0);
    expect(b.admits(0)).toBe(false);
    expect(b.admits(250)).toBe(true);
  });

  it('debt is repaid before the next admission; a clock going back adds nothing', () => {
    const b = new TokenBucket(2, 300, 1000, 1);
    b.take(5, 1000);
    expect(b.balance(1000)).toBe(-3);
    expect(b.admits(2000)).toBe(false);
    expect(b.balance(500)).toBe(-1);
    expect(b.admits(2500)).toBe(false);
    expect(b.admits(3000)).toBe(true);
  });

  it('setRate applies from the given moment and drops units above the new capacity', () => {
    const b = new TokenBucket(10, 300, 0, 1);
    b.setRate(1, 100_000); // 10 + 100 s x 10, capped at 3000 -> 1010, new cap 300
    expect(b.balance(100_000)).toBe(300);
  });

  it('over time admits no more than the initial units plus rate x elapsed plus one request (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.record({ advanceMs: fc.integer({ min: 0, max: 3000 }), units: fc.integer({ min: 1, max: 400 }) }), { maxLength: 200 }),
        (rate, steps) => {
          const b = new TokenBucket(rate, 300, 0);
          let now = 0;
          let admitted = 0;
          let largest = 0;
          for (const s of steps) {
            now += s.advanceMs;
            if (b.admits(now)) {
              b.take(s.units, now);
              admitted += s.units;
              largest = Math.max(largest, s.units);
            }
          }
          // Full bucket + refill; the last admitted request may overdraw by at most its own size.
          expect(admitted).toBeLessThanOrEqual(rate * 300 + (rate * now) / 1000 + largest + 1e-6);
        },
      ),
    );
  });
});
