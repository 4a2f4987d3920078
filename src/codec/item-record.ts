/**
 * The value stored for one base item in a partition sub-database.
 *
 *   record   := size:u32be item:cbor
 *   size     := the item's DynamoDB size in bytes (spec §1.5), precomputed on write
 *   item     := the item encoded by codec/item-value.ts
 *
 * Carrying the size lets Query and Scan meter capacity and cut 1 MB pages without decoding items
 * they will filter out or only count. Format version 1; the table definition's formatVersion
 * guards it.
 */
import { encodeItem } from './item-value.js';
import type { Item } from '../model/attribute-value.js';

export const RECORD_HEADER_BYTES = 4;

export function encodeItemRecord(item: Item, size: number): Uint8Array {
  const body = encodeItem(item);
  const out = new Uint8Array(RECORD_HEADER_BYTES + body.length);
  new DataView(out.buffer, out.byteOffset, 4).setUint32(0, size);
  out.set(body, RECORD_HEADER_BYTES);
  return out;
}

/** The item size stored in a record header. */
export function recordItemSize(record: Uint8Array): number {
  return ((record[0]! << 24) | (record[1]! << 16) | (record[2]! << 8) | record[3]!) >>> 0;
}

/** The CBOR body of a record, as a view (no copy; valid as long as `record` is). */
export function recordBody(record: Uint8Array): Uint8Array {
  return record.subarray(RECORD_HEADER_BYTES);
}
