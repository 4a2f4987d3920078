/**
 * Store.released() and db.promises.close(): close() returns while work on the thread pool (a
 * flush, a copy) still holds descriptors of the folder; released() resolves once none is left,
 * so the folder's file system can be unmounted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open as openEdgetable } from '../../src/edgetable.js';
import { tempStores } from './fixtures/temp-stores.js';

const { folder, open } = tempStores('edgetable-released-');

/** This process's open descriptors of files in `dir` (deleted ones included). */
function descriptorsIn(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) held.push(target);
    } catch {
      /* closed while listing (the listing's own descriptor) */
    }
  }
  return held;
}

describe.runIf(process.platform === 'linux')('released() after close()', () => {
  it("'sync': a sync() still flushing keeps data.mdb open after close(); released() resolves once it is closed", async () => {
    const path = folder();
    const store = open(path);
    const items = store.database('items');
    store.write((txn) => txn.put(items, Buffer.from('k'), Buffer.from('v')));
    const flushed = store.sync(); // the flush cannot report before this turn ends
    store.close();
    expect(descriptorsIn(path)).toEqual([join(path, 'data.mdb')]);
    await store.released();
    expect(descriptorsIn(path)).toEqual([]);
    await flushed;
  });

  it("'log': a checkpoint's data.mdb flush in flight keeps its descriptor after close(); released() resolves once it is closed", async () => {
    const path = folder();
    // A checkpoint on the thread pool after every commit.
    const store = open(path, { durability: 'log', checkpoint: { commits: 1, bytes: 2 ** 30, pages: 2 ** 30 } });
    const items = store.database('items');
    store.write((txn) => txn.put(items, Buffer.from('k'), Buffer.from('v')));
    store.close();
    expect(descriptorsIn(path)).toEqual([join(path, 'data.mdb')]);
    await store.released();
    expect(descriptorsIn(path)).toEqual([]);
  });

  it('a copy in flight keeps the native env (data.mdb, lock.mdb) open after close(); released() waits for it', async () => {
    const path = folder();
    const store = open(path);
    const items = store.database('items');
    store.write((txn) => {
      for (let i = 0; i < 2_000; i++) txn.put(items, Buffer.from(`key-${i}`), Buffer.alloc(500, i % 251));
    });
    const target = folder();
    mkdirSync(target);
    const copied = store.copyTo(target);
    store.close();
    expect(descriptorsIn(path).length).toBeGreaterThan(0);
    await store.released();
    expect(descriptorsIn(path)).toEqual([]);
    await copied;
  });

  it('refuses while the store is open', async () => {
    const store = open(folder());
    await expect(store.released()).rejects.toThrow(/is open: released\(\) waits for a closed store/);
  });
});

describe.runIf(process.platform === 'linux')('db.promises.close()', () => {
  it.each(['sync', 'log'] as const)("durability '%s': commits the queued writes and resolves with no descriptor of the folder left", async (durability) => {
    const path = folder();
    // 'log': a checkpoint on the thread pool after every commit; 'sync': a sync() in flight (below).
    const db = openEdgetable({ path, durability, checkpoint: { commits: 1, bytes: 2 ** 30, pages: 2 ** 30 } });
    await db.promises.createTable({ TableName: 'Things', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    const puts = Array.from({ length: 20 }, (_, i) => db.promises.putItem({ TableName: 'Things', Item: { pk: { S: `k${i}` } } }));
    const flushed = db.store.sync();
    await db.promises.close();
    expect(descriptorsIn(path)).toEqual([]);
    await Promise.all([flushed, ...puts]);
    const again = openEdgetable({ path, readOnly: true });
    try {
      expect(again.describeTable({ TableName: 'Things' }).Table.ItemCount).toBe(20);
    } finally {
      again.close();
    }
  });
});

/** Mounts a small tmpfs at `dir` (root only); false when this machine does not allow it. */
function mountTmpfs(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', dir], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const unmount = (dir: string): string => {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return 'unmounted';
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err);
  }
};

describe.runIf(process.platform === 'linux')('unmounting the store\'s file system', () => {
  it("'log', a checkpoint in flight: umount right after db.close() is refused as busy; after db.promises.close() it succeeds", async (ctx) => {
    const card = join(folder(), 'card');
    if (!mountTmpfs(card)) {
      console.warn('unmount test skipped: mounting a tmpfs needs root and a mount-capable container');
      ctx.skip();
    }
    ctx.onTestFinished(() => {
      if (readFileSync('/proc/mounts', 'utf8').includes(` ${card} `)) execFileSync('umount', ['-l', card], { stdio: 'pipe' });
    });
    const create = { TableName: 'Things', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }], BillingMode: 'PAY_PER_REQUEST' as const };
    const checkpoint = { commits: 1, bytes: 2 ** 30, pages: 2 ** 30 };
    const first = openEdgetable({ path: join(card, 'db'), durability: 'log', checkpoint });
    first.createTable(create);
    first.putItem({ TableName: 'Things', Item: { pk: { S: 'a' } } }); // its checkpoint goes to the thread pool
    first.close();
    const refused = unmount(card); // synchronous: the checkpoint's flush cannot report meanwhile
    await first.store.released();
    if (refused !== 'unmounted') expect(unmount(card)).toBe('unmounted');
    expect(refused).toMatch(/busy/i);

    expect(mountTmpfs(card)).toBe(true);
    const second = openEdgetable({ path: join(card, 'db'), durability: 'log', checkpoint });
    second.createTable(create);
    second.putItem({ TableName: 'Things', Item: { pk: { S: 'a' } } });
    await second.promises.close();
    expect(unmount(card)).toBe('unmounted');
  });
});
