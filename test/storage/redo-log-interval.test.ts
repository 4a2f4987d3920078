/**
 * Durability 'interval' (store-options.ts, deferred-flush.ts): the redo log of 'log' with its flush
 * deferred up to syncIntervalMs after a write. What a power cut loses is proven by the power-cut
 * harness (test/reliability/power-cut.test.ts); here: when the flush comes, what sync() and close()
 * do, and that a process crash loses nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/storage/store.js';
import { tempStores } from './fixtures/temp-stores.js';

const writer = fileURLToPath(new URL('./fixtures/redo-writer.ts', import.meta.url));
const NO_CHECKPOINTS = { commits: 1e9, bytes: 1e12, pages: 1e9 };
const { folder, open, close } = tempStores('edgetable-interval-', { durability: 'interval', checkpoint: NO_CHECKPOINTS });
const key = (i: number): Buffer => Buffer.from(`key-${String(i).padStart(6, '0')}`);
const value = (i: number): Buffer => Buffer.alloc(200 + (i % 50), i % 251);

function put(store: Store, from: number, to: number): void {
  const items = store.database('items');
  for (let i = from; i < to; i++) store.write((txn) => txn.put(items, key(i), value(i)));
}

function expectItems(store: Store, count: number): void {
  const items = store.database('items');
  store.read((txn) => {
    for (let i = 0; i < count; i++) expect(Buffer.from(txn.get(items, key(i)) ?? []).equals(value(i)), `key ${i}`).toBe(true);
    expect(txn.count(items)).toBe(count);
  });
}

async function within(ms: number, cond: () => boolean): Promise<number> {
  const started = performance.now();
  while (!cond()) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

describe("durability 'interval'", () => {
  it('commits a write without a flush; the log is flushed once, within syncIntervalMs, for every write before it', async () => {
    const store = open(folder(), { syncIntervalMs: 200 });
    store.database('items');
    const before = store.flushCount;
    put(store, 0, 50);
    expect(store.flushCount - before).toBe(0);
    expect(store.hasUnflushedCommits).toBe(true);
    expectItems(store, 50); // readable at once
    const waited = await within(2000, () => !store.hasUnflushedCommits);
    expect(waited).toBeGreaterThan(100); // the timer's, not an earlier flush
    expect(store.flushCount - before).toBe(1);
  });

  it("tells Store.onFlush (metrics/) each deferred flush as a 'flush', and each commit as a 'commit'", async () => {
    const store = open(folder(), { syncIntervalMs: 50 });
    store.database('items');
    const told: string[] = [];
    store.onFlush = (kind, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      told.push(kind);
    };
    put(store, 0, 3);
    await within(2000, () => told.includes('flush'));
    expect(told.filter((k) => k === 'commit')).toHaveLength(3);
    expect(told.filter((k) => k === 'flush')).toHaveLength(1);
  });

  it('sync() flushes at once; close() leaves the whole store in data.mdb and removes the log', async () => {
    const path = folder();
    const store = open(path, { syncIntervalMs: 600_000 });
    put(store, 0, 20);
    expect(store.hasUnflushedCommits).toBe(true);
    await store.sync();
    expect(store.hasUnflushedCommits).toBe(false);
    put(store, 20, 30);
    close(store);
    expect(readdirSync(path).filter((name) => name.startsWith('redo-'))).toEqual([]);
    expectItems(open(path, { durability: 'sync' }), 30);
  });

  it('a loop that never yields still starts a flush once the interval has passed since the first unflushed write', () => {
    const store = open(folder(), { syncIntervalMs: 20 });
    store.database('items');
    const before = store.flushCount;
    const started = performance.now();
    let i = 0;
    while (performance.now() - started < 150) put(store, i, ++i);
    // One flush per interval, at least, though the timer never had a turn to fire.
    expect(store.flushCount - before).toBeGreaterThanOrEqual(3);
    expect(store.flushCount - before).toBeLessThanOrEqual(150 / 20 + 1);
  });

  it('with logWritesPerCommit: held writes, read through the held txn, all there after a reopen', () => {
    const path = folder();
    const store = open(path, { logWritesPerCommit: 16 });
    put(store, 0, 40);
    expectItems(store, 40);
    close(store);
    expectItems(open(path), 40);
  });

  it('a process killed without closing loses no acknowledged write (the page cache holds the log), unflushed and held ones included', () => {
    for (const held of ['1', '8']) {
      const path = folder();
      const run = spawnSync(process.execPath, ['--import', 'tsx', writer, path, 'write', '60', '1000'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, REDO_DURABILITY: 'interval', REDO_WRITES_PER_COMMIT: held } });
      expect(run.signal, run.stderr).toBe('SIGKILL');
      expect(run.stdout.split('\n').filter((l) => l.startsWith('acked ')).length).toBe(60);
      expect(existsSync(path)).toBe(true);
      const store = open(path);
      expectItems(store, 60);
      close(store);
    }
  });

  it('refuses a syncIntervalMs that is not a positive number of milliseconds, before the folder is touched', () => {
    const path = folder();
    for (const syncIntervalMs of [0, -5, Number.NaN, 2 ** 31]) {
      expect(() => Store.open({ path, durability: 'interval', syncIntervalMs })).toThrow(/syncIntervalMs .* must be a number of milliseconds above 0/);
    }
    expect(existsSync(path)).toBe(false);
  });
});
