import { describe, expect, it } from 'vitest';
import { RECORD_HEADER_BYTES, encodeItemRecord, recordBody, recordItemSize, recordSizeFromHead } from '../../src/codec/item-record.js';
import { decodeItem, encodeItem } from '../../src/codec/item-value.js';
import type { Item } from '../../src/model/attribute-value.js';

describe('item record: size header + item', () => {
  it('holds the size in a big-endian u32 header and the item encoding after it', () => {
    const item: Item = { pk: { S: 'a' }, n: { N: '21.5' } };
    const record = encodeItemRecord(item, 0x01020304);
    expect([...record.subarray(0, RECORD_HEADER_BYTES)]).toEqual([1, 2, 3, 4]);
    expect(recordItemSize(record)).toBe(0x01020304);
    expect([...recordBody(record)]).toEqual([...encodeItem(item)]);
    expect(decodeItem(record, RECORD_HEADER_BYTES)).toEqual(item);
  });

  it('records stay valid and unchanged while held, across many later records and chunks', () => {
    const held = Array.from({ length: 2000 }, (_, i) => {
      const item: Item = { pk: { S: `k${i}` }, v: { S: 'x'.repeat(i % 300) } };
      return { item, size: i, record: encodeItemRecord(item, i) };
    });
    for (const { item, size, record } of held) {
      expect(recordItemSize(record)).toBe(size);
      expect(decodeItem(record, RECORD_HEADER_BYTES)).toEqual(item);
    }
  });

  it('sizes up to 2^32 - 1 round-trip', () => {
    for (const size of [0, 255, 256, 65_535, 400 * 1024, 2 ** 32 - 1]) expect(recordItemSize(encodeItemRecord({ a: { NULL: true } }, size))).toBe(size);
  });
});

describe('recordSizeFromHead', () => {
  /** What storage getNumber returns for a record: its first 8 bytes as a native-order float64. */
  const headOf = (record: Uint8Array) => new Float64Array(Uint8Array.from(record.subarray(0, 8)).buffer)[0]!;

  it.each([0, 1, 255, 0x01020304, 409_600, 0xffffffff])('gives the header size %d of the smallest records', (size) => {
    for (const item of [{ k: { N: '0' } }, { k: { S: 'a' } }, { pk: { S: 'sensor-1' }, ts: { N: '1700000000000' } }] as Item[]) {
      const record = encodeItemRecord(item, size);
      expect(record.length).toBeGreaterThanOrEqual(8);
      expect(recordSizeFromHead(headOf(record))).toBe(size);
    }
  });

  it('refuses a NaN head (its payload may not survive), so the caller reads the record', () => {
    expect(recordSizeFromHead(Number.NaN)).toBeUndefined();
  });
});
