import { describe, expect, it } from 'vitest';
import type { Contender } from '../../bench/contender.js';
import { READ_WORKLOADS, WORKLOAD_NAMES, load, run } from '../../bench/workloads.js';
import { READING_INTERVAL_MS, TINY, WIDE_WINDOW_READINGS, WINDOW_READINGS, type KeyRef, type Reading, type Sizes, type Window } from '../../bench/workload.js';

/** A contender that only records the keys each operation was given, and its mode when it wrote them. */
function recorder(sizes: Sizes = TINY, withNoFlush = true) {
  const written: string[] = [];
  const updated: string[] = [];
  const windows: Window[] = [];
  const modes: boolean[] = [];
  let noFlush = false;
  const key = (k: KeyRef) => `${k.sensorId}/${k.ts}`;
  const contender: Contender<Reading> = {
    name: 'recorder',
    notes: [],
    open: () => {},
    prepare: (r) => r,
    putItem: (r) => void (written.push(key(r)), modes.push(noFlush)),
    putBatch: (rs) => void rs.forEach((r) => written.push(key(r))),
    getItem: () => 1,
    // A table of 10,000 items in pages: what a pass reads depends on maxItems.
    scanAll: (pageItems, maxItems) => Math.min(10_000, Math.ceil(maxItems / pageItems) * pageItems),
    queryLatest: () => 0,
    queryWindow: (w) => (windows.push(w), 0),
    incrementCounter: (k) => void updated.push(key(k)),
    putIfAbsent: (r) => (written.push(key(r)), 1),
    ...(withNoFlush ? { setNoFlush: (on: boolean) => void (noFlush = on) } : {}),
    close: () => {},
  };
  const ctx = { contender, sizes: { ...sizes }, log: () => {} };
  return { written, updated, windows, modes, ctx, take: <T>(xs: T[]) => xs.splice(0), noFlush: () => noFlush };
}

describe('workload rounds measure the same thing', () => {
  it.each(['put', 'put-noflush', 'cond-put'] as const)('%s writes new keys in every round: none an earlier round, the load or another workload wrote', (name) => {
    const { written, ctx, take } = recorder();
    load(ctx);
    const seen = new Set(take(written));
    for (const other of (['put', 'put-noflush', 'cond-put'] as const).filter((w) => w !== name)) for (let r = 0; r < 3; r++) run(other, ctx, r);
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

describe('the workloads at sensor scale', () => {
  it('reads the loaded store before any write workload adds to it', () => {
    const firstWrite = WORKLOAD_NAMES.findIndex((w) => w !== 'batch' && !READ_WORKLOADS.includes(w));
    expect(WORKLOAD_NAMES.slice(1, firstWrite)).toEqual(READ_WORKLOADS);
  });

  it('queries windows of ~100 and of ~1,000 readings of one sensor, clamped to what a sensor holds', () => {
    const { windows, ctx, take } = recorder({ ...TINY, readingsPerSensor: 2000 });
    run('window', ctx);
    run('window-1000', ctx);
    const spans = take(windows).map((w) => (w.to - w.from) / READING_INTERVAL_MS + 1);
    expect(spans.slice(0, 50 + TINY.queryWindow).every((n) => n === WINDOW_READINGS)).toBe(true);
    expect(spans.slice(50 + TINY.queryWindow).every((n) => n === WIDE_WINDOW_READINGS)).toBe(true);
    const small = recorder({ ...TINY, readingsPerSensor: 5 });
    run('window-1000', small.ctx);
    expect(small.windows.every((w) => (w.to - w.from) / READING_INTERVAL_MS + 1 === 5)).toBe(true);
  });

  it('put-noflush writes every put, warm-up included, in the no-flush mode and leaves the store in its durable mode', () => {
    const { modes, ctx, noFlush } = recorder();
    const m = run('put-noflush', ctx);
    expect(m?.count).toBe(TINY.putNoFlush);
    expect(modes.length).toBe(TINY.putNoFlush + 100);
    expect(modes.every((on) => on)).toBe(true);
    expect(noFlush()).toBe(false);
  });

  it('put-noflush is not measured for a contender without a no-flush mode', () => {
    const { written, ctx } = recorder(TINY, false);
    expect(run('put-noflush', ctx)).toBeUndefined();
    expect(written).toEqual([]);
  });

  it('a scan pass reads at most scanItems (to the end of its page), all of a smaller table', () => {
    expect(run('scan', recorder({ ...TINY, scanItems: 2500 }).ctx)?.items).toBe(3000);
    expect(run('scan', recorder({ ...TINY, scanItems: 1_000_000 }).ctx)?.items).toBe(10_000);
  });

  it('a load in stages writes each reading round once: a grown store holds what one load of its size would', () => {
    const whole = recorder({ ...TINY, readingsPerSensor: 6 });
    load(whole.ctx);
    const grown = recorder({ ...TINY, readingsPerSensor: 2 });
    load(grown.ctx, 0, 1, [0, 2]);
    for (let s = 0; s < 2; s++) load(grown.ctx, s, 2, [2, 6]);
    expect(grown.written.length).toBe(whole.written.length);
    expect(new Set(grown.written)).toEqual(new Set(whole.written));
  });

  it('samples memory inside a long timed loop, not only between steps', () => {
    const { ctx } = recorder({ ...TINY, getItem: 300_000 });
    let samples = 0;
    const slowGet = ctx.contender.getItem;
    ctx.contender.getItem = (k) => {
      const until = performance.now() + 0.002;
      while (performance.now() < until);
      return slowGet(k);
    };
    run('get', { ...ctx, sample: () => samples++ });
    expect(samples).toBeGreaterThanOrEqual(5);
  });
});
