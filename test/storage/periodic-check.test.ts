/**
 * The periodic check (storage/periodic-check.ts): its findings reach store-health.ts (read by
 * /metrics), a clean check clears them, one check runs at a time, and it ends with the store.
 */
import { describe, expect, it } from 'vitest';
import { startPeriodicCheck } from '../../src/storage/periodic-check.js';
import { clearDamage, knownDamage } from '../../src/storage/store-health.js';
import type { CheckResult } from '../../src/storage/store-check-report.js';

const damaged: CheckResult = { outcome: 'damaged', databases: [{ name: 't/x/p/0', entries: 1, expectedEntries: 2, damage: [{ page: 9, problem: 'page 9 holds the number of page 0', after: null, before: null }] }] };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startPeriodicCheck', () => {
  it('records damage, clears it after a clean check, never runs two checks at once, stops with the store', async () => {
    const store = { path: '/tmp/edgetable-periodic-test', closed: false };
    clearDamage(store.path);
    const answers: CheckResult[] = [damaged, { outcome: 'clean' }];
    let running = 0;
    let most = 0;
    let calls = 0;
    const check = async (): Promise<CheckResult> => {
      calls += 1;
      most = Math.max(most, ++running);
      await wait(60);
      running -= 1;
      return answers.shift() ?? { outcome: 'clean' };
    };
    startPeriodicCheck(store, 20, check);
    while (knownDamage(store.path) === null) await wait(10);
    expect(knownDamage(store.path)).toBe('t/x/p/0: page 9 holds the number of page 0; 1 of 2 entries readable');
    while (knownDamage(store.path) !== null) await wait(10);
    expect(most).toBe(1);
    store.closed = true;
    await wait(150);
    const after = calls;
    await wait(150);
    expect(calls).toBe(after);
  });

  it('an interval of 0 starts nothing', async () => {
    let calls = 0;
    startPeriodicCheck({ path: '/tmp/x', closed: false }, 0, async () => ((calls += 1), { outcome: 'clean' }));
    await wait(50);
    expect(calls).toBe(0);
  });
});
