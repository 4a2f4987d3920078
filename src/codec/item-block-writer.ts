/**
 * Item blocks, format version 2: one partition key's items in ascending sort-key order, packed in
 * one value, each item encoded against the ones before it in its segment (the items from one
 * restart point to the next). Docs: docs/decisions/022-item-blocks.md.
 *
 *   block    := header item* names strings restarts pad? footer
 *   header   := 0x02 length:varint skType:u8 pkType:u8 pkName:text skName:text pkValue:text
 *               ; length: the header's bytes after itself; types 0 S, 1 N, 2 B; pkValue: S as
 *               ; UTF-8, N as its text, B raw
 *   text     := length:varint byte*
 *   item     := key size:varint shape value*          ; size: the item's DynamoDB size
 *   key      := varint(2d)                            ; N: d = key - the previous key, both plain
 *                                                     ;   integers (plainIntegerOf); at a restart
 *                                                     ;   the previous key is 0
 *             | varint(2b + 1) packed                 ; N: the exact text in b packed bytes
 *             | shared:varint suffix:text             ; S (UTF-8), B: bytes shared with the previous
 *                                                     ;   key, none at a restart
 *   shape    := varint(2n + 1) nameIndex:varint{n}    ; the item's n non-key names, in value order
 *             | varint(2n)                            ; the previous item's n names (not at a restart)
 *   value    := tag:u8 [arg:varint when tag & 31 = 31] payload   ; kind = tag >> 5, arg = tag & 31
 *     kind 0  S literal: arg = UTF-8 length, the bytes; the block's next string
 *     kind 1  S: arg = index of a string literal of the block
 *     kind 2  N: arg = packed bytes (item-block-numbers.ts)
 *     kind 3  the value of this name in the segment's latest item that had it, an S or N (arg 0)
 *     kind 4  arg 0 false, 1 true, 2 NULL
 *     kind 5  B: arg = length, the bytes
 *     kind 6  L, M, SS, NS, BS: arg = length, the item CBOR (item-value.ts) of the map {"": value}
 *   names    := text{nameCount}                       ; the block's attribute names, index order
 *   strings  := offset:u16le{stringCount}             ; each S literal's tag byte, in order
 *   restarts := offset:u16le{ceil(itemCount / 8)}     ; items 0, 8, 16, ... (RESTART_INTERVAL)
 *   pad      := 0x00 when padded = 1                  ; makes the block's length even
 *   footer   := namesAt:u16le nameCount:u16le stringCount:u16le itemCount:u16le padded:u8 0x00 0x00
 *
 * A block is even in length and ends in a zero 16-bit unit, like a record (item-record.ts): a
 * text value, which the storage layer reads without a native Buffer (storage/text-values.ts).
 *
 * A restart item refers to nothing before it but the names and strings, which the trailer
 * locates, so a read binary-searches the restarts by their keys and parses at most 8 items to
 * reach any one. Items are never rewritten by an append: the new item is written after the last
 * against the block's tail state (BlockTail), and the trailer after it; LMDB has no partial
 * write, so the value is still copied whole. A replace or delete re-encodes (item-block.ts).
 *
 * Not reentrant (one module-level output buffer).
 */
import type { AttributeValue, Item, KeyValue } from '../model/attribute-value.js';
import {
  BLOCK_FORMAT_VERSION, CONSTANT_FALSE, CONSTANT_NULL, CONSTANT_TRUE, FOOTER_BYTES, KEY_TYPE_CODES, KIND_B, KIND_CBOR, KIND_CONSTANT,
  KIND_N, KIND_REPEAT, KIND_S_LITERAL, KIND_S_REF, MAX_BLOCK_BYTES, RESTART_INTERVAL, TAG_LONG_ARG,
} from './item-block-format.js';
import { packedNumberBytes, plainIntegerOf, writePackedNumber } from './item-block-numbers.js';
import { writeItem } from './item-writer.js';
import { compareBytes, encodeKeyValue, type KeyType } from './key-bytes.js';

/** The key schema every item of a block has; the partition key's value is the block's. */
export type BlockSchema = { readonly pkName: string; readonly pkType: KeyType; readonly skName: string; readonly skType: KeyType };

