/**
 * Coded attribute names (item format version 2, src/codec/attribute-name-codes.ts): an item
 * written with a dictionary reads back equal through it, names that look like codes stay names,
 * values written without a dictionary (version 1) read unchanged, and a coded value never decodes
 * silently without its dictionary.
 */
import { Decoder } from 'cbor-x';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue, Item } from '../../src/model/attribute-value.js';
import type { NameDecoder, NameEncoder } from '../../src/codec/attribute-name-codes.js';
import { decodeAttributes, decodeItem, decodeItemToWire, encodeItem } from '../../src/codec/item-value.js';
import { encodeItemRecord, recordBody, recordItemSize } from '../../src/codec/item-record.js';
import { writeItem } from '../../src/codec/item-writer.js';
import { anyCanonicalNumber } from './number-oracle.js';

const RUNS = 3_000;

/** Names that look like codes ("0", "23", "24", "255") are part of the mix on purpose. */
const name = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 12, unit: 'binary' }) },
  { weight: 2, arbitrary: fc.nat({ max: 300 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'temperature', 'ts', 'x'.repeat(70)) },
);
const leaf = fc.oneof(
  fc.string({ maxLength: 20, unit: 'binary' }).map((S): AttributeValue => ({ S })),
  anyCanonicalNumber.map((N): AttributeValue => ({ N })),
  fc.uint8Array({ maxLength: 10 }).map((B): AttributeValue => ({ B })),
  fc.boolean().map((BOOL): AttributeValue => ({ BOOL })),
);
const value = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.dictionary(name, leaf, { maxKeys: 3 }).map((M): AttributeValue => ({ M })) },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }).map((L): AttributeValue => ({ L })) },
);
const item: fc.Arbitrary<Item> = fc.dictionary(name, value, { maxKeys: 8 });

/** A dictionary as a table holds one: names in code order, some of them never used by the item. */
class TestDictionary implements NameEncoder, NameDecoder {
  private readonly codes = new Map<string, number>();
  constructor(readonly names: readonly string[]) {
    names.forEach((n, code) => this.codes.set(n, code));
  }
  codeOf(n: string): number | undefined {
    return this.codes.get(n);
  }
  nameOf(code: number): string | undefined {
    return this.names[code];
  }
  knownName(code: number): string | undefined {
    return this.names[code];
  }
}

/** A dictionary coding a random subset of the item's names, mixed with other names. */
function dictionaryFor(it: Item): fc.Arbitrary<TestDictionary> {
  return fc
    .tuple(fc.subarray(Object.keys(it)), fc.uniqueArray(name, { maxLength: 30 }))
    .chain(([coded, others]) => fc.shuffledSubarray([...new Set([...coded, ...others])], { minLength: 0 }).map((names) => new TestDictionary(names)));
}

const sameItem = (a: Item, b: Item) => expect(JSON.stringify(canonical(a))).toBe(JSON.stringify(canonical(b)));
function canonical(v: unknown): unknown {
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('hex') };
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') return Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, canonical(x)]);
  return v;
}

const plainDecoder = new Decoder({ mapsAsObjects: false, useRecords: false });

