/**
 * The value stored for one base item in a partition sub-database, or one index entry.
 *
 *   record   := head:u32be item:cbor trailer
 *   head     := flags:u8 size:u24
 *   flags    := 0x80 when the record has a text trailer, | 0x40 when that trailer is 3 bytes long;
 *               0 in records written before store format 3 (no trailer)
 *   size     := the item's DynamoDB size in bytes (spec §1.5, at most 400 KB), precomputed on write
 *   item     := the item encoded by codec/item-value.ts; in a base record (not an index entry) its
 *               top-level names may be codes of the table's dictionary (attribute-name-codes.ts)
 *   trailer  := 2 zero bytes, or 3 when head and item are odd in length: the record is then an
 *               even number of bytes ending in a zero 16-bit unit, which LMDB's string read takes
 *               as UTF-16 text (storage/text-values.ts), so reads need no native Buffer per record
 *
 * Carrying the size lets Query and Scan meter capacity and cut 1 MB pages without decoding items
 * they will filter out or only count. The flags make a record's length without its trailer
 * readable from the record alone, so records of both forms decode alike (a store being migrated,
 * table/text-records.ts). Item format version 2 (item-value.ts); a version 1 record (every name
 * inline, stores from before the dictionary) is a valid version 2 record.
 */
import type { Item, WireItemOutput } from '../model/attribute-value.js';
import type { NameDecoder, NameEncoder } from './attribute-name-codes.js';
import { readItem, readItemAttributes } from './item-reader.js';
import { LONG_TEXT_TRAILER, writeItem } from './item-writer.js';

export const RECORD_HEADER_BYTES = 4;

const TEXT_TRAILER = 0x80;
const LONG_TRAILER = LONG_TEXT_TRAILER;
/** Sizes are at most 400 KB; the head's low 24 bits hold them. */
const MAX_RECORD_ITEM_SIZE = 0xffffff;

/**
 * The record of `item`, with its text trailer: written in one pass after a reserved header (no
 * second buffer or copy), as a view with encodeItem's lifetime (valid and unchanged while held;
 * copy it to keep many). `codes`: the table's dictionary, for base records (index entries keep
 * every name inline).
 */
export function encodeItemRecord(item: Item, size: number, codes?: NameEncoder): Uint8Array {
  if (!(size >= 0 && size <= MAX_RECORD_ITEM_SIZE)) throw new RangeError(`item record: size ${size} outside 0..${MAX_RECORD_ITEM_SIZE}`);
  const out = writeItem(item, RECORD_HEADER_BYTES, codes, true);
  return withHead(out, size, out[0] === LONG_TRAILER ? 3 : 2);
}

/**
 * The same record with a text trailer: `record` itself when it has one, else a copy with the
 * trailer added (a record written before store format 3).
 */
export function withTextTrailer(record: Uint8Array): Uint8Array {
  if (hasTextTrailer(record)) return record;
  const odd = record.length & 1;
  const out = new Uint8Array(record.length + 2 + odd);
  out.set(record);
  return withHead(out, recordItemSize(record), 2 + odd);
}

/** Whether `record` ends in a text trailer (its head says so). */
export function hasTextTrailer(record: Uint8Array): boolean {
  return (record[0]! & TEXT_TRAILER) !== 0;
}

/** The item size stored in a record header. */
export function recordItemSize(record: Uint8Array): number {
  return (record[1]! << 16) | (record[2]! << 8) | record[3]!;
}

/** Where the record's item ends: before its trailer, if it has one. */
export function recordEnd(record: Uint8Array): number {
  const flags = record[0]!;
  return (flags & TEXT_TRAILER) === 0 ? record.length : record.length - ((flags & LONG_TRAILER) === 0 ? 2 : 3);
}

/** The CBOR body of a record, as a view (no copy; valid as long as `record` is). */
export function recordBody(record: Uint8Array): Uint8Array {
  return record.subarray(RECORD_HEADER_BYTES, recordEnd(record));
}

/** The record's item, decoded in place (internal form; never aliases `record`). */
export function decodeRecord(record: Uint8Array, names?: NameDecoder): Item {
  return readItem(record, false, RECORD_HEADER_BYTES, names, recordEnd(record)) as Item;
}

/** The record's item in the response form (B as base64). */
export function decodeRecordToWire(record: Uint8Array, names?: NameDecoder): WireItemOutput {
  return readItem(record, true, RECORD_HEADER_BYTES, names, recordEnd(record)) as WireItemOutput;
}

/** Only the record's top-level attributes in `names` (key attributes: never coded). */
export function decodeRecordAttributes(record: Uint8Array, names: ReadonlySet<string>, codes?: NameDecoder): Item {
  return readItemAttributes(record, names, false, RECORD_HEADER_BYTES, codes, recordEnd(record)) as Item;
}

function withHead(record: Uint8Array, size: number, trailer: number): Uint8Array {
  record[0] = TEXT_TRAILER | (trailer === 3 ? LONG_TRAILER : 0);
  record[1] = (size >>> 16) & 0xff;
  record[2] = (size >>> 8) & 0xff;
  record[3] = size & 0xff;
  return record;
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
  return (HEAD_BYTES[1]! << 16) | (HEAD_BYTES[2]! << 8) | HEAD_BYTES[3]!;
}