/** One item to write and its DynamoDB size (model/item-size.ts), kept for capacity metering. */
export type BlockEntry = { readonly item: Item; readonly size: number };

/** A value's kind as the repeat rule sees it: S or N texts repeat, anything else does not. */
export const LAST_NONE = 0;
export const LAST_S = 1;
export const LAST_N = 2;

/**
 * What writing the next item of a block needs (its names, strings, restarts, last key, and the
 * current segment's shape and values), for the block of exactly `length` bytes. An append that
 * fails (too long, a key out of order) leaves it stale (length -1): rebuild it (blockTail).
 */
export class BlockTail {
  length = -1;
  itemsEnd = 0;
  count = 0;
  readonly names: string[] = [];
  readonly nameIndex = new Map<string, number>();
  /** The names section's bytes, written again after each append. */
  namesBytes: number[] = [];
  readonly stringOffsets: number[] = [];
  readonly stringIndex = new Map<string, number>();
  readonly restarts: number[] = [];
  /** The last key: its value when written as an integer delta (N, else NaN), its text (N) and its bytes (UTF-8 S, B; N: key-bytes encoding, to compare). */
  lastInt = Number.NaN;
  lastText = '';
  lastBytes: Uint8Array = new Uint8Array(0);
  /** The previous item's name indices; per name index, its latest S or N value in the segment. */
  shape: number[] = [];
  lastKind: number[] = [];
  lastValue: string[] = [];
  constructor(
    readonly schema: BlockSchema,
    readonly pk: KeyValue,
    readonly header: Uint8Array,
  ) {}
}

const utf8 = new TextEncoder();
let out = new Uint8Array(8 * 1024);
let pos = 0;

function ensure(n: number): void {
  if (pos + n <= out.length) return;
  const grown = new Uint8Array(Math.max(2 * out.length, pos + n));
  grown.set(out.subarray(0, pos));
  out = grown;
}

