import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CursorOptions } from '../../src/storage/range-cursor.js';
import type { Store } from '../../src/storage/store.js';
import { bytes, hex, useTempStores } from './temp-store.js';

const temp = useTempStores();

const KEYS = [
  bytes(0x00),
  bytes(0x00, 0x00),
  bytes(0x00, 0xff),
  bytes(0x01),
  bytes(0x7f, 0xff),
  bytes(0x80),
  bytes(0xff),
  bytes(0xff, 0x00),
  bytes(0xff, 0xff),
  bytes(0xff, 0xff, 0xff),
];

function seeded(store: Store, keys: readonly Uint8Array[]) {
  const db = store.database('d');
  store.write((txn) => {
    for (const k of keys) txn.put(db, k, Uint8Array.from([...k].reverse()));
  });
  return db;
}

function walk(store: Store, options: CursorOptions): string[] {
  const db = store.database('d');
  return store.read((txn) => [...txn.cursor(db, options)].map((e) => hex(e.key)!));
}

/** Brute-force oracle: filter and sort in JS. */
function expected(keys: readonly Uint8Array[], o: CursorOptions): string[] {
  const cmp = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b);
  const inRange = (k: Uint8Array) => {
    if (o.start !== undefined) {
      const c = cmp(k, o.start);
      if (o.reverse === true ? c > 0 || (c === 0 && o.startExclusive === true) : c < 0 || (c === 0 && o.startExclusive === true)) return false;
    }
    if (o.end !== undefined) {
      const c = cmp(k, o.end);
      if (o.reverse === true ? c < 0 || (c === 0 && o.endInclusive !== true) : c > 0 || (c === 0 && o.endInclusive !== true)) return false;
    }
    return true;
  };
  const sorted = [...new Map(keys.map((k) => [hex(k)!, k])).values()].sort(cmp);
  if (o.reverse === true) sorted.reverse();
  return sorted.filter(inRange).slice(0, o.limit ?? Infinity).map((k) => hex(k)!);
}

