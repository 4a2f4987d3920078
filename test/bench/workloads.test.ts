import { describe, expect, it } from 'vitest';
import type { Contender } from '../../bench/contender.js';
import { load, run } from '../../bench/workloads.js';
import { TINY, type KeyRef, type Reading } from '../../bench/workload.js';

/** A contender that only records the keys each operation was given. */
function recorder() {
  const written: string[] = [];
  const updated: string[] = [];
  const key = (k: KeyRef) => `${k.sensorId}/${k.ts}`;
  const contender: Contender<Reading> = {
    name: 'recorder',
    notes: [],
    open: () => {},
    prepare: (r) => r,
    putItem: (r) => void written.push(key(r)),
    putBatch: (rs) => void rs.forEach((r) => written.push(key(r))),
    getItem: () => 1,
    scanAll: () => 0,
    queryLatest: () => 0,
    queryWindow: () => 0,
    incrementCounter: (k) => void updated.push(key(k)),
    putIfAbsent: (r) => (written.push(key(r)), 1),
    close: () => {},
  };
  const ctx = { contender, sizes: TINY, log: () => {} };
  return { written, updated, ctx, take: (xs: string[]) => xs.splice(0) };
}

describe('workload rounds measure the same thing', () => {
  it.each(['put', 'cond-put'] as const)('%s writes new keys in every round: none an earlier round, the load or another workload wrote', (name) => {
    const { written, ctx, take } = recorder();
    load(ctx);
    const seen = new Set(take(written));
    const other = name === 'put' ? 'cond-put' : 'put';
    for (let r = 0; r < 3; r++) run(other, ctx, r);
    for (const k of take(written)) seen.add(k);
    for (let r = 0; r < 3; r++) {
      run(name, ctx, r);
      const keys = take(written);
      expect(new Set(keys).size).toBe(keys.length);
      for (const k of keys) expect(seen.has(k)).toBe(false);
      for (const k of keys) seen.add(k);
    }
  });

  it('UpdateItem draws different keys each round', () => {
    const { updated, ctx, take } = recorder();
    const rounds = [0, 1, 2].map((r) => (run('update', ctx, r), new Set(take(updated))));
    const [a, b] = [rounds[0]!, rounds[1]!];
    const shared = [...b].filter((k) => a.has(k)).length;
    expect(shared).toBeLessThan(b.size / 4);
  });

  it('the load in segments writes the same keys as in one piece, each once', () => {
    const whole = recorder();
    load(whole.ctx);
    const parts = recorder();
    for (let s = 0; s < 3; s++) load(parts.ctx, s, 3);
    expect(new Set(whole.written).size).toBe(whole.written.length);
    expect(parts.written.length).toBe(whole.written.length);
    expect(new Set(parts.written)).toEqual(new Set(whole.written));
  });
});
