/**
 * Durability 'log' with logWritesPerCommit > 1 (held-txn.ts): logged writes share one
 * LMDB txn that commits after that many writes or when the event loop turns; each write is
 * durable by its log record when it returns.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { roomToHold } from '../../src/storage/held-writes.js';
import { HELD_MAX_PAYLOAD_BYTES, Store } from '../../src/storage/store.js';
import { tempStores } from './fixtures/temp-stores.js';

const writer = fileURLToPath(new URL('./fixtures/redo-writer.ts', import.meta.url));
const { folder, open, close } = tempStores('edgetable-redo-held-', { durability: 'log', logWritesPerCommit: 50 });
const key = (i: number): Buffer => Buffer.from(`key-${String(i).padStart(6, '0')}`);
const value = (i: number): Buffer => Buffer.alloc(200 + (i % 50), i % 251);
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
setFlagsFromString('--expose-gc');
// V8 frees the backing stores of dead ArrayBuffers on a background thread after a collection, so
// the count read right after one could still include them (seen: 6-9 MB in 1 of 6 runs).
setFlagsFromString('--no-concurrent-array-buffer-sweeping');
const collectGarbage = runInNewContext('gc') as () => void;

/** ArrayBuffer bytes still reachable after a full collection. */
function liveArrayBufferBytes(): number {
  // The second collection begins by finishing the first one's sweep, whatever the flag does.
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
}

/** What another process reading the folder sees: the count of 'items'. */
function countInAnotherProcess(path: string): number {
  const script = `
    import { Store } from ${JSON.stringify(fileURLToPath(new URL('../../src/storage/store.ts', import.meta.url)))};
    const store = Store.open({ path: ${JSON.stringify(path)}, readOnly: true });
    process.stdout.write(String(store.hasDatabase('items') ? store.read((txn) => txn.count(store.database('items'))) : 0));
    store.close();`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  return Number(run.stdout);
}

function expectItems(store: Store, count: number, absent: readonly number[] = []): void {
  const items = store.database('items');
  store.read((txn) => {
    for (let i = 0; i < count + absent.length; i++) {
      const got = txn.get(items, key(i));
      if (absent.includes(i)) expect(got, `key ${i}`).toBeUndefined();
      else expect(Buffer.from(got ?? []).equals(value(i)), `key ${i}`).toBe(true);
    }
    expect(txn.count(items)).toBe(count);
  });
}

