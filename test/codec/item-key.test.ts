/**
 * Stored keys (codec/item-key.ts): a full key of at most 511 bytes is stored as itself; a longer one
 * as its first 495 bytes and a 16-byte digest. Memcmp order of stored keys equals the order of full
 * keys except between two keys that both lie in one overflow run (at least 495 bytes, same first
 * 495 bytes), which readers re-sort by full key; distinct full keys never share a stored key.
 * Two layouts: 'hash-first' (table format 1) and 'partition-key-first' (table format 2); in both a
 * partition key's items share a prefix and sort by sort key, and the hash is read back from any key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareBytes, encodeKeyValue, skipKeyValue } from '../../src/codec/key-bytes.js';
import {
  encodeFullItemKey,
  encodeItemKey,
  encodeKeyValues,
  encodeLookupKey,
  encodePartitionPrefix,
  inOverflowRun,
  keyHash,
  partitionPrefixLength,
  PREFIX_BYTES,
  storedKey,
  type KeyLayout,
} from '../../src/codec/item-key.js';
import { partitionHash } from '../../src/codec/partition-hash.js';
import type { KeyValue } from '../../src/model/attribute-value.js';

const sign = (n: number) => Math.sign(n);
const LAYOUTS: KeyLayout[] = ['hash-first', 'partition-key-first'];

const keyValueArb: fc.Arbitrary<KeyValue> = fc.oneof(
  fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ minLength: 1, maxLength: 1100, unit: 'binary' })).map((S) => ({ S })),
  fc.constantFrom('0', '-1.5', '1700000000123', '1e125', '-9.99e-130', '-7', '0.001').map((N) => ({ N })),
  fc.uint8Array({ minLength: 1, maxLength: 1100 }).map((B) => ({ B })),
);

/** Keys around the 495/511-byte boundaries that share long heads. */
const fullKeyArb = fc
  .tuple(fc.constantFrom(0, 400, 494, 495, 496, 510, 511, 512, 1000, 2100), fc.constantFrom(0x00, 0x61, 0xff), fc.array(fc.constantFrom(0x00, 0x01, 0x80, 0xff), { maxLength: 4 }))
  .map(([n, fill, tail]) => Uint8Array.from([...new Uint8Array(n).fill(fill), ...tail]));

