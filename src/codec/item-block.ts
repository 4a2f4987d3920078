/**
 * Item blocks as a whole (format: item-block-writer.ts; reads: item-block-reader.ts): the tail
 * state of a block rebuilt from its bytes, and the changes an append cannot make, a put of an
 * item that is not after the last one (insert or replace) and a delete, by decoding the block's
 * items and encoding them again.
 */
import type { KeyValue } from '../model/attribute-value.js';
import { headerOf, nameTableOf, textAt } from './item-block-dictionary.js';
import { KIND_S_LITERAL, TAG_LONG_ARG, readLayout, readU16 } from './item-block-format.js';
import { plainIntegerOf } from './item-block-numbers.js';
import { forwardItems, tailSegment } from './item-block-reader.js';
import { BlockTail, encodeBlock, type BlockEntry, type BlockSchema } from './item-block-writer.js';
import { compareBytes, encodeKeyValue } from './key-bytes.js';

const utf8 = new TextEncoder();

/** The key schema and partition key of the block's items. */
export function blockSchema(block: Uint8Array): { schema: BlockSchema; pk: KeyValue } {
  const h = headerOf(block);
  const pk: KeyValue = 'B' in h.pk ? { B: h.pk.B.slice() } : h.pk;
  return { schema: { pkName: h.pkName, pkType: h.pkType, skName: h.skName, skType: h.skType }, pk };
}

/** The block's tail state, from its bytes: its trailer and its last segment (at most 8 items) are read. */
export function blockTail(block: Uint8Array): BlockTail {
  const { schema, pk } = blockSchema(block);
  const layout = readLayout(block);
  const tail = new BlockTail(schema, pk, block.slice(0, headerOf(block).itemsAt));
  for (const name of nameTableOf(block, layout).names) {
    tail.nameIndex.set(name, tail.names.length);
    tail.names.push(name);
  }
  tail.namesBytes = Array.from(block.subarray(layout.namesAt, layout.stringsAt));
  for (let i = 0; i < layout.stringCount; i++) {
    const offset = readU16(block, layout.stringsAt + 2 * i);
    tail.stringOffsets.push(offset);
    tail.stringIndex.set(stringAt(block, offset), i);
  }
  for (let r = 0; r < layout.restartCount; r++) tail.restarts.push(readU16(block, layout.restartsAt + 2 * r));
  const segment = tailSegment(block);
  tail.shape = segment.shape.slice();
  tail.lastKind = segment.lastKind.slice();
  tail.lastValue = segment.lastValue.slice();
  const key = segment.lastKey;
  if ('N' in key) {
    tail.lastInt = segment.lastKeyIsDelta ? plainIntegerOf(key.N) : Number.NaN;
    tail.lastText = key.N;
    tail.lastBytes = encodeKeyValue(key);
  } else tail.lastBytes = 'S' in key ? utf8.encode(key.S) : key.B;
  tail.count = layout.itemCount;
  tail.itemsEnd = layout.namesAt;
  tail.length = block.length;
  return tail;
}

function stringAt(block: Uint8Array, offset: number): string {
  const tag = block[offset]!;
  if (tag >> 5 !== KIND_S_LITERAL) throw new RangeError('item block: string directory points at no string');
  let length = tag & TAG_LONG_ARG;
  let at = offset + 1;
  if (length === TAG_LONG_ARG) {
    length = 0;
    let scale = 1;
    let b: number;
    do {
      b = block[at++]!;
      length += (b & 0x7f) * scale;
      scale *= 128;
    } while (b >= 0x80);
  }
  return textAt(block, at, at + length);
}

/** The block's items in order, as the engine's Items with their sizes. */
export function decodeBlockEntries(block: Uint8Array): BlockEntry[] {
  const entries: BlockEntry[] = [];
  forwardItems(block, undefined, undefined, false, (item, size) => void entries.push({ item, size }));
  return entries;
}

/** DynamoDB's order of two sort keys of one type (the key-bytes order). */
export function compareSortKeys(a: KeyValue, b: KeyValue): number {
  return compareBytes(encodeKeyValue(a), encodeKeyValue(b));
}

/** Where `entries` (ascending) hold `key`, or would: the first index whose key is >= it, and whether it is equal. */
function positionOf(entries: readonly BlockEntry[], skName: string, key: KeyValue): { index: number; found: boolean } {
  const bytes = encodeKeyValue(key);
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareBytes(encodeKeyValue(entries[mid]!.item[skName] as KeyValue), bytes) < 0) lo = mid + 1;
    else hi = mid;
  }
  const found = lo < entries.length && compareBytes(encodeKeyValue(entries[lo]!.item[skName] as KeyValue), bytes) === 0;
  return { index: lo, found };
}

/** The entries of `block` with `entry` put in: replacing the item of its sort key, or inserted in order. */
export function entriesWith(block: Uint8Array, entry: BlockEntry): BlockEntry[] {
  const { schema } = blockSchema(block);
  const entries = decodeBlockEntries(block);
  const key = entry.item[schema.skName];
  if (key === undefined || !(schema.skType in key)) throw new RangeError(`item block: the item has no ${schema.skType} key attribute ${schema.skName}`);
  const { index, found } = positionOf(entries, schema.skName, key as KeyValue);
  entries.splice(index, found ? 1 : 0, entry);
  return entries;
}

/** `block` re-encoded with `entry` put in (replace or insert); its tail is the result's. */
export function putInBlock(block: Uint8Array, entry: BlockEntry): { block: Uint8Array; tail: BlockTail } {
  const { schema, pk } = blockSchema(block);
  return encodeBlock(schema, pk, entriesWith(block, entry));
}

/**
 * `block` re-encoded without the item of sort key `key` (`deleted`), or `block` itself when it has
 * none; `block` undefined when that item was its only one.
 */
export function deleteFromBlock(block: Uint8Array, key: KeyValue): { block: Uint8Array | undefined; deleted: boolean } {
  const { schema, pk } = blockSchema(block);
  const entries = decodeBlockEntries(block);
  const { index, found } = positionOf(entries, schema.skName, key);
  if (!found) return { block, deleted: false };
  entries.splice(index, 1);
  return { block: entries.length === 0 ? undefined : encodeBlock(schema, pk, entries).block, deleted: true };
}
