import { describe, expect, it } from 'vitest';
import { UsageWindow } from '../../src/capacity/usage-window.js';

describe('UsageWindow', () => {
  it('sums the last minute and five minutes, forgetting older seconds', () => {
    const w = new UsageWindow();
    w.add(5, 0);
    w.add(1, 59_999);
    w.add(2, 120_000);
    expect(w.sum(60, 120_000)).toBe(2);
    expect(w.sum(300, 120_000)).toBe(8);
    expect(w.sum(300, 300_500)).toBe(3); // second 0 has left the window
    expect(w.sum(300, 360_500)).toBe(2); // and second 59
    expect(w.sum(300, 1_000_000)).toBe(0);
    w.add(3, 1_200_000); // reuses slot 0, stamped with second 1200
    expect(w.sum(1, 1_200_000)).toBe(3);
  });
});
