import { describe, expect, it } from 'vitest';
import { medianOfRounds, rotation, spread, spreadNote } from '../../bench/rounds.js';
import type { Measurement } from '../../bench/workloads.js';

const round = (value: number, count: number, deviceBytes?: number): Measurement => ({
  workload: 'put',
  unit: 'ops/s',
  count,
  ms: (count * 1000) / value,
  value,
  items: count,
  ...(deviceBytes !== undefined ? { deviceBytes } : {}),
});

describe('rotation', () => {
  it('starts round r with contender r mod n, keeping their cyclic order', () => {
    expect(rotation(3, 0)).toEqual([0, 1, 2]);
    expect(rotation(3, 1)).toEqual([1, 2, 0]);
    expect(rotation(3, 2)).toEqual([2, 0, 1]);
    expect(rotation(3, 3)).toEqual([0, 1, 2]);
  });

  it('puts every contender in every position once over n rounds', () => {
    for (const n of [1, 2, 3, 4]) {
      const positions = Array.from({ length: n }, () => new Set<number>());
      for (let r = 0; r < n; r++) rotation(n, r).forEach((contender, position) => positions[contender]!.add(position));
      for (const seen of positions) expect(seen.size).toBe(n);
    }
  });
});

describe('medianOfRounds', () => {
  it("reports the median round's value and the rounds' sums, so bytes per item stay bytes over items", () => {
    const m = medianOfRounds([
      { measurement: round(1000, 2000, 4_000_000), position: 0 },
      { measurement: round(3000, 2000, 2_000_000), position: 2 },
      { measurement: round(2000, 1000, 3_000_000), position: 1 },
    ]);
    expect(m.value).toBe(2000);
    expect(m.count).toBe(5000);
    expect(m.items).toBe(5000);
    expect(m.ms).toBeCloseTo(2000 + 2000 / 3 + 500);
    expect(m.deviceBytes).toBe(9_000_000);
    expect(m.rounds?.map((r) => [r.value, r.position])).toEqual([
      [1000, 0],
      [3000, 2],
      [2000, 1],
    ]);
  });

  it('takes the mean of the middle two of an even number of rounds, and has no device bytes when the rounds had none', () => {
    const m = medianOfRounds([100, 400, 200, 300].map((v, position) => ({ measurement: round(v, 10), position })));
    expect(m.value).toBe(250);
    expect(m).not.toHaveProperty('deviceBytes');
  });

  it("sums the bytes that reached the disk like the page-cache bytes, and reports none when a round could not count them", () => {
    const withDisk = (value: number, blockBytes?: number) => ({ measurement: { ...round(value, 100, 1_000), ...(blockBytes !== undefined ? { blockBytes } : {}) }, position: 0 });
    expect(medianOfRounds([withDisk(1, 500), withDisk(2, 700)]).blockBytes).toBe(1_200);
    expect(medianOfRounds([withDisk(1, 500), withDisk(2)])).not.toHaveProperty('blockBytes');
  });

  it('refuses no rounds', () => {
    expect(() => medianOfRounds([])).toThrow(/no rounds/);
  });
});

describe('spread', () => {
  it('gives the rounds lowest and highest value, and ± half the range as a percentage of the median', () => {
    const m = medianOfRounds([90, 100, 130].map((v, position) => ({ measurement: round(v, 10), position })));
    expect(spread(m)).toEqual({ min: 90, max: 130 });
    expect(spreadNote(m)).toBe(' ±20%');
  });

  it('is absent for one round and for a figure without rounds (older results)', () => {
    const one = medianOfRounds([{ measurement: round(100, 10), position: 0 }]);
    expect(spread(one)).toBeUndefined();
    expect(spreadNote(one)).toBe('');
    expect(spreadNote(round(100, 10))).toBe('');
  });
});
