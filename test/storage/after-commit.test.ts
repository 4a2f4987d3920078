/**
 * WriteTxn.afterCommit (src/storage/txn.ts): the callback runs once the txn committed, never when
 * it aborts nor for an attempt re-run after the map grew; joined writes run theirs when the group commits.
 */
import { describe, expect, it } from 'vitest';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
const key = (s: string) => new TextEncoder().encode(s);

describe('afterCommit', () => {
  it('runs after the commit, when the committed value is readable, in the order added', () => {
    const store = temp.open();
    const db = store.database('d');
    const seen: string[] = [];
    store.write((txn) => {
      txn.put(db, key('a'), key('1'));
      txn.afterCommit(() => seen.push(`first:${store.read((r) => r.get(db, key('a'))?.length)}`));
      txn.afterCommit(() => seen.push('second'));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['first:1', 'second']);
  });

  it('never runs for an aborted txn, and a throwing callback does not fail the committed write', () => {
    const store = temp.open();
    const db = store.database('d');
    let ran = 0;
    expect(() =>
      store.write((txn) => {
        txn.put(db, key('a'), key('1'));
        txn.afterCommit(() => ran++);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(ran).toBe(0);
    expect(
      store.write((txn) => {
        txn.put(db, key('b'), key('1'));
        txn.afterCommit(() => {
          throw new Error('callback');
        });
        txn.afterCommit(() => ran++);
        return 'done';
      }),
    ).toBe('done');
    expect(ran).toBe(1);
    expect(store.read((r) => r.get(db, key('b'))?.length)).toBe(1);
  });

  it('an attempt re-run after the map grew runs its callbacks once', () => {
    const store = temp.open({ mapSizeBytes: 1 << 20, maxMapSizeBytes: 64 << 20 });
    const db = store.database('d');
    let attempts = 0;
    let ran = 0;
    store.write((txn) => {
      attempts++;
      for (let i = 0; i < 64; i++) txn.put(db, key(`k${i}`), new Uint8Array(64 * 1024));
      txn.afterCommit(() => ran++);
    });
    expect(attempts).toBeGreaterThan(1);
    expect(ran).toBe(1);
  });

  it('writes joined to a group run their callbacks when the group commits', () => {
    const store = temp.open();
    const db = store.database('d');
    const seen: string[] = [];
    store.writeGroup(() => {
      store.write((txn) => {
        txn.put(db, key('a'), key('1'));
        txn.afterCommit(() => seen.push('a'));
      });
      store.write((txn) => {
        txn.put(db, key('b'), key('1'));
        txn.afterCommit(() => seen.push('b'));
      });
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['a', 'b']);
  });

  it('writeAsync: runs once its replay committed, and a write committed on this thread meanwhile runs its callbacks after', async () => {
    const store = temp.open();
    const db = store.database('d');
    const seen: string[] = [];
    let runs = 0;
    const pending = store.writeAsync((txn) => {
      runs++;
      txn.put(db, key('async'), key('1'));
      txn.afterCommit(() => seen.push('async'));
    });
    expect(seen).toEqual([]); // recorded, not committed
    // A synchronous write while the replay is in flight: it commits after the replay (one writer),
    // or makes it conflict and re-run; either way its callback must come in commit order.
    store.write((txn) => {
      txn.put(db, key('sync'), key('1'));
      txn.afterCommit(() => seen.push('sync'));
    });
    await pending;
    expect(seen).toEqual(runs === 1 ? ['async', 'sync'] : ['sync', 'async']);
    expect(seen.filter((s) => s === 'async')).toHaveLength(1);
  });
});
