import { describe, expect, it } from 'vitest';
import { KEY_HEAT_HALF_LIFE_MS, KeyHeat, MAX_TRACKED_KEYS } from '../../src/capacity/key-heat.js';

describe('KeyHeat', () => {
  it('reports no share before any units and ignores non-positive units', () => {
    const heat = new KeyHeat();
    expect(heat.topShare(0)).toBe(0);
    heat.add(1, 0, 0);
    heat.add(1, -3, 0);
    expect(heat.topShare(0)).toBe(0);
  });

  it("gives one key's share of the units while every key is tracked", () => {
    const heat = new KeyHeat();
    heat.add(7, 3, 0);
    heat.add(8, 1, 0);
    expect(heat.topShare(0)).toBe(0.75);
    heat.add(8, 4, 0);
    expect(heat.topShare(0)).toBe(5 / 8);
  });

  it('evicts the first smallest counter for a new key, which inherits its count (Space-Saving)', () => {
    const heat = new KeyHeat();
    for (let k = 0; k < MAX_TRACKED_KEYS; k++) heat.add(k, k === 0 ? 10 : 1, 0); // key 0 hot, keys 1..7 at 1
    heat.add(100, 1, 0); // replaces key 1 (first of the smallest): count 1 + 1 = 2
    heat.add(101, 1, 0); // replaces key 2: 2
    heat.add(100, 1, 0); // still tracked: 3
    const total = 10 + 7 + 3;
    expect(heat.topShare(0)).toBe(10 / total);
    // Key 1 was evicted: adding it again replaces the next smallest (key 3, count 1) with 1 + 9 = 10.
    heat.add(1, 9, 0);
    expect(heat.topShare(0)).toBe(10 / (total + 9));
    heat.add(1, 1, 0);
    expect(heat.topShare(0)).toBe(11 / (total + 10));
  });

  it('decays every counter and the total by half each half life, so shares keep their ratio', () => {
    const heat = new KeyHeat();
    heat.add(1, 8, 0);
    heat.add(2, 8, 0);
    heat.add(1, 16, KEY_HEAT_HALF_LIFE_MS); // 8 -> 4, then + 16 = 20 of 4 + 4 + 16 = 24
    expect(heat.topShare(KEY_HEAT_HALF_LIFE_MS)).toBeCloseTo(20 / 24, 12);
    expect(heat.topShare(10 * KEY_HEAT_HALF_LIFE_MS)).toBeCloseTo(20 / 24, 12);
    // A clock going back does not decay.
    heat.add(2, 1, 0);
    expect(heat.topShare(0)).toBeGreaterThan(0);
  });
});
