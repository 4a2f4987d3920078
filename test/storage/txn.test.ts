import { describe, expect, it } from 'vitest';
import { numberFromValue } from '../../src/storage/txn.js';
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

describe('ReadTxn.getNumber', () => {
  it('reads a value\'s first 8 bytes as a native-order float64 after keys of every length (odd ones put the value at an odd address)', () => {
    const store = temp.open();
    const db = store.database('numbers');
    const numbers = [0, -0, 1, -1.5, Math.PI, 2 ** 53 - 1, -(2 ** 70), Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity];
    const valueOf = (n: number, tail: number) => {
      const value = new Uint8Array(8 + tail);
      new Float64Array(value.buffer, 0, 1)[0] = n;
      return value;
    };
    const cases = numbers.flatMap((n, i) => [1, 2, 3, 7, 8, 13].map((keyLength) => ({ key: new Uint8Array(keyLength).fill(i + 1), n, tail: keyLength % 3 })));
    store.write((txn) => cases.forEach(({ key, n, tail }) => txn.put(db, key, valueOf(n, tail))));
    store.read((txn) => {
      for (const { key, n } of cases) expect(Object.is(txn.getNumber(db, key), n)).toBe(true);
      expect(txn.getNumber(db, Uint8Array.of(99))).toBeUndefined();
    });
  });

  it('the aligned read used where unaligned double loads fault (32-bit ARM) gives what node-lmdb\'s getNumber gives', () => {
    const store = temp.open();
    const db = store.database('numbers');
    const values = Array.from({ length: 500 }, (_, i) => Uint8Array.from({ length: 8 + (i % 5) }, (_, j) => (i * 131 + j * 71 + 7) & 0xff));
    const keys = values.map((_, i) => Uint8Array.of(i >> 8, i & 0xff, 1).subarray(0, 1 + (i % 3)));
    const unique = new Map(keys.map((k, i) => [Buffer.from(k).toString('hex'), i]));
    store.write((txn) => [...unique.values()].forEach((i) => txn.put(db, keys[i]!, values[i]!)));
    store.read((txn) => {
      for (const i of unique.values()) {
        const viaNative = txn.getNumber(db, keys[i]!)!;
        const viaCopy = numberFromValue(values[i]!);
        if (Number.isNaN(viaCopy)) expect(Number.isNaN(viaNative)).toBe(true); // NaN payloads need not survive
        else expect(Object.is(viaNative, viaCopy)).toBe(true);
      }
    });
    expect(() => numberFromValue(Uint8Array.of(1, 2, 3))).toThrow(/8 bytes or more/);
  });
});
