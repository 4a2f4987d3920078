/**
 * Every durability under faults at seeded random points (a disk that errors or fills now and
 * then): synchronous writes and writeAsync writes (db.promises' path: a worker's replay, or in
 * 'log' the logged apply) interleaved, puts and commits failing, and in 'log' also the log's
 * flushes and data.mdb's checkpoint flushes, with checkpoints frequent. Whatever failed and
 * recovered meanwhile:
 * - every write acknowledged is there after a reopen, and no write that failed is;
 * - a copy of the folder taken while the store is open, opened as after a reboot, holds every
 *   acknowledged write too (in 'log': the last checkpoint's meta page written back and the log
 *   replayed, so the log alone recovers them).
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import type { Store } from '../../src/storage/store.js';
import type { Durability } from '../../src/storage/store-options.js';
import { createRng, seedList } from '../reliability/harness/rng.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
afterEach(() => {
  delete process.env.EDGETABLE_TEST_BOOT_ID;
});

const key = (i: number): Buffer => Buffer.from(`key-${String(i).padStart(6, '0')}`);
const value = (i: number): Buffer => Buffer.alloc(100 + (i % 300), i % 251);

type Outcome = 'acked' | 'failed';

/** Runs the seeded workload; returns each write's outcome by index, and a copy of the folder taken before close. */
async function run(durability: Durability, seed: number, path: string, copyTo: string): Promise<Map<number, Outcome>> {
  const rng = createRng(seed);
  const faults = new FaultInjector();
  const store = temp.open({ path, durability, faults, checkpoint: { commits: 1 + rng.int(6), bytes: 1 << 30, pages: 1 << 30 } });
  const items = store.database('items');
  const outcomes = new Map<number, Outcome>();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < 160; i++) {
    if (rng.chance(0.04)) faults.failPutAt = faults.puts + 1 + rng.int(3);
    if (rng.chance(0.04)) faults.failCommitAt = faults.commits + 1 + rng.int(3);
    if (durability === 'log' && rng.chance(0.06)) faults.failLogFlushAt = faults.logFlushes + 1 + rng.int(3);
    if (durability === 'log' && rng.chance(0.04)) faults.failDataFlushAt = faults.dataFlushes + 1 + rng.int(2);
    const put = (txn: Parameters<Parameters<Store['write']>[0]>[0]): void => txn.put(items, key(i), value(i));
    if (rng.chance(0.5)) {
      try {
        store.write(put);
        outcomes.set(i, 'acked');
      } catch {
        outcomes.set(i, 'failed');
      }
    } else {
      pending.push(store.writeAsync(put).then(() => void outcomes.set(i, 'acked'), () => void outcomes.set(i, 'failed')));
    }
    if (rng.chance(0.3)) await new Promise((resolve) => setImmediate(resolve)); // checkpoints and flushes on the pool finish
    if (rng.chance(0.1)) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  // One more write after the last fault has had its turn: a failure must not outlive the next write.
  faults.failPutAt = undefined;
  faults.failCommitAt = undefined;
  faults.failLogFlushAt = undefined;
  faults.failDataFlushAt = undefined;
  store.write((txn) => txn.put(items, key(1_000_000), value(0)));
  // The folder as a power cut right now would leave it in this boot (the page cache whole).
  mkdirSync(copyTo, { recursive: true });
  for (const name of readdirSync(path)) if (name !== 'lock.mdb') copyFileSync(join(path, name), join(copyTo, name));
  store.close();
  return outcomes;
}

function check(store: Store, outcomes: Map<number, Outcome>, failedMayBeThere: boolean): void {
  const items = store.database('items');
  store.read((txn) => {
    for (const [i, outcome] of outcomes) {
      const stored = txn.get(items, key(i));
      if (outcome === 'acked') expect(stored && Buffer.from(stored).equals(value(i)), `acknowledged write ${i}`).toBe(true);
      else if (!failedMayBeThere) expect(stored, `failed write ${i}`).toBeUndefined();
    }
    expect(txn.get(items, key(1_000_000))).toBeDefined();
  });
}

// 12 seeds per durability by default; RANDOM_FAULT_SEEDS=1-300 (a range or a list) for a longer run.
describe.each(['sync', 'relaxed', 'log'] as const)("durability '%s' with faults at random", (durability) => {
  for (const seed of seedList(process.env.RANDOM_FAULT_SEEDS ?? '1-12')) {
    it(`seed ${seed}: every acknowledged write survives a reopen and a restart; no failed write survives the reopen`, async () => {
      const dir = temp.dir();
      const path = join(dir, 'db');
      const copy = join(dir, 'after-power-cut');
      const outcomes = await run(durability, seed, path, copy);
      expect([...outcomes.values()]).toContain('failed'); // the seed did inject failures

      check(temp.open({ path, durability: 'sync' }), outcomes, false);

      // A reboot: the copy's checkpoint meta page is written back and its log replayed. A write
      // that failed may come back (its record may have reached the disk though its flush failed).
      process.env.EDGETABLE_TEST_BOOT_ID = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
      check(temp.open({ path: copy, durability: 'sync' }), outcomes, true);
    });
  }
});
