import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/storage/storage-error.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
const MIB = 1024 * 1024;

function key(i: number): Uint8Array {
  const k = new Uint8Array(4);
  new DataView(k.buffer).setUint32(0, i);
  return k;
}

describe('Store: automatic map growth', () => {
  it('grows a 1 MiB map to hold 20 MB, re-running write fns from the start', () => {
    const store = temp.open({ mapSizeBytes: MIB, maxMapSizeBytes: 256 * MIB });
    const db = store.database('d');
    const value = new Uint8Array(10_000).fill(7);
    let runs = 0;
    for (let batch = 0; batch < 20; batch += 1) {
      store.write((txn) => {
        runs += 1;
        for (let i = 0; i < 100; i += 1) txn.put(db, key(batch * 100 + i), value);
      });
    }
    expect(runs).toBeGreaterThan(20); // some batches hit MAP_FULL and were re-run
    expect(store.stats().mapSizeBytes).toBeGreaterThanOrEqual(20 * MIB);
    store.read((txn) => {
      expect(txn.count(db)).toBe(2000);
      expect(txn.get(db, key(1999))?.length).toBe(10_000);
    });
  });

  it('one write larger than twice the map grows repeatedly', () => {
    const store = temp.open({ mapSizeBytes: MIB, maxMapSizeBytes: 64 * MIB });
    const db = store.database('d');
    store.write((txn) => {
      for (let i = 0; i < 800; i += 1) txn.put(db, key(i), new Uint8Array(10_000));
    });
    expect(store.read((txn) => txn.count(db))).toBe(800);
  });

  it('past the cap throws MAP_FULL, writes nothing of that txn, and keeps earlier commits', () => {
    const store = temp.open({ mapSizeBytes: MIB, maxMapSizeBytes: 2 * MIB });
    const db = store.database('d');
    const value = new Uint8Array(1000).fill(1);
    store.write((txn) => {
      for (let i = 0; i < 100; i += 1) txn.put(db, key(i), value);
    });
    let error: unknown;
    try {
      store.write((txn) => {
        for (let i = 100; i < 10_000; i += 1) txn.put(db, key(i), value);
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('MAP_FULL');
    expect((error as StorageError).message).toMatch(/maxMapSizeBytes/);
    store.read((txn) => {
      expect(txn.count(db)).toBe(100);
      expect(txn.get(db, key(100))).toBeUndefined();
    });
    // Still usable for writes that fit.
    store.write((txn) => txn.put(db, key(100), value));
    expect(store.read((txn) => txn.count(db))).toBe(101);
  });

  it('a write fn that swallows the MAP_FULL error is still re-run, not committed half-done', () => {
    const store = temp.open({ mapSizeBytes: MIB, maxMapSizeBytes: 16 * MIB });
    const db = store.database('d');
    const seen: number[] = [];
    store.write((txn) => {
      let written = 0;
      try {
        for (let i = 0; i < 300; i += 1) {
          txn.put(db, key(i), new Uint8Array(10_000));
          written += 1;
        }
      } catch {
        // ignored on purpose
      }
      seen.push(written);
    });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe(300);
    expect(store.read((txn) => txn.count(db))).toBe(300);
  });
});