function varint(v: number): void {
  ensure(8);
  while (v >= 0x80) {
    out[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
}

function bytes(b: Uint8Array): void {
  varint(b.length);
  ensure(b.length);
  out.set(b, pos);
  pos += b.length;
}

function tag(kind: number, arg: number): void {
  ensure(1);
  if (arg < TAG_LONG_ARG) out[pos++] = (kind << 5) | arg;
  else {
    out[pos++] = (kind << 5) | TAG_LONG_ARG;
    varint(arg);
  }
}

function u16(v: number): void {
  ensure(2);
  out[pos++] = v & 0xff;
  out[pos++] = v >>> 8;
}

function keyBytesOf(type: KeyType, value: KeyValue): Uint8Array {
  if (type === 'S') return utf8.encode((value as { S: string }).S);
  if (type === 'B') return (value as { B: Uint8Array }).B;
  return encodeKeyValue(value);
}

function sameKey(type: KeyType, a: KeyValue, b: KeyValue): boolean {
  if (type === 'B') return compareBytes((a as { B: Uint8Array }).B, (b as { B: Uint8Array }).B) === 0;
  return (a as { S?: string; N?: string })[type] === (b as { S?: string; N?: string })[type];
}

function keyOf(item: Item, name: string, type: KeyType): KeyValue {
  const v = item[name];
  if (v === undefined || !(type in v)) throw new RangeError(`item block: the item has no ${type} key attribute ${name}`);
  return v as KeyValue;
}

/** The header of a block of `pk`'s items. */
export function encodeBlockHeader(schema: BlockSchema, pk: KeyValue): Uint8Array {
  pos = 0;
  out[pos++] = KEY_TYPE_CODES[schema.skType];
  out[pos++] = KEY_TYPE_CODES[schema.pkType];
  bytes(utf8.encode(schema.pkName));
  bytes(utf8.encode(schema.skName));
  bytes(schema.pkType === 'N' ? utf8.encode((pk as { N: string }).N) : keyBytesOf(schema.pkType, pk));
  const body = out.slice(0, pos);
  pos = 0;
  out[pos++] = BLOCK_FORMAT_VERSION;
  varint(body.length);
  ensure(body.length);
  out.set(body, pos);
  pos += body.length;
  return out.slice(0, pos);
}

/** A block of `entries` (ascending, unique sort keys) and its tail. RangeError when it cannot be written. */
export function encodeBlock(schema: BlockSchema, pk: KeyValue, entries: readonly BlockEntry[]): { block: Uint8Array; tail: BlockTail } {
  if (entries.length === 0) throw new RangeError('item block: no items');
  const tail = new BlockTail(schema, pk, encodeBlockHeader(schema, pk));
  pos = 0;
  ensure(tail.header.length);
  out.set(tail.header, 0);
  pos = tail.header.length;
  for (const entry of entries) writeEntry(tail, entry);
  const block = finish(tail, MAX_BLOCK_BYTES);
  if (block === undefined) throw new RangeError(`item block: longer than ${MAX_BLOCK_BYTES} bytes`);
  return { block, tail };
}

/**
 * `block` with `entry` after its last item (its sort key must be greater), the earlier items'
 * bytes copied, not re-encoded; `tail` (the block's, see BlockTail) then describes the result.
 * Undefined, with `tail` stale, when the result would exceed `maxBytes`.
 */
export function appendToBlock(block: Uint8Array, tail: BlockTail, entry: BlockEntry, maxBytes = MAX_BLOCK_BYTES): Uint8Array | undefined {
  if (tail.length !== block.length) throw new RangeError('item block: the tail state is not this block\'s');
  tail.length = -1;
  pos = 0;
  ensure(tail.itemsEnd);
  out.set(block.subarray(0, tail.itemsEnd), 0);
  pos = tail.itemsEnd;
  writeEntry(tail, entry);
  return finish(tail, Math.min(maxBytes, MAX_BLOCK_BYTES));
}

function finish(tail: BlockTail, maxBytes: number): Uint8Array | undefined {
  tail.itemsEnd = pos;
  ensure(tail.namesBytes.length);
  for (const b of tail.namesBytes) out[pos++] = b;
  for (const offset of tail.stringOffsets) u16(offset);
  for (const offset of tail.restarts) u16(offset);
  const padded = (pos + FOOTER_BYTES) % 2;
  ensure(FOOTER_BYTES + padded);
  if (padded === 1) out[pos++] = 0;
  u16(tail.itemsEnd);
  u16(tail.names.length);
  u16(tail.stringOffsets.length);
  u16(tail.count);
  out[pos++] = padded;
  out[pos++] = 0;
  out[pos++] = 0;
  if (pos > maxBytes || tail.itemsEnd > MAX_BLOCK_BYTES) {
    tail.length = -1;
    return undefined;
  }
  tail.length = pos;
  return out.slice(0, pos);
}

function writeEntry(tail: BlockTail, entry: BlockEntry): void {
  const { schema } = tail;
  const item = entry.item;
  const pk = keyOf(item, schema.pkName, schema.pkType);
  if (!sameKey(schema.pkType, pk, tail.pk)) throw new RangeError('item block: the item is of another partition key');
  if (tail.count >= 0xffff) throw new RangeError('item block: too many items');
  const restart = tail.count % RESTART_INTERVAL === 0;
  if (restart) {
    tail.restarts.push(pos);
    tail.lastKind.fill(LAST_NONE);
  }
  writeKey(tail, keyOf(item, schema.skName, schema.skType), restart);
  varint(entry.size);
  writeShape(tail, item, restart);
  for (const index of tail.shape) writeValue(tail, index, item[tail.names[index]!]!);
  tail.count++;
}

function writeKey(tail: BlockTail, key: KeyValue, restart: boolean): void {
  const type = tail.schema.skType;
  const keyBytes = keyBytesOf(type, key);
  if (tail.count > 0 && compareKeys(type, key, keyBytes, tail) <= 0) throw new RangeError('item block: sort keys must ascend');
  if (type === 'N') {
    const text = (key as { N: string }).N;
    const int = plainIntegerOf(text);
    const base = restart ? 0 : tail.lastInt;
    if (int >= base) {
      varint(2 * (int - base));
      tail.lastInt = int;
    } else {
      const n = packedNumberBytes(text);
      varint(2 * n + 1);
      ensure(n);
      pos = writePackedNumber(text, out, pos);
      // A reader learns no integer from a key written as text: the next key is not a delta from it.
      tail.lastInt = Number.NaN;
    }
    tail.lastText = text;
  } else {
    const last = tail.lastBytes;
    let shared = 0;
    if (!restart) {
      const max = Math.min(last.length, keyBytes.length);
      while (shared < max && last[shared] === keyBytes[shared]) shared++;
    }
    varint(shared);
    bytes(keyBytes.subarray(shared));
  }
  tail.lastBytes = type === 'B' ? keyBytes.slice() : keyBytes;
}

function compareKeys(type: KeyType, key: KeyValue, keyBytes: Uint8Array, tail: BlockTail): number {
  if (type === 'N') {
    const int = plainIntegerOf((key as { N: string }).N);
    if (int === int && tail.lastInt === tail.lastInt) return int - tail.lastInt;
  }
  return compareBytes(keyBytes, tail.lastBytes);
}

const indices: number[] = [];

function writeShape(tail: BlockTail, item: Item, restart: boolean): void {
  const { pkName, skName } = tail.schema;
  indices.length = 0;
  for (const name in item) {
    if (name === pkName || name === skName) continue;
    let index = tail.nameIndex.get(name);
    if (index === undefined) {
      index = tail.names.length;
      tail.names.push(name);
      tail.nameIndex.set(name, index);
      tail.lastKind.push(LAST_NONE);
      tail.lastValue.push('');
      const encoded = utf8.encode(name);
      pushVarint(tail.namesBytes, encoded.length);
      for (const b of encoded) tail.namesBytes.push(b);
    }
    indices.push(index);
  }
  const shape = tail.shape;
  let same = !restart && shape.length === indices.length;
  for (let i = 0; same && i < indices.length; i++) same = shape[i] === indices[i];
  const n = indices.length;
  if (same) return varint(2 * n);
  varint(2 * n + 1);
  for (const index of indices) varint(index);
  tail.shape = indices.slice();
}

function pushVarint(target: number[], v: number): void {
  while (v >= 0x80) {
    target.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  target.push(v);
}

function writeValue(tail: BlockTail, index: number, value: AttributeValue): void {
  if ('S' in value) return writeText(tail, index, value.S, LAST_S);
  if ('N' in value) return writeText(tail, index, value.N, LAST_N);
  tail.lastKind[index] = LAST_NONE;
  if ('B' in value) {
    tag(KIND_B, value.B.length);
    ensure(value.B.length);
    out.set(value.B, pos);
    pos += value.B.length;
  } else if ('BOOL' in value) tag(KIND_CONSTANT, value.BOOL ? CONSTANT_TRUE : CONSTANT_FALSE);
  else if ('NULL' in value) tag(KIND_CONSTANT, CONSTANT_NULL);
  else {
    const cbor = writeItem({ '': value });
    tag(KIND_CBOR, cbor.length);
    ensure(cbor.length);
    out.set(cbor, pos);
    pos += cbor.length;
  }
}

function writeText(tail: BlockTail, index: number, text: string, kind: number): void {
  if (tail.lastKind[index] === kind && tail.lastValue[index] === text) return tag(KIND_REPEAT, 0);
  tail.lastKind[index] = kind;
  tail.lastValue[index] = text;
  if (kind === LAST_N) {
    const n = packedNumberBytes(text);
    tag(KIND_N, n);
    ensure(n);
    pos = writePackedNumber(text, out, pos);
    return;
  }
  const ref = tail.stringIndex.get(text);
  if (ref !== undefined) return tag(KIND_S_REF, ref);
  tail.stringIndex.set(text, tail.stringOffsets.length);
  tail.stringOffsets.push(pos);
  // Room for the longest tag and the text, so the tag is written without a regrow under the text.
  ensure(3 * text.length + 16);
  const at = pos;
  const encoded = utf8.encodeInto(text, out.subarray(at + 6)).written ?? 0;
  tag(KIND_S_LITERAL, encoded);
  out.copyWithin(pos, at + 6, at + 6 + encoded);
  pos += encoded;
}

