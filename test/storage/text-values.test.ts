/**
 * Text values (src/storage/text-values.ts): databases declared `textValues` in a store holding the
 * text-values marker are read through JS strings, and every read gives the value's exact bytes;
 * such databases refuse anything but text values once marked; the first text value written raises
 * the store format in its own txn; an unmarked store reads Buffers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/storage/storage-error.js';
import { TEXT_VALUES_STORE_FORMAT } from '../../src/storage/store-format.js';
import type { Store } from '../../src/storage/store.js';
import { TEXT_READS_SUPPORTED, isTextValue } from '../../src/storage/text-values.js';
import { bytes, hex, useTempStores } from './temp-store.js';

const stores = useTempStores();

/** A value of `body` made a text value: a zero byte when odd, then a zero 16-bit unit. */
const textValue = (body: Uint8Array): Uint8Array => {
  const out = new Uint8Array(body.length + (body.length & 1) + 2);
  out.set(body);
  return out;
};

const key = (i: number) => bytes(0, 0, i >> 8, i & 0xff);

function markedStore(): Store {
  const store = stores.open();
  store.write((txn) => store.markTextValues(txn));
  return store;
}

/** Bodies that stress the UTF-16 path: lone surrogates, units below 256 (one-byte strings in V8), zeros, random bytes. */
const tricky: Uint8Array[] = [
  bytes(),
  bytes(0x00, 0xd8),
  bytes(0x00, 0xdc, 0x00, 0xd8),
  bytes(0x41, 0x00, 0x42, 0x00),
  bytes(0xff, 0xfe, 0xfe, 0xff),
  bytes(0, 0, 0, 0, 1),
  new Uint8Array(30_000).map((_, i) => (i * 7) & 0xff), // past the first scratch: the reader grows it
  new Uint8Array(70_000).map((_, i) => (i * 31) & 0xff), // past the kept scratch: a buffer of its own
  bytes(9, 8, 7),
];

describe.runIf(TEXT_READS_SUPPORTED)('reads of a marked store give every text value back byte for byte', () => {
  it('through get, each and eachValue, in both directions, for tricky and random values', () => {
    const store = markedStore();
    const db = store.database('records', { textValues: true });
    const property = fc.array(fc.uint8Array({ maxLength: 600 }), { minLength: 1, maxLength: 40 });
    const run = (bodies: Uint8Array[]) => {
      const values = bodies.map(textValue);
      store.write((txn) => {
        txn.clear(db);
        values.forEach((v, i) => txn.put(db, key(i), v));
      });
      expect(store.textReads).toBe(true);
      store.read((txn) => {
        values.forEach((v, i) => expect(hex(txn.get(db, key(i)))).toBe(hex(v)));
        const walked: (string | undefined)[] = [];
        txn.each(db, {}, (value) => (walked.push(hex(value)), true));
        expect(walked).toEqual(values.map(hex));
        const backwards: (string | undefined)[] = [];
        txn.eachValue(db, { reverse: true }, (value) => (backwards.push(hex(value)), true));
        expect(backwards).toEqual(values.map(hex).reverse());
      });
    };
    run(tricky);
    fc.assert(fc.property(property, run), { numRuns: 40 });
  });

  it('a walk inside another walk\'s visit leaves the outer value intact; getCopy is the caller\'s to keep', () => {
    const store = markedStore();
    const db = store.database('records', { textValues: true });
    const values = [bytes(1, 2, 3), bytes(4, 5), bytes(6)].map(textValue);
    store.write((txn) => values.forEach((v, i) => txn.put(db, key(i), v)));
    store.read((txn) => {
      const kept = txn.getCopy(db, key(0))!;
      txn.each(db, {}, (outer) => {
        const before = hex(outer);
        txn.each(db, { reverse: true }, () => true);
        txn.get(db, key(2));
        expect(hex(outer)).toBe(before);
        return true;
      });
      expect(hex(kept)).toBe(hex(values[0]));
    });
  });
});

describe('writes into a text database', () => {
  it('once the store is marked, a value that is not a text value is refused and nothing of the txn is written', () => {
    const store = markedStore();
    const db = store.database('records', { textValues: true });
    for (const bad of [bytes(1, 2, 3), bytes(1, 2, 3, 4), bytes(0), bytes(1, 0, 0)]) {
      expect(isTextValue(bad)).toBe(false);
      let error: unknown;
      try {
        store.write((txn) => {
          txn.put(db, key(1), textValue(bytes(9)));
          txn.put(db, key(2), bad);
        });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('INVALID');
      expect((error as Error).message).toMatch(/not a text value/);
      expect(store.read((txn) => txn.count(db))).toBe(0);
    }
  });

  it('an unmarked store takes any value and reads Buffers; the first text value raises the format in its txn, and only if it commits', () => {
    const store = stores.open();
    const db = store.database('records', { textValues: true });
    store.write((txn) => txn.put(db, key(1), bytes(1, 2, 3)));
    expect(store.format).toBeLessThan(TEXT_VALUES_STORE_FORMAT);
    expect(() =>
      store.write((txn) => {
        txn.put(db, key(2), textValue(bytes(7)));
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.format).toBeLessThan(TEXT_VALUES_STORE_FORMAT);
    store.write((txn) => txn.put(db, key(2), textValue(bytes(7))));
    expect(store.format).toBe(TEXT_VALUES_STORE_FORMAT);
    expect(store.textReads).toBe(false);
    expect(store.read((txn) => hex(txn.get(db, key(1))))).toBe('010203');
    expect(store.read((txn) => hex(txn.get(db, key(2))))).toBe('07000000');
  });

  it('an aborted markTextValues leaves the store unmarked; a committed one is seen by the next open', () => {
    const store = stores.open();
    expect(() =>
      store.write((txn) => {
        store.markTextValues(txn);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.hasTextValuesMarker).toBe(false);
    store.write((txn) => store.markTextValues(txn));
    expect(store.hasTextValuesMarker).toBe(true);
    const path = store.path;
    store.close();
    const again = stores.open({ path });
    expect(again.hasTextValuesMarker).toBe(true);
    expect(again.format).toBe(TEXT_VALUES_STORE_FORMAT);
  });
});