describe('coded attribute names', () => {
  it('round-trip: an item written with a dictionary reads back equal through it, both forms', () => {
    fc.assert(
      fc.property(item.chain((it) => fc.tuple(fc.constant(it), dictionaryFor(it))), ([it, dictionary]) => {
        const bytes = Uint8Array.from(writeItem(it, 0, dictionary));
        sameItem(decodeItem(bytes, 0, dictionary), it);
        expect(decodeItemToWire(bytes, 0, dictionary)).toEqual(decodeItemToWire(encodeItem(it)));
      }),
      { numRuns: RUNS },
    );
  });

  it('each top-level name is its code exactly when the dictionary has one; nested names stay text', () => {
    fc.assert(
      fc.property(item.chain((it) => fc.tuple(fc.constant(it), dictionaryFor(it))), ([it, dictionary]) => {
        const decoded = plainDecoder.decode(Uint8Array.from(writeItem(it, 0, dictionary))) as Map<unknown, unknown>;
        const keys = [...decoded.keys()];
        expect(keys).toEqual(Object.keys(it).map((n) => dictionary.codeOf(n) ?? n));
        for (const [, v] of decoded) if (v instanceof Map) for (const k of v.keys()) expect(typeof k).toBe('string');
      }),
      { numRuns: RUNS },
    );
  });

  it('a projection through the dictionary picks the same attributes as from the plain value', () => {
    fc.assert(
      fc.property(
        item.chain((it) => fc.tuple(fc.constant(it), dictionaryFor(it), fc.subarray(Object.keys(it)))),
        ([it, dictionary, wanted]) => {
          const names = new Set(wanted);
          const coded = Uint8Array.from(writeItem(it, 0, dictionary));
          sameItem(decodeAttributes(coded, names, 0, dictionary), decodeAttributes(encodeItem(it), names));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('values written before the dictionary (every name inline) read the same with or without one', () => {
    fc.assert(
      fc.property(item.chain((it) => fc.tuple(fc.constant(it), dictionaryFor(it))), ([it, dictionary]) => {
        const plain = Uint8Array.from(encodeItem(it));
        sameItem(decodeItem(plain, 0, dictionary), it);
        sameItem(decodeItem(plain), it);
      }),
      { numRuns: RUNS },
    );
  });

  it('a name that looks like a code is text: "7" and code 7 are different attributes', () => {
    const dictionary = new TestDictionary(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'seven']);
    const it: Item = { '7': { S: 'the name 7' }, seven: { S: 'code 7' } };
    const bytes = Uint8Array.from(writeItem(it, 0, dictionary));
    expect(Buffer.from(bytes.subarray(0, 3)).toString('hex')).toBe('a26137'); // map(2), text "7"
    expect(bytes.includes(0x07)).toBe(true);
    sameItem(decodeItem(bytes, 0, dictionary), it);
  });

  it('codes below 24 take one byte, so a sensor reading shrinks by its names', () => {
    const reading: Item = { sensor: { S: 'sensor-0001' }, ts: { N: '1700000000000' }, temperature: { N: '21.37' }, humidity: { N: '45.2' }, battery: { N: '3.71' } };
    const dictionary = new TestDictionary(['temperature', 'humidity', 'battery']);
    const plain = encodeItem(reading).length;
    const coded = writeItem(reading, 0, dictionary).length;
    expect(plain - coded).toBe('temperature'.length + 'humidity'.length + 'battery'.length);
  });

  it('a coded value refuses to decode whole without its dictionary, or with a code it lacks', () => {
    const it: Item = { pk: { S: 'k' }, reading: { N: '1' } };
    const bytes = Uint8Array.from(writeItem(it, 0, new TestDictionary(['reading'])));
    expect(() => decodeItem(bytes)).toThrow(/without the table's name dictionary/);
    expect(() => decodeItem(bytes, 0, new TestDictionary([]))).toThrow(/unknown attribute name code 0/);
    // Selecting inline names (key attributes are never coded) needs no dictionary.
    expect(decodeAttributes(bytes, new Set(['pk']))).toEqual({ pk: { S: 'k' } });
    expect(decodeAttributes(bytes, new Set(['reading']))).toEqual({});
  });

  it('a name only the store knows is looked up after the rest of the value is copied (the lookup may end the view)', () => {
    const it: Item = { pk: { S: 'k' }, reading: { N: '1' }, note: { S: 'after the lookup' } };
    const dictionary = new TestDictionary(['reading', 'note']);
    const view = Uint8Array.from(writeItem(it, 0, dictionary));
    let lookups = 0;
    const storeOnly: NameDecoder = {
      knownName: () => undefined,
      nameOf: (code) => {
        lookups++;
        view.fill(0xff); // what a storage read may do to the caller's view
        return dictionary.nameOf(code);
      },
    };
    sameItem(decodeItem(view, 0, storeOnly), it);
    expect(lookups).toBe(2);
  });

  it('a name lookup that reads other items leaves the item being read intact', () => {
    const it: Item = { pk: { S: 'k' }, m: { M: { a: { N: '1' }, b: { S: 'x' } } }, reading: { N: '2' }, note: { S: 'after' } };
    const other: Item = { x: { S: 'other' }, y: { M: { z: { BOOL: true } } }, w: { L: [{ N: '3' }] } };
    const dictionary = new TestDictionary(['reading', 'note']);
    const otherBytes = Uint8Array.from(writeItem(other, 0));
    const lookingUp: NameDecoder = {
      knownName: () => undefined,
      nameOf: (code) => {
        sameItem(decodeItem(otherBytes), other);
        return dictionary.nameOf(code);
      },
    };
    const bytes = Uint8Array.from(writeItem(it, 0, dictionary));
    for (let round = 0; round < 3; round++) sameItem(decodeItem(bytes, 0, lookingUp), it);
  });

  it('records carry coded names after the size header', () => {
    const it: Item = { pk: { S: 'k' }, reading: { N: '1' } };
    const record = Uint8Array.from(encodeItemRecord(it, 14, new TestDictionary(['reading'])));
    expect(recordItemSize(record)).toBe(14);
    sameItem(decodeItem(recordBody(record), 0, new TestDictionary(['reading'])), it);
  });
});
