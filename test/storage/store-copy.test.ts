/**
 * Store.copyTo: LMDB's environment copy, compacted, from one read snapshot, while this process
 * keeps writing; close() during a copy waits for it.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/storage/store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();

const key = (n: number): Uint8Array => Buffer.from(n.toString(16).padStart(8, '0'));

function fill(store: Store, from: number, to: number): void {
  const db = store.database('items');
  store.write((txn) => {
    for (let n = from; n < to; n++) txn.put(db, key(n), Buffer.alloc(300, n % 251));
  });
}

function count(path: string): number {
  const copy = temp.open({ path, readOnly: true });
  return copy.read((txn) => txn.count(copy.database('items')));
}

describe('Store.copyTo', () => {
  it('copies the snapshot taken when it starts, while writes go on, smaller for the free pages left out', async () => {
    const store = temp.open({ path: join(temp.dir(), 'db') });
    fill(store, 0, 3000);
    store.write((txn) => {
      for (let n = 0; n < 1000; n++) txn.delete(store.database('items'), key(n));
    });
    fill(store, 3000, 3500);
    const target = join(temp.dir(), 'copy');
    mkdirSync(target);
    const copying = store.copyTo(target);
    for (let n = 3500; n < 4000; n += 50) fill(store, n, n + 50); // go on writing while it runs
    await copying;
    const copied = count(target);
    expect(copied).toBeGreaterThanOrEqual(2500);
    expect(copied).toBeLessThanOrEqual(3000);
    expect(copied % 50).toBe(0); // whole commits only
    expect(store.read((txn) => txn.count(store.database('items')))).toBe(3000);
    expect(statSync(join(target, 'data.mdb')).size).toBeLessThan(statSync(join(store.path, 'data.mdb')).size);
  });

  it('refuses a target that already holds a data file, and close() waits for a running copy', async () => {
    const store = temp.open({ path: join(temp.dir(), 'db') });
    fill(store, 0, 100);
    const taken = join(temp.dir(), 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'data.mdb'), 'x');
    const failed = await store.copyTo(taken).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(StorageError);
    expect((failed as StorageError).code).toBe('IO');

    const target = join(temp.dir(), 'copy');
    mkdirSync(target);
    const copying = store.copyTo(target);
    store.close();
    await copying;
    expect(count(target)).toBe(100);
  });
});
