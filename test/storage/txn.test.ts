import { describe, expect, it } from 'vitest';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();

describe('ReadTxn zero-copy gets (sanity, not a timed assertion)', () => {
  it('100k gets and a full cursor walk in single read txns return the right bytes', () => {
    const store = temp.open();
    const db = store.database('d');
    const n = 100_000;
    const key = (i: number) => {
      const k = new Uint8Array(8);
      new DataView(k.buffer).setUint32(4, i);
      return k;
    };
    store.write((txn) => {
      for (let i = 0; i < n; i += 1) txn.put(db, key(i), Uint8Array.of(i & 0xff, (i >> 8) & 0xff, 1, 2, 3));
    });
    let checksum = 0;
    let expected = 0;
    const started = performance.now();
    store.read((txn) => {
      for (let i = 0; i < n; i += 1) {
        const value = txn.get(db, key(i))!;
        checksum += value[0]! + value[1]! + value.length;
        expected += (i & 0xff) + ((i >> 8) & 0xff) + 5;
      }
    });
    const getMs = performance.now() - started;
    let walked = 0;
    let outOfOrder = 0;
    store.read((txn) => {
      for (const { key: k, value } of txn.cursor(db)) {
        const i = new DataView(k.buffer, k.byteOffset, k.length).getUint32(4);
        if (i !== walked || value[0] !== (i & 0xff)) outOfOrder += 1;
        walked += 1;
      }
    });
    expect(outOfOrder).toBe(0);
    expect(checksum).toBe(expected);
    expect(walked).toBe(n);
    expect(getMs).toBeGreaterThan(0); // reported by the benchmark, not asserted here
  });
});