describe('stored keys', () => {
  it('keep short keys verbatim and cut long ones to 511 bytes: 495 of the key, then a digest', () => {
    const short = new Uint8Array(511).fill(3);
    expect(storedKey(short)).toBe(short);
    const long = new Uint8Array(2050).fill(3);
    const stored = storedKey(long);
    expect(stored.length).toBe(511);
    expect(stored.subarray(0, PREFIX_BYTES)).toEqual(long.subarray(0, PREFIX_BYTES));
    expect(storedKey(Uint8Array.from(long))).toEqual(stored);
  });

  it('order like full keys outside one overflow run, and never collide', () => {
    fc.assert(
      fc.property(fullKeyArb, fullKeyArb, (a, b) => {
        const sa = storedKey(a);
        const sb = storedKey(b);
        const sameRun = inOverflowRun(sa) && inOverflowRun(sb) && compareBytes(sa.subarray(0, PREFIX_BYTES), sb.subarray(0, PREFIX_BYTES)) === 0;
        if (!sameRun) expect(sign(compareBytes(sa, sb))).toBe(sign(compareBytes(a, b)));
        expect(compareBytes(sa, sb) === 0).toBe(compareBytes(a, b) === 0);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(LAYOUTS)('item keys (%s): the 1,024-byte sort key of a 2,048-byte partition key', (layout) => {
    const schema = { partitionKey: { name: 'pk', type: 'S' as const }, sortKey: { name: 'sk', type: 'S' as const } };
    const item = { pk: { S: 'p'.repeat(2048) }, sk: { S: '\u0000'.repeat(1024) } };
    const full = encodeFullItemKey(item, schema, layout);
    expect(full.bytes.length).toBe(4 + 1 + 20 + 2050);
    expect(encodeItemKey(item, schema, layout)).toEqual({ hash: full.hash, bytes: storedKey(full.bytes) });
    expect(keyHash(storedKey(full.bytes), layout, 'S')).toBe(full.hash);
  });

  it.each(LAYOUTS)('a lookup key (%s) has the hash and bytes of encodeKeyValues, for keys of every length and type', (layout) => {
    fc.assert(
      fc.property(keyValueArb, fc.option(keyValueArb, { nil: undefined }), (pk, sk) => {
        const expected = encodeKeyValues(pk, sk, layout);
        const lookup = encodeLookupKey(pk, sk, layout);
        expect(lookup.hash).toBe(expected.hash);
        expect(Buffer.from(lookup.bytes).equals(Buffer.from(expected.bytes))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('key layouts', () => {
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

  it('hash-first (table format 1) is unchanged: hash, tag, pk, sk', () => {
    const { hash, bytes } = encodeKeyValues({ S: 'sensor-1' }, { N: '5' }, 'hash-first');
    expect(hash).toBe(partitionHash({ S: 'sensor-1' }));
    const h = hash.toString(16).padStart(8, '0');
    expect(hex(bytes)).toBe(`${h}01${hex(encodeKeyValue({ S: 'sensor-1' }))}${hex(encodeKeyValue({ N: '5' }))}`);
  });

  it('partition-key-first (table format 2): tag, pk, hash, sk', () => {
    const { hash, bytes } = encodeKeyValues({ S: 'sensor-1' }, { N: '5' }, 'partition-key-first');
    const h = hash.toString(16).padStart(8, '0');
    expect(hex(bytes)).toBe(`01${hex(encodeKeyValue({ S: 'sensor-1' }))}${h}${hex(encodeKeyValue({ N: '5' }))}`);
  });

  it('partition-key-first orders partition keys by value: neighbouring sensors are neighbouring keys', () => {
    const keys = ['sensor-0001', 'sensor-0002', 'sensor-0010', 'sensor-0100'].map((S) => encodeKeyValues({ S }, { N: '1' }, 'partition-key-first').bytes);
    for (let i = 1; i < keys.length; i++) expect(compareBytes(keys[i - 1]!, keys[i]!)).toBe(-1);
  });

  it.each(LAYOUTS)('%s: every key of a partition key starts with its prefix, which gives back the hash', (layout) => {
    fc.assert(
      fc.property(keyValueArb, fc.option(keyValueArb, { nil: undefined }), (pk, sk) => {
        const prefix = encodePartitionPrefix(pk, layout);
        const key = encodeKeyValues(pk, sk, layout);
        const type = 'S' in pk ? 'S' : 'N' in pk ? 'N' : 'B';
        expect(Buffer.from(key.bytes.subarray(0, prefix.bytes.length)).equals(Buffer.from(prefix.bytes))).toBe(true);
        expect(partitionPrefixLength(key.bytes, layout, type)).toBe(prefix.bytes.length);
        expect(keyHash(key.bytes, layout, type)).toBe(key.hash);
        expect(keyHash(prefix.bytes, layout, type)).toBe(prefix.hash);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(LAYOUTS)('%s: one partition key\'s items sort by sort key', (layout) => {
    fc.assert(
      fc.property(keyValueArb, fc.string({ minLength: 1, maxLength: 30 }), fc.string({ minLength: 1, maxLength: 30 }), (pk, a, b) => {
        const ka = encodeKeyValues(pk, { S: a }, layout).bytes;
        const kb = encodeKeyValues(pk, { S: b }, layout).bytes;
        if (ka.length < PREFIX_BYTES && kb.length < PREFIX_BYTES) expect(sign(compareBytes(ka, kb))).toBe(sign(compareBytes(encodeKeyValue({ S: a }), encodeKeyValue({ S: b }))));
      }),
      { numRuns: 1000 },
    );
  });

  it('skipKeyValue finds the end of every encoded value, whatever follows', () => {
    fc.assert(
      fc.property(keyValueArb, fc.uint8Array({ maxLength: 8 }), (value, tail) => {
        const enc = encodeKeyValue(value);
        const type = 'S' in value ? 'S' : 'N' in value ? 'N' : 'B';
        expect(skipKeyValue(type, Uint8Array.from([7, ...enc, ...tail]), 1)).toBe(1 + enc.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('a key that is not one of the layout throws instead of reading a wrong hash', () => {
    expect(() => keyHash(Uint8Array.from([0x07, 1, 2, 3, 4]), 'partition-key-first', 'S')).toThrow(RangeError);
    expect(() => keyHash(Uint8Array.from([0x01, 0x61, 0x00, 0x01, 9]), 'partition-key-first', 'S')).toThrow(RangeError);
  });
});