describe("durability 'log' with held writes", () => {
  it('refuses a logWritesPerCommit that is not a whole number of 1 or more', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => open(folder(), { logWritesPerCommit: bad })).toThrow(/logWritesPerCommit .* must be a whole number of 1 or more/);
  });

  it('makes each write durable by one log flush, shows it to this process at once, and to others once LMDB commits', async () => {
    const path = folder();
    const store = open(path);
    const items = store.database('items');
    await turn(); // the database's creation committed
    const flushes = store.flushCount;
    for (let i = 0; i < 20; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    expect(store.flushCount - flushes).toBe(20);
    expectItems(store, 20);
    expect(countInAnotherProcess(path)).toBe(0); // held: this turn has not ended
    await turn();
    expect(countInAnotherProcess(path)).toBe(20);
  });

  it('commits after logWritesPerCommit writes without waiting for the event loop', () => {
    const path = folder();
    const store = open(path, { logWritesPerCommit: 10 });
    const items = store.database('items');
    for (let i = 0; i < 25; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    // 1 (the database) + 9 writes, then 10: 20 committed; 5 held.
    expect(countInAnotherProcess(path)).toBe(19);
  });

  it('commits once the held records reach HELD_MAX_PAYLOAD_BYTES, however few writes that is: LMDB keeps every dirtied page in memory until then', () => {
    const path = folder();
    const store = open(path, { logWritesPerCommit: 400 });
    const items = store.database('items');
    const big = Buffer.alloc(64 * 1024, 9);
    for (let i = 0; i < 100; i++) store.write((txn) => txn.put(items, key(i), big));
    // Without the bound all 100 would still be held (fewer than 400, no turn). With it, the txn
    // committed when its records reached 4 MiB: with the 64th of these writes (a record is its
    // value and a few bytes more), the database's creation held before them.
    expect(countInAnotherProcess(path)).toBe(Math.ceil(HELD_MAX_PAYLOAD_BYTES / big.length));
  });

  it('a loop that never yields keeps only the writes its open txn holds in memory, however many txns it commits', () => {
    const store = open(folder(), { logWritesPerCommit: 2 });
    const items = store.database('items');
    const big = Buffer.alloc(8 * 1024, 7);
    const before = liveArrayBufferBytes();
    // 2,000 txns of 2 writes: 32 MB of payloads if each committed txn stayed reachable until the loop yields.
    for (let i = 0; i < 4_000; i++) store.write((txn) => txn.put(items, key(i), big));
    expect(liveArrayBufferBytes() - before).toBeLessThan(4 * 2 ** 20);
  });

  it('a write that throws inside the held txn leaves nothing, and the writes held before it stay', () => {
    const store = open(folder());
    const items = store.database('items');
    for (let i = 0; i < 5; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    expect(() =>
      store.write((txn) => {
        txn.put(items, key(5), value(5));
        throw new Error('refused after a put');
      }),
    ).toThrow('refused after a put');
    expectItems(store, 5, [5]);
    for (let i = 6; i < 10; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    const path = store.path;
    close(store);
    expectItems(open(path, { durability: 'sync' }), 9, [5]);
  });

  it('grows the map when a held write finds it full, and keeps every write', () => {
    const store = open(folder(), { mapSizeBytes: 128 * 1024, logWritesPerCommit: 1000 });
    const items = store.database('items');
    for (let i = 0; i < 2000; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    expect(store.stats().mapSizeBytes).toBeGreaterThan(128 * 1024);
    expectItems(store, 2000);
  });

  it('commits the held txn once another write would leave the map short of room, however many writes the count allows', () => {
    const faults = new FaultInjector();
    const store = open(folder(), { mapSizeBytes: 4 * 2 ** 20, maxMapSizeBytes: 4 * 2 ** 20, logWritesPerCommit: 100_000, faults });
    const mapSize = store.stats().mapSizeBytes;
    const items = store.database('items');
    const writes = 600;
    for (let i = 0; i < writes; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    // No turn of the event loop and a count never reached: only the room check commits the held txn.
    expect(faults.heldCommits).toBeGreaterThanOrEqual(2);
    expect(store.stats().mapSizeBytes).toBe(mapSize);
    expectItems(store, writes);
  });

  it('a store reopened with a map smaller than its data holds writes again: the map grows to room for a full held txn first', () => {
    const path = folder();
    const loaded = open(path, { durability: 'sync', mapSizeBytes: 2 ** 20 });
    const items = loaded.database('items');
    for (let i = 0; i < 40; i++) loaded.write((txn) => { for (let j = 0; j < 25; j++) txn.put(items, key(i * 25 + j), Buffer.alloc(400, j)); });
    close(loaded);
    // LMDB opens it with a map as large as its data and nothing beyond: every write committed unheld.
    const store = open(path, { mapSizeBytes: 2 ** 20, logWritesPerCommit: 50 });
    const before = store.stats().commits;
    for (let i = 0; i < 200; i++) store.write((txn) => txn.put(items, key(10_000 + i), value(i)));
    expect(store.stats().commits - before).toBeLessThanOrEqual(200 / 50);
    const { mapSizeBytes, usedBytes, pageSize } = store.stats();
    expect(mapSizeBytes - usedBytes).toBeGreaterThan(roomToHold(50) * pageSize - 200 * 8 * pageSize);
  });

  it('a map that cannot be made room in now fails no write, and is tried again only a second later (each try may cost a checkpoint)', async () => {
    const store = open(folder(), { logWritesPerCommit: 10 });
    const env = (store as unknown as { environment: { makeRoom(pages: number): void } }).environment;
    let tries = 0;
    env.makeRoom = () => {
      tries += 1;
      throw new Error('the map cannot be resized now');
    };
    const items = store.database('items');
    for (let i = 0; i < 300; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    expect(tries).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let i = 300; i < 320; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    expect(tries).toBe(2);
    expectItems(store, 320);
  });

  it('measures the room anew for each held txn: writes that fill the map over many held txns grow it, and none is lost', () => {
    const faults = new FaultInjector();
    const store = open(folder(), { mapSizeBytes: 2 * 2 ** 20, maxMapSizeBytes: 16 * 2 ** 20, logWritesPerCommit: 100_000, faults });
    const mapSize = store.stats().mapSizeBytes;
    const items = store.database('items');
    const big = (i: number): Buffer => Buffer.alloc(3000, i % 251);
    const writes = 1500;
    for (let i = 0; i < writes; i++) store.write((txn) => txn.put(items, key(i), big(i)));
    expect(faults.heldCommits).toBeGreaterThanOrEqual(2);
    expect(store.stats().mapSizeBytes).toBeGreaterThan(mapSize);
    store.read((txn) => {
      for (let i = 0; i < writes; i++) expect(Buffer.from(txn.get(items, key(i)) ?? []).equals(big(i)), `key ${i}`).toBe(true);
    });
  });

  it('a failed log flush fails that write alone; the writes held before it stay, and the store goes on', () => {
    const path = folder();
    const faults = new FaultInjector();
    const store = open(path, { faults });
    const items = store.database('items');
    for (let i = 0; i < 5; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    faults.failLogFlushAt = faults.logFlushes + 1;
    expect(() => store.write((txn) => txn.put(items, key(5), value(5)))).toThrow(/injected fault: log flush/);
    expectItems(store, 5, [5]);
    for (let i = 6; i < 10; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    close(store);
    expectItems(open(path, { durability: 'sync' }), 9, [5]);
  });

  it('a held txn whose commit fails is applied again from its writes\' log records and committed; the store goes on', () => {
    const path = folder();
    const faults = new FaultInjector();
    faults.failHeldCommitAt = 1;
    const store = open(path, { faults });
    const items = store.database('items');
    // The database's creation and 49 writes are held; the 50th write commits them, and that fails.
    for (let i = 0; i < 120; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    expect(faults.heldCommits).toBe(2);
    expectItems(store, 120);
    expect(countInAnotherProcess(path)).toBe(99); // committed: 49 applied again (with the database's creation), then 50 more
    close(store);
    expectItems(open(path, { durability: 'sync' }), 120);
  });

  it('copies, reports and closes with the held writes in data.mdb', async () => {
    const path = folder();
    const store = open(path);
    const items = store.database('items');
    for (let i = 0; i < 12; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    const copy = folder();
    mkdirSync(copy, { recursive: true });
    await store.copyTo(copy);
    const copied = open(copy, { readOnly: true, durability: 'sync' });
    expect(copied.read((txn) => txn.count(copied.database('items')))).toBe(12);
    for (let i = 12; i < 15; i++) store.write((txn) => txn.put(items, key(i), value(i)));
    store.stats();
    expect(countInAnotherProcess(path)).toBe(15);
    close(store);
    expect(readdirSync(path).filter((name) => name.startsWith('redo-'))).toEqual([]);
  });

  it('after a killed writer: every acknowledged write is recovered, held ones included', () => {
    const path = folder();
    const run = spawnSync(process.execPath, ['--import', 'tsx', writer, path, 'write', '137', '4'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, REDO_WRITES_PER_COMMIT: '40', REDO_MAP_BYTES: String(16 << 20) },
    });
    expect(run.signal, run.stderr).toBe('SIGKILL');
    const acked = run.stdout.split('\n').filter((l) => l.startsWith('acked ')).length;
    expect(acked).toBe(137);
    // What LMDB had committed when the writer died (read-only, same boot: no recovery): the held writes are not there.
    const before = Store.open({ path, readOnly: true });
    const committed = before.read((txn) => txn.count(before.database('items')));
    before.close();
    expect(committed).toBeLessThan(137);
    process.env.EDGETABLE_TEST_BOOT_ID = 'cccccccccccccccccccccccccccccccc'; // and as after a restart
    expectItems(open(path, { durability: 'sync' }), 137);
  });

  it('under a full disk fails the writes that find no space, keeps every acknowledged one, and goes on by itself once there is space again', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-held-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'ignore' });
    } catch {
      rmSync(dir, { recursive: true, force: true });
      ctx.skip('mounting a tmpfs is not permitted here (needs root): the full-disk test did not run');
      return;
    }
    const opened: Store[] = [];
    try {
      const path = join(dir, 'db');
      const store = Store.open({ path, durability: 'log', logWritesPerCommit: 20, mapSizeBytes: 8 * 1024 * 1024 });
      opened.push(store);
      const items = store.database('items');
      for (let i = 0; i < 20; i++) store.write((txn) => txn.put(items, key(i), value(i)));
      const filler = join(dir, 'filler');
      const fd = openSync(filler, 'w');
      try {
        for (;;) writeSync(fd, Buffer.alloc(64 * 1024));
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        closeSync(fd);
      }
      const acked: number[] = [];
      let failures = 0;
      for (let i = 20; i < 400 && failures < 20; i++) {
        try {
          store.write((txn) => txn.put(items, key(i), Buffer.alloc(3000, i % 251)));
          acked.push(i);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          failures += 1;
        }
        if (i % 7 === 0) await turn(); // the held txn commits when the event loop turns
      }
      expect(failures).toBeGreaterThan(0);
      expect(store.closed).toBe(false);
      rmSync(filler);
      await turn();
      for (let i = 1000; i < 1010; i++) store.write((txn) => txn.put(items, key(i), value(i)));
      const check = (s: Store): void => {
        const db = s.database('items');
        s.read((txn) => {
          for (let i = 0; i < 20; i++) expect(Buffer.from(txn.get(db, key(i)) ?? []).equals(value(i)), `key ${i}`).toBe(true);
          for (const i of acked) expect(Buffer.from(txn.get(db, key(i)) ?? []).equals(Buffer.alloc(3000, i % 251)), `acknowledged key ${i}`).toBe(true);
          for (let i = 1000; i < 1010; i++) expect(Buffer.from(txn.get(db, key(i)) ?? []).equals(value(i)), `key ${i}`).toBe(true);
        });
      };
      check(store);
      store.close();
      const again = Store.open({ path, durability: 'log' });
      opened.push(again);
      check(again);
    } finally {
      for (const store of opened) if (!store.closed) store.close();
      await new Promise((resolve) => setTimeout(resolve, 200)); // a checkpoint's flush in flight releases data.mdb when it reports
      execFileSync('umount', ['--lazy', dir]); // lazy: a store a failed test left open must not hide its failure
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
