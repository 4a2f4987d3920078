import { describe, expect, it } from 'vitest';
import { backoffMs, pause } from '../../../src/hub/forward/backoff.js';

describe('backoffMs', () => {
  it('waits a random time below base * 2^attempt, capped at the ceiling (full jitter)', () => {
    expect(backoffMs(0, 50, 5000, () => 0.999)).toBe(49);
    expect(backoffMs(3, 50, 5000, () => 0.5)).toBe(200);
    expect(backoffMs(20, 50, 5000, () => 0.999)).toBe(4995);
    expect(backoffMs(1000, 50, 5000, () => 0)).toBe(0);
  });
});

describe('pause', () => {
  it('ends early when the signal aborts', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const waiting = pause(60_000, abort.signal);
    abort.abort();
    await waiting;
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