describe('ReadTxn.cursor ranges', () => {
  const cases: Array<[string, CursorOptions, string[]]> = [
    ['everything forward', {}, KEYS.map((k) => hex(k)!)],
    ['everything reverse', { reverse: true }, KEYS.map((k) => hex(k)!).reverse()],
    ['forward from 0x00 inclusive to 0x01 exclusive', { start: bytes(0), end: bytes(1) }, ['00', '0000', '00ff']],
    ['forward from 0x00 exclusive', { start: bytes(0), startExclusive: true, end: bytes(1) }, ['0000', '00ff']],
    ['forward to 0xff inclusive', { start: bytes(0x80), end: bytes(0xff), endInclusive: true }, ['80', 'ff']],
    ['forward from a missing key', { start: bytes(0x02), limit: 2 }, ['7fff', '80']],
    ['forward past the last key', { start: bytes(0xff, 0xff, 0xff, 0x00) }, []],
    ['reverse from 0xff inclusive down to 0x80 exclusive', { reverse: true, start: bytes(0xff), end: bytes(0x80) }, ['ff']],
    ['reverse from 0xff exclusive down to 0x01 inclusive', { reverse: true, start: bytes(0xff), startExclusive: true, end: bytes(1), endInclusive: true }, ['80', '7fff', '01']],
    ['reverse from a missing key', { reverse: true, start: bytes(0x7f), limit: 2 }, ['01', '00ff']],
    ['reverse from beyond the last key', { reverse: true, start: bytes(0xff, 0xff, 0xff, 0xff), limit: 1 }, ['ffffff']],
    ['reverse from before the first key', { reverse: true, start: bytes(0x00), startExclusive: true }, []],
    ['empty range', { start: bytes(0x80), end: bytes(0x80) }, []],
    ['limit 0', { limit: 0 }, []],
  ];
  for (const [name, options, keys] of cases) {
    it(name, () => {
      const store = temp.open();
      seeded(store, KEYS);
      expect(walk(store, options)).toEqual(keys);
      expect(walk(store, options)).toEqual(expected(KEYS, options));
    });
  }

  it('yields each value alongside its key', () => {
    const store = temp.open();
    const db = seeded(store, KEYS);
    store.read((txn) => {
      let n = 0;
      for (const entry of txn.cursor(db, { start: bytes(0xff) })) {
        expect(hex(entry.value)).toBe(hex(Uint8Array.from([...entry.key].reverse())));
        n++;
      }
      expect(n).toBe(4);
    });
  });

  it('break closes the cursor; abandoned cursors are closed at the end of the txn, also in writes', () => {
    const store = temp.open();
    const db = seeded(store, KEYS);
    store.read((txn) => {
      for (const _ of txn.cursor(db)) break;
      txn.cursor(db).next(); // abandoned
    });
    store.write((txn) => {
      txn.cursor(db).next(); // abandoned in a write txn: must be closed before commit
      txn.put(db, bytes(0x42), bytes(1));
    });
    expect(store.read((txn) => txn.count(db))).toBe(KEYS.length + 1);
  });

  it('first and last return owned copies', () => {
    const store = temp.open();
    const db = seeded(store, KEYS);
    const [first, last] = store.read((txn) => [txn.first(db), txn.last(db)]);
    expect(hex(first?.key)).toBe('00');
    expect(hex(last?.key)).toBe('ffffff');
    expect(hex(last?.value)).toBe('ffffff');
    const empty = store.database('empty');
    expect(store.read((txn) => txn.first(empty))).toBeUndefined();
  });

  it('matches a brute-force oracle on random binary keys and bounds', () => {
    const store = temp.open();
    const db = store.database('d');
    const keyArb = fc.uint8Array({ minLength: 1, maxLength: 4, max: 3 }).map((k) => k.map((b) => [0x00, 0x01, 0xfe, 0xff][b]!));
    fc.assert(
      fc.property(
        fc.array(keyArb, { minLength: 0, maxLength: 30 }),
        fc.record(
          {
            start: keyArb,
            startExclusive: fc.boolean(),
            end: keyArb,
            endInclusive: fc.boolean(),
            reverse: fc.boolean(),
            limit: fc.nat(10),
          },
          { requiredKeys: [] },
        ),
        (keys, options) => {
          store.write((txn) => {
            txn.clear(db);
            for (const k of keys) txn.put(db, k, k);
          });
          expect(walk(store, options)).toEqual(expected(keys, options));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('ReadTxn.each', () => {
  /** The values each visits, as hex; the seeded value of a key is the key reversed. */
  function visited(store: Store, options: CursorOptions, stopAfter = Infinity): string[] {
    const db = store.database('d');
    const out: string[] = [];
    store.read((txn) => txn.each(db, options, (value) => (out.push(hex(value)!), out.length < stopAfter)));
    return out;
  }
  const reversedHex = (keys: string[]) => keys.map((k) => hex(Uint8Array.from([...Buffer.from(k, 'hex')].reverse()))!);

  it('visits the values of the same range the cursor walks, in the same order', () => {
    const store = temp.open();
    seeded(store, KEYS);
    for (const options of [{}, { reverse: true }, { start: bytes(0), startExclusive: true, end: bytes(1) }, { reverse: true, start: bytes(0x7f), limit: 2 }, { start: bytes(0x80), end: bytes(0x80) }]) {
      expect(visited(store, options)).toEqual(reversedHex(expected(KEYS, options)));
    }
  });

  it('stops when visit returns false', () => {
    const store = temp.open();
    seeded(store, KEYS);
    expect(visited(store, {}, 3)).toEqual(reversedHex(expected(KEYS, { limit: 3 })));
  });

  it('closes its cursor when visit throws, so the write txn still commits', () => {
    const store = temp.open();
    const db = seeded(store, KEYS);
    store.write((txn) => {
      expect(() =>
        txn.each(db, {}, () => {
          throw new Error('visitor failed');
        }),
      ).toThrow('visitor failed');
      txn.put(db, bytes(0x42), bytes(1));
    });
    expect(store.read((txn) => txn.count(db))).toBe(KEYS.length + 1);
  });

  it('matches the brute-force oracle on random binary keys and bounds', () => {
    const store = temp.open();
    const db = store.database('d');
    const keyArb = fc.uint8Array({ minLength: 1, maxLength: 4, max: 3 }).map((k) => k.map((b) => [0x00, 0x01, 0xfe, 0xff][b]!));
    fc.assert(
      fc.property(
        fc.array(keyArb, { minLength: 0, maxLength: 30 }),
        fc.record({ start: keyArb, startExclusive: fc.boolean(), end: keyArb, endInclusive: fc.boolean(), reverse: fc.boolean(), limit: fc.nat(10) }, { requiredKeys: [] }),
        (keys, options) => {
          store.write((txn) => {
            txn.clear(db);
            for (const k of keys) txn.put(db, k, k);
          });
          const out: string[] = [];
          store.read((txn) => txn.each(db, options, (value) => (out.push(hex(value)!), true)));
          expect(out).toEqual(expected(keys, options));
        },
      ),
      { numRuns: 300 },
    );
  });
});


describe('ReadTxn.each keys', () => {
  it('gives each value with its key, the keys the cursor walks', () => {
    const store = temp.open();
    const db = seeded(store, KEYS);
    for (const options of [{}, { reverse: true, start: bytes(0xff), startExclusive: true, limit: 4 }]) {
      const pairs: string[] = [];
      store.read((txn) => txn.each(db, options, (value, key) => (pairs.push(`${hex(key)}=${hex(value)}`), true)));
      expect(pairs).toEqual(expected(KEYS, options).map((k) => `${k}=${hex(Uint8Array.from([...Buffer.from(k, 'hex')].reverse()))}`));
    }
  });
});

describe('ReadTxn.eachValue (distinct values, keys of 4+ bytes)', () => {
  /** Each key stores itself as its value, so values are distinct and show which entries came back. */
  function values(store: Store, options: CursorOptions, stopAfter = Infinity): string[] {
    const db = store.database('d');
    const out: string[] = [];
    store.read((txn) => txn.eachValue(db, options, (value) => (out.push(hex(value)!), out.length < stopAfter)));
    return out;
  }
  function stored(store: Store, keys: readonly Uint8Array[]): void {
    const db = store.database('d');
    store.write((txn) => {
      txn.clear(db);
      for (const k of keys) txn.put(db, k, k);
    });
  }
  // Keys in few blocks (shared first 4 bytes), so the walk switches cursors at block edges and
  // must tell the entry past its end by its value.
  const headArb = fc.constantFrom([0, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0xfe, 0xff], [0xff, 0xff, 0xff, 0xff]);
  const tailArb = fc.uint8Array({ minLength: 0, maxLength: 2, max: 3 }).map((k) => [...k].map((b) => [0x00, 0x01, 0xfe, 0xff][b]!));
  const keyArb = fc.oneof(
    fc.uint8Array({ minLength: 4, maxLength: 6, max: 3 }).map((k) => k.map((b) => [0x00, 0x01, 0xfe, 0xff][b]!)),
    fc.tuple(headArb, tailArb).map(([head, tail]) => Uint8Array.from([...head, ...tail])),
  );
  const boundArb = fc.uint8Array({ minLength: 1, maxLength: 6, max: 3 }).map((k) => k.map((b) => [0x00, 0x01, 0xfe, 0xff][b]!));

  it('matches the brute-force oracle on random keys and bounds, in both directions', () => {
    const store = temp.open();
    fc.assert(
      fc.property(
        fc.array(keyArb, { minLength: 0, maxLength: 30 }),
        fc.record({ start: fc.oneof(boundArb, keyArb), startExclusive: fc.boolean(), end: fc.oneof(boundArb, keyArb), endInclusive: fc.boolean(), reverse: fc.boolean(), limit: fc.nat(20) }, { requiredKeys: [] }),
        (keys, options) => {
          stored(store, keys);
          expect(values(store, options)).toEqual(expected(keys, options));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('stops at the end bound inside a later block, telling the entry there from its block-mates by value', () => {
    const store = temp.open();
    const keys = [bytes(0, 0, 0, 0), bytes(0, 0, 0, 1, 0), bytes(0, 0, 0, 1, 1), bytes(0, 0, 0, 1, 2), bytes(0, 0, 0, 2)];
    stored(store, keys);
    for (const options of [
      { start: bytes(0, 0, 0, 0), end: bytes(0, 0, 0, 1, 2) },
      { start: bytes(0, 0, 0, 0), end: bytes(0, 0, 0, 1, 1), endInclusive: true },
      { reverse: true, start: bytes(0, 0, 0, 2), end: bytes(0, 0, 0, 1, 0) },
      { reverse: true, end: bytes(0, 0, 0, 1, 0), endInclusive: true },
    ] satisfies CursorOptions[]) {
      expect(values(store, options)).toEqual(expected(keys, options));
    }
  });

  it('starts exactly on an entry deep inside a long block, in both directions', () => {
    const store = temp.open();
    const block = (head: number, n: number) => Array.from({ length: n }, (_, i) => bytes(0, 0, 0, head, i));
    const keys = [...block(1, 3), ...block(2, 40), ...block(3, 3)];
    stored(store, keys);
    for (const options of [
      { start: bytes(0, 0, 0, 2, 29) },
      { start: bytes(0, 0, 0, 2, 29), startExclusive: true, end: bytes(0, 0, 0, 3, 1) },
      { start: bytes(0, 0, 0, 2, 3), end: bytes(0, 0, 0, 2, 20), limit: 30 },
      { reverse: true, start: bytes(0, 0, 0, 2, 9), end: bytes(0, 0, 0, 1, 1) },
      { reverse: true, start: bytes(0, 0, 0, 2, 38), startExclusive: true, limit: 5 },
      { reverse: true, start: bytes(0, 0, 0, 3) },
      // The start ends its block (the entry after it is in the next block, or there is none).
      { reverse: true, start: bytes(0, 0, 0, 2, 40), end: bytes(0, 0, 0, 2, 30), endInclusive: true },
      { reverse: true, start: bytes(0, 0, 0, 3, 9), limit: 4 },
      { reverse: true, start: bytes(0, 0, 0, 3, 2), end: bytes(0, 0, 0, 1, 2) },
      { reverse: true, start: bytes(0, 0, 0, 2, 39), startExclusive: true, limit: 3 },
    ] satisfies CursorOptions[]) {
      expect(values(store, options)).toEqual(expected(keys, options));
    }
  });

  it('stops when visit returns false', () => {
    const store = temp.open();
    const keys = [1, 2, 3, 4, 5].map((n) => bytes(0, 0, 0, 0, n));
    stored(store, keys);
    expect(values(store, {}, 2)).toEqual(['0000000001', '0000000002']);
  });

  it('steps past an exclusive bound of LMDB\'s maximal key length (511 bytes), which has no longer successor', () => {
    const store = temp.open();
    const long = (last: number) => Uint8Array.from({ length: 511 }, (_, i) => (i === 510 ? last : 0xaa));
    const keys = [long(0x01), long(0xff), bytes(0xaa, 0xaa, 0xaa, 0xab), bytes(0xff, 0xff, 0xff, 0xff)];
    stored(store, keys);
    for (const options of [
      { start: long(0x01), startExclusive: true },
      { start: long(0xff), startExclusive: true },
      { start: long(0xff), reverse: true },
      { end: long(0xff), endInclusive: true },
      { reverse: true, end: long(0x01) },
      { start: Uint8Array.from({ length: 511 }, () => 0xff), startExclusive: true },
    ] satisfies CursorOptions[]) {
      expect(values(store, options).map((v) => v.slice(-8))).toEqual(expected(keys, options).map((k) => k.slice(-8)));
    }
  });
});
