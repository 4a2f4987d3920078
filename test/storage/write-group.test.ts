import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { hex, text, useTempStores } from './temp-store.js';

const temp = useTempStores();
const MIB = 1024 * 1024;

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof StorageError ? e.code : `not a StorageError: ${String(e)}`;
  }
  return undefined;
}

describe('Store.writeGroup', () => {
  it('writes made inside join the group txn and commit once', () => {
    const store = temp.open();
    const db = store.database('d');
    const before = store.stats().commits;
    const results = store.writeGroup(() => {
      const a = store.write((txn) => {
        txn.put(db, text('a'), text('1'));
        return 'A';
      });
      // a later joined write sees the earlier one's put, as if it had committed
      const b = store.write((txn) => hex(txn.get(db, text('a'))));
      store.write((txn) => txn.put(db, text('b'), text('2')));
      return [a, b];
    });
    expect(results).toEqual(['A', hex(text('1'))]);
    expect(store.stats().commits - before).toBe(1);
    expect(store.stats().joinedWrites).toBe(3);
    store.read((txn) => expect(txn.count(db)).toBe(2));
  });

  it('a joined write that throws before writing leaves the others to commit', () => {
    const store = temp.open();
    const db = store.database('d');
    store.writeGroup(() => {
      store.write((txn) => txn.put(db, text('a'), text('1')));
      expect(() =>
        store.write(() => {
          throw new Error('condition failed');
        }),
      ).toThrow('condition failed');
      store.write((txn) => txn.put(db, text('c'), text('3')));
    });
    store.read((txn) => {
      expect(hex(txn.get(db, text('a')))).toBe(hex(text('1')));
      expect(hex(txn.get(db, text('c')))).toBe(hex(text('3')));
    });
  });

  it('a joined write that throws after writing aborts the whole group with BUSY', () => {
    const store = temp.open();
    const db = store.database('d');
    const inner = new Error('late failure');
    let thrown: unknown;
    try {
      store.writeGroup(() => {
        store.write((txn) => txn.put(db, text('a'), text('1')));
        try {
          store.write((txn) => {
            txn.put(db, text('b'), text('2'));
            throw inner;
          });
        } catch {
          // the group fn swallows it; the store must still refuse to commit the half write
        }
      });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(StorageError);
    expect((thrown as StorageError).code).toBe('BUSY');
    expect((thrown as StorageError).cause).toBe(inner);
    store.read((txn) => expect(txn.count(db)).toBe(0));
  });

  it('a storage fault in one joined write aborts the group even if fn catches it', () => {
    const faults = new FaultInjector();
    const store = temp.open({ faults });
    const db = store.database('d');
    faults.failPutAt = faults.puts + 2;
    const failure = code(() =>
      store.writeGroup(() => {
        store.write((txn) => txn.put(db, text('a'), text('1')));
        try {
          store.write((txn) => txn.put(db, text('b'), text('2')));
        } catch {
          // swallowed on purpose
        }
      }),
    );
    expect(failure).toBe('IO');
    store.read((txn) => expect(txn.count(db)).toBe(0));
  });

  it('a failed group commit writes nothing', () => {
    const faults = new FaultInjector();
    const store = temp.open({ faults });
    const db = store.database('d');
    faults.failCommitAt = faults.commits + 1;
    expect(
      code(() =>
        store.writeGroup(() => {
          store.write((txn) => txn.put(db, text('a'), text('1')));
          store.write((txn) => txn.put(db, text('b'), text('2')));
        }),
      ),
    ).toBe('IO');
    store.read((txn) => expect(txn.count(db)).toBe(0));
  });

  it('map growth re-runs the whole group fn, joined writes included', () => {
    const store = temp.open({ mapSizeBytes: MIB, maxMapSizeBytes: 64 * MIB });
    const db = store.database('d');
    const value = new Uint8Array(10_000).fill(1);
    let groupRuns = 0;
    let innerRuns = 0;
    const commits = store.stats().commits;
    store.writeGroup(() => {
      groupRuns += 1;
      for (let w = 0; w < 30; w += 1) {
        store.write((txn) => {
          innerRuns += 1;
          for (let i = 0; i < 10; i += 1) txn.put(db, text(`k${w}-${i}`), value);
        });
      }
    });
    expect(groupRuns).toBeGreaterThan(1);
    expect(innerRuns).toBeGreaterThan(30); // the failed runs stopped at the write that hit MAP_FULL
    expect(store.stats().commits - commits).toBe(1);
    store.read((txn) => expect(txn.count(db)).toBe(300));
  });

  it('keeps the nesting rules outside groups', () => {
    const store = temp.open();
    const db = store.database('d');
    expect(code(() => store.write(() => store.write(() => 1)))).toBe('BUSY');
    expect(code(() => store.write(() => store.writeGroup(() => 1)))).toBe('BUSY');
    expect(code(() => store.read(() => store.writeGroup(() => 1)))).toBe('BUSY');
    expect(code(() => store.writeGroup(() => store.read(() => store.write(() => 1))))).toBeUndefined();
    // a group inside a group joins it
    store.writeGroup(() => store.writeGroup((txn) => txn.put(db, text('x'), text('y'))));
    expect(store.read((txn) => txn.count(db))).toBe(1);
    // after a group, write() commits on its own again
    const commits = store.stats().commits;
    store.write((txn) => txn.put(db, text('z'), text('z')));
    expect(store.stats().commits - commits).toBe(1);
  });

  it('rejects a promise from a joined write without committing the group', () => {
    const store = temp.open();
    const db = store.database('d');
    expect(
      code(() =>
        store.writeGroup(() => {
          store.write((txn) => txn.put(db, text('a'), text('1')));
          return store.write(() => Promise.resolve(1));
        }),
      ),
    ).toBe('INVALID');
    store.read((txn) => expect(txn.count(db)).toBe(0));
  });
});
