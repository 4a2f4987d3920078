/**
 * Stored keys (codec/item-key.ts): a full key of at most 511 bytes is stored as itself; a longer one
 * as its first 495 bytes and a 16-byte digest. Memcmp order of stored keys equals the order of full
 * keys except between two keys that both lie in one overflow run (at least 495 bytes, same first
 * 495 bytes), which readers re-sort by full key; distinct full keys never share a stored key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareBytes } from '../../src/codec/key-bytes.js';
import { encodeFullItemKey, encodeItemKey, encodeKeyValues, encodeLookupKey, inOverflowRun, PREFIX_BYTES, storedKey } from '../../src/codec/item-key.js';
import type { KeyValue } from '../../src/model/attribute-value.js';

const sign = (n: number) => Math.sign(n);

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

  it('item keys: the 1,024-byte sort key of a 2,048-byte partition key', () => {
    const schema = { partitionKey: { name: 'pk', type: 'S' as const }, sortKey: { name: 'sk', type: 'S' as const } };
    const item = { pk: { S: 'p'.repeat(2048) }, sk: { S: '\u0000'.repeat(1024) } };
    const full = encodeFullItemKey(item, schema);
    expect(full.bytes.length).toBe(4 + 1 + 20 + 2050);
    expect(encodeItemKey(item, schema)).toEqual({ hash: full.hash, bytes: storedKey(full.bytes), pkEnd: full.pkEnd, full: full.bytes });
  });

  it('a lookup key has the hash and bytes of encodeKeyValues, for keys of every length and type', () => {
    const text = fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.string({ minLength: 1, maxLength: 1100, unit: 'binary' }));
    const value: fc.Arbitrary<KeyValue> = fc.oneof(
      text.map((S) => ({ S })),
      fc.constantFrom('0', '-1.5', '1700000000123', '1e125', '-9.99e-130').map((N) => ({ N })),
      fc.uint8Array({ minLength: 1, maxLength: 1100 }).map((B) => ({ B })),
    );
    fc.assert(
      fc.property(value, fc.option(value, { nil: undefined }), (pk, sk) => {
        const expected = encodeKeyValues(pk, sk);
        const lookup = encodeLookupKey(pk, sk);
        expect(lookup.hash).toBe(expected.hash);
        expect(Buffer.from(lookup.bytes).equals(Buffer.from(expected.bytes))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
