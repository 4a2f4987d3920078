/**
 * The value stored for one base item in a partition sub-database.
 *
 *   record   := size:u32be item:cbor
 *   size     := the item's DynamoDB size in bytes (spec §1.5), precomputed on write
 *   item     := the item encoded by codec/item-value.ts; in a base record (not an index entry) its
 *               top-level names may be codes of the table's dictionary (attribute-name-codes.ts)
 *
 * Carrying the size lets Query and Scan meter capacity and cut 1 MB pages without decoding items
 * they will filter out or only count. Item format version 2 (item-value.ts); a version 1 record
 * (every name inline, stores from before the dictionary) is a valid version 2 record.
 */
import { writeItem } from './item-writer.js';
import type { Item } from '../model/attribute-value.js';
import type { NameEncoder } from './attribute-name-codes.js';

export const RECORD_HEADER_BYTES = 4;

/**
 * The record of `item`: written in one pass after a reserved header (no second buffer or copy), as
 * a view with encodeItem's lifetime (valid and unchanged while held; copy it to keep many).
 * `codes`: the table's dictionary, for base records (index entries keep every name inline).
 */
export function encodeItemRecord(item: Item, size: number, codes?: NameEncoder): Uint8Array {
  const out = writeItem(item, RECORD_HEADER_BYTES, codes);
  out[0] = size >>> 24;
  out[1] = (size >>> 16) & 0xff;
  out[2] = (size >>> 8) & 0xff;
  out[3] = size & 0xff;
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

/** getNumber's float64 seen as its 8 bytes in memory (native order, as getNumber read them). */
const HEAD_NUMBER = new Float64Array(1);
const HEAD_BYTES = new Uint8Array(HEAD_NUMBER.buffer);

/**
 * The item size in the header of a record whose first 8 bytes, read as a native-order float64
 * (storage ReadTxn.getNumber), are `head`: the size without copying the record out. undefined when
 * `head` is NaN, whose payload the engine need not keep: read the record itself then. Every record
 * is at least 8 bytes long (header, map head, and a key attribute's name and value).
 */
export function recordSizeFromHead(head: number): number | undefined {
  if (head !== head) return undefined;
  HEAD_NUMBER[0] = head;
  return ((HEAD_BYTES[0]! << 24) | (HEAD_BYTES[1]! << 16) | (HEAD_BYTES[2]! << 8) | HEAD_BYTES[3]!) >>> 0;
}
