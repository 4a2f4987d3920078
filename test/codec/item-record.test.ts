import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RECORD_HEADER_BYTES,
  decodeRecord,
  decodeRecordAttributes,
  decodeRecordToWire,
  encodeItemRecord,
  hasTextTrailer,
  recordBody,
  recordEnd,
  recordItemSize,
  recordSizeFromHead,
  withTextTrailer,
} from '../../src/codec/item-record.js';
import { decodeItem, decodeItemToWire, encodeItem } from '../../src/codec/item-value.js';
import type { Item } from '../../src/model/attribute-value.js';

/** A record as builds before store format 3 wrote it: a plain u32be size header, the item, nothing after. */
function legacyRecord(item: Item, size: number): Uint8Array {
  const body = encodeItem(item);
  const record = new Uint8Array(RECORD_HEADER_BYTES + body.length);
  new DataView(record.buffer).setUint32(0, size);
  record.set(body, RECORD_HEADER_BYTES);
  return record;
}

/** Items whose encodings are odd and even in length, so both trailer lengths are written. */
const items: Item[] = [
  { pk: { S: 'a' } },
  { pk: { S: 'ab' } },
  { pk: { S: 'a' }, n: { N: '21.5' } },
  { pk: { S: 'sensor-1' }, ts: { N: '1700000000000' }, b: { B: new Uint8Array([0, 0]) } },
  { pk: { S: 'k' }, last: { N: '0' } },
];

describe('item record: head (flags, size) + item + text trailer', () => {
  it('holds the size in the head, the item encoding after it, and ends in a zero 16-bit unit at an even length', () => {
    const item: Item = { pk: { S: 'a' }, n: { N: '21.5' } };
    const record = encodeItemRecord(item, 0x010203);
    expect([...record.subarray(1, RECORD_HEADER_BYTES)]).toEqual([1, 2, 3]);
    expect(recordItemSize(record)).toBe(0x010203);
    expect([...recordBody(record)]).toEqual([...encodeItem(item)]);
    expect(decodeRecord(record)).toEqual(item);
    expect(record.length % 2).toBe(0);
    expect([...record.subarray(record.length - 2)]).toEqual([0, 0]);
    expect(hasTextTrailer(record)).toBe(true);
  });

  it('writes a 2- or 3-byte trailer by the parity of head + item, and the head says which', () => {
    const lengths = new Set<number>();
    for (const item of items) {
      const record = encodeItemRecord(item, 7);
      const unframed = RECORD_HEADER_BYTES + encodeItem(item).length;
      lengths.add(unframed % 2);
      expect(record.length).toBe(unframed + (unframed % 2 === 1 ? 3 : 2));
      expect(recordEnd(record)).toBe(unframed);
      expect(decodeRecord(record)).toEqual(item);
      expect(decodeItemToWire(recordBody(record))).toEqual(decodeRecordToWire(record));
    }
    expect([...lengths].sort()).toEqual([0, 1]);
  });

  it('records stay valid and unchanged while held, across many later records and chunks', () => {
    const held = Array.from({ length: 2000 }, (_, i) => {
      const item: Item = { pk: { S: `k${i}` }, v: { S: 'x'.repeat(i % 300) } };
      return { item, size: i, record: encodeItemRecord(item, i) };
    });
    for (const { item, size, record } of held) {
      expect(recordItemSize(record)).toBe(size);
      expect(decodeRecord(record)).toEqual(item);
    }
  });

  it('sizes up to 2^24 - 1 round-trip (DynamoDB items are at most 400 KB); larger ones are refused', () => {
    for (const size of [0, 255, 256, 65_535, 400 * 1024, 2 ** 24 - 1]) expect(recordItemSize(encodeItemRecord({ a: { NULL: true } }, size))).toBe(size);
    expect(() => encodeItemRecord({ a: { NULL: true } }, 2 ** 24)).toThrow(RangeError);
  });

  it('a decoder sees the item alone: trailer bytes are never read as attributes', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 9 }), fc.integer({ min: -1000, max: 1000 }), (s, b, n) => {
        const item: Item = { pk: { S: s.length > 0 ? s : 'x' }, b: { B: b }, n: { N: String(n) } };
        const record = encodeItemRecord(item, 1);
        expect(decodeRecord(record)).toEqual(item);
        expect(decodeRecordAttributes(record, new Set(['n']))).toEqual({ n: item.n });
        expect(() => decodeItem(record, RECORD_HEADER_BYTES)).toThrow(/trailing bytes/);
      }),
    );
  });
});

describe('records written before store format 3 (no trailer)', () => {
  it('decode alike, and withTextTrailer gives the same bytes a new write gives', () => {
    for (const item of items) {
      const legacy = legacyRecord(item, 42);
      expect(hasTextTrailer(legacy)).toBe(false);
      expect(recordItemSize(legacy)).toBe(42);
      expect(recordEnd(legacy)).toBe(legacy.length);
      expect(decodeRecord(legacy)).toEqual(item);
      const framed = withTextTrailer(legacy);
      expect([...framed]).toEqual([...encodeItemRecord(item, 42)]);
      expect(withTextTrailer(framed)).toBe(framed);
    }
  });
});

describe('recordSizeFromHead', () => {
  /** What storage getNumber returns for a record: its first 8 bytes as a native-order float64. */
  const headOf = (record: Uint8Array) => new Float64Array(Uint8Array.from(record.subarray(0, 8)).buffer)[0]!;

  it.each([0, 1, 255, 0x010203, 409_600, 0xffffff])('gives the header size %d of the smallest records, with or without a trailer', (size) => {
    for (const item of [{ k: { N: '0' } }, { k: { S: 'a' } }, { pk: { S: 'sensor-1' }, ts: { N: '1700000000000' } }] as Item[]) {
      const record = encodeItemRecord(item, size);
      expect(record.length).toBeGreaterThanOrEqual(8);
      expect(recordSizeFromHead(headOf(record))).toBe(size);
      expect(recordSizeFromHead(headOf(legacyRecord(item, size)))).toBe(size);
    }
  });

  it('refuses a NaN head (its payload may not survive), so the caller reads the record', () => {
    expect(recordSizeFromHead(Number.NaN)).toBeUndefined();
  });
});
