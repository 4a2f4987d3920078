import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { bytes, hex, useTempStores } from './temp-store.js';

const temp = useTempStores();

describe('FaultInjector at the storage seam', () => {
  it('failing the Nth put aborts the whole txn; the store keeps working', () => {
    const faults = new FaultInjector();
    const store = temp.open({ faults });
    const a = store.database('a');
    const b = store.database('b');
    store.write((txn) => txn.put(a, bytes(0), bytes(0)));
    faults.failPutAt = faults.puts + 3;
    expect(() =>
      store.write((txn) => {
        txn.put(a, bytes(1), bytes(1));
        txn.put(b, bytes(1), bytes(1));
        txn.put(a, bytes(2), bytes(2)); // fails
        txn.put(a, bytes(3), bytes(3));
      }),
    ).toThrow(expect.objectContaining({ code: 'IO' }));
    store.read((txn) => {
      expect(txn.count(a)).toBe(1);
      expect(txn.count(b)).toBe(0);
      expect(hex(txn.get(a, bytes(0)))).toBe('00');
    });
    store.write((txn) => txn.put(a, bytes(4), bytes(4)));
    expect(store.read((txn) => txn.count(a))).toBe(2);
  });

  it('failing the Nth commit leaves nothing of that txn, including databases it created', () => {
    const faults = new FaultInjector();
    const store = temp.open({ faults });
    const a = store.database('a');
    faults.failCommitAt = faults.commits + 2;
    store.write((txn) => txn.put(a, bytes(1), bytes(1)));
    expect(() =>
      store.write((txn) => {
        txn.put(a, bytes(2), bytes(2));
        txn.delete(a, bytes(1));
        txn.put(store.database('created'), bytes(1), bytes(1));
      }),
    ).toThrow(expect.objectContaining({ code: 'IO', message: expect.stringMatching(/commit #/) }));
    expect(store.hasDatabase('created')).toBe(false);
    store.read((txn) => {
      expect(hex(txn.get(a, bytes(1)))).toBe('01');
      expect(txn.get(a, bytes(2))).toBeUndefined();
    });
    store.write((txn) => txn.put(a, bytes(3), bytes(3)));
    expect(store.read((txn) => txn.count(a))).toBe(2);
  });

  it('a fault survives reopen: nothing partial on disk', () => {
    const faults = new FaultInjector({ failPutAt: 2 });
    const store = temp.open({ faults });
    const path = store.path;
    const a = store.database('a');
    expect(() =>
      store.write((txn) => {
        txn.put(a, bytes(1), bytes(1));
        txn.put(a, bytes(2), bytes(2));
      }),
    ).toThrow(expect.objectContaining({ code: 'IO' }));
    store.close();
    const reopened = temp.open({ path });
    expect(reopened.read((txn) => txn.count(reopened.database('a')))).toBe(0);
  });
});
