/**
 * Reads of an item block (grammar atop item-block-writer.ts): a binary search of the restart
 * points by their keys, then a parse of the items from there; only items in range are built, the
 * others are parsed past (their strings and numbers are decoded only if a built item repeats
 * them). The header, the name table and each name sequence's object builder are looked up, not
 * decoded, per read (item-block-dictionary.ts).
 *
 * Items are built as the engine's internal Item (B as Uint8Array) or, with `asWire`, as a
 * response carries them (B as base64), and never alias the block, so a block read from LMDB's map
 * may go once the call returns. Not reentrant: a visitor must not read blocks; the module's parse
 * state is shared.
 */
import type { Item, KeyValue, WireItemOutput } from '../model/attribute-value.js';
import * as bufferSlices from './buffer-slices.js';
import * as dictionary from './item-block-dictionary.js';
import type { BlockHeader, BlockShape, NameTable } from './item-block-dictionary.js';
import * as format from './item-block-format.js';
import type { BlockLayout } from './item-block-format.js';
import * as numbers from './item-block-numbers.js';
import * as writer from './item-block-writer.js';
import * as itemReader from './item-reader.js';
import * as keyBytesCodec from './key-bytes.js';
import type { KeyType } from './key-bytes.js';

// Imported bindings read once, into module constants: run through tsx (the benchmarks), every use
// of an imported binding is a getter call, measured at a third of a point lookup's time.
const { slices } = bufferSlices;
const { buildObject, headerOf, nameTableOf, shapeIn, textAt } = dictionary;
const { CONSTANT_NULL, CONSTANT_TRUE, KIND_B, KIND_CBOR, KIND_CONSTANT, KIND_N, KIND_REPEAT, KIND_S_LITERAL, KIND_S_REF, RESTART_INTERVAL, TAG_LONG_ARG, readLayout, readU16 } = format;
const { plainIntegerOf, readPackedNumber } = numbers;
const { LAST_N, LAST_NONE, LAST_S } = writer;
const { readItem } = itemReader;
const { compareBytes, encodeKeyValue } = keyBytesCodec;

/** A sort key to compare a block's keys with, prepared once per read (sortKeyBound). */
export type SortKeyBound = {
  readonly type: KeyType;
  readonly key: KeyValue;
  /** plainIntegerOf an N key, else NaN. */
  readonly int: number;
  /** S: UTF-8; B: the bytes; N: its key-bytes encoding (key-bytes.ts), made when first compared as bytes. */
  bytes: Uint8Array | undefined;
  /** A range bound that excludes the key itself. */
  readonly exclusive: boolean;
};

export type Decoded<W extends boolean> = W extends true ? WireItemOutput : Item;
/** Gets each item read and its DynamoDB size; false ends the read. */
export type BlockVisitor<W extends boolean> = (item: Decoded<W>, size: number) => boolean | void;

const utf8 = new TextEncoder();

export function sortKeyBound(type: KeyType, key: KeyValue, exclusive = false): SortKeyBound {
  if (!(type in key)) throw new RangeError(`item block: the sort key is not of type ${type}`);
  if (type === 'N') return { type, key, int: plainIntegerOf((key as { N: string }).N), bytes: undefined, exclusive };
  const bytes = type === 'S' ? utf8.encode((key as { S: string }).S) : (key as { B: Uint8Array }).B;
  return { type, key, int: Number.NaN, bytes, exclusive };
}

// ---- parse state ------------------------------------------------------------------------------

const EMPTY = new Uint8Array(0);
let src: Uint8Array = EMPTY;
let at = 0;
let header!: BlockHeader;
let layout!: BlockLayout;
let table!: NameTable;
let itemIndex = 0;
let size = 0;
/** The key: N as its plain integer (else NaN, and the packed text at keyAt/keyLength); S, B in keyBytes. */
let keyInt = 0;
let keyAt = 0;
let keyLength = 0;
let keyBytes = new Uint8Array(256);
/** The current name sequence: name indices, its count, its shape once looked up. */
const indices: number[] = [];
let count = 0;
let shape: BlockShape | undefined;
/** Per name index, the latest value seen in the segment: its kind and where its payload is. */
const V_S = 0;
const V_N = 1;
const V_CONSTANT = 2;
const V_B = 3;
const V_CBOR = 4;
const V_NONE = 5;
let lastKind = new Uint8Array(64);
let lastAt = new Int32Array(64);
let lastLength = new Int32Array(64);
const values: unknown[] = [];

function corrupt(what: string): never {
  throw new RangeError(`item block: ${what}`);
}

function open(block: Uint8Array): void {
  src = block;
  header = headerOf(block);
  layout = readLayout(block);
  if (layout.namesAt < header.itemsAt) corrupt('items before the header ends');
  table = nameTableOf(block, layout);
  if (lastKind.length < layout.nameCount) {
    lastKind = new Uint8Array(layout.nameCount);
    lastAt = new Int32Array(layout.nameCount);
    lastLength = new Int32Array(layout.nameCount);
  }
}

function close(): void {
  src = EMPTY;
}

function readVarint(): number {
  let b = src[at++]!;
  if (b < 0x80) return b;
  let v = b & 0x7f;
  let scale = 128;
  do {
    if (at >= layout.namesAt) corrupt('truncated item');
    b = src[at++]!;
    v += (b & 0x7f) * scale;
    scale *= 128;
  } while (b >= 0x80);
  return v;
}

function startSegment(r: number): void {
  at = readU16(src, layout.restartsAt + 2 * r);
  if (at < header.itemsAt || at >= layout.namesAt) corrupt('restart out of range');
  itemIndex = r * RESTART_INTERVAL;
  lastKind.fill(V_NONE, 0, layout.nameCount);
}

function parseKey(): void {
  const restart = itemIndex % RESTART_INTERVAL === 0;
  if (header.skType === 'N') {
    const v = readVarint();
    if (v % 2 === 0) {
      if (!restart && keyInt !== keyInt) corrupt('integer delta after a non-integer key');
      keyInt = (restart ? 0 : keyInt) + v / 2;
    } else {
      keyInt = Number.NaN;
      keyAt = at;
      keyLength = (v - 1) / 2;
      at += keyLength;
    }
    return;
  }
  const shared = readVarint();
  const suffix = readVarint();
  if ((restart && shared > 0) || shared > keyLength || at + suffix > layout.namesAt) corrupt('malformed key');
  if (keyBytes.length < shared + suffix) {
    const grown = new Uint8Array(2 * (shared + suffix));
    grown.set(keyBytes.subarray(0, shared));
    keyBytes = grown;
  }
  keyBytes.set(src.subarray(at, at + suffix), shared);
  keyLength = shared + suffix;
  at += suffix;
}

/** Parses the item at `at` (its key, size, names and where each value is); builds nothing. */
function parseItem(): void {
  parseKey();
  size = readVarint();
  const head = readVarint();
  const n = Math.floor(head / 2);
  if (head % 2 === 1) {
    for (let i = 0; i < n; i++) {
      const index = readVarint();
      if (index >= layout.nameCount) corrupt('name index out of range');
      indices[i] = index;
    }
    count = n;
    shape = undefined;
  } else if (itemIndex % RESTART_INTERVAL === 0 || n !== count) corrupt('shape refers to no previous item');
  for (let i = 0; i < n; i++) parseValue(indices[i]!);
  if (at > layout.namesAt) corrupt('item past the items');
  itemIndex++;
}

function parseValue(index: number): void {
  const tag = src[at++]!;
  const kind = tag >> 5;
  let arg = tag & TAG_LONG_ARG;
  if (arg === TAG_LONG_ARG) arg = readVarint();
  switch (kind) {
    case KIND_S_LITERAL:
      lastKind[index] = V_S;
      lastAt[index] = at;
      lastLength[index] = arg;
      at += arg;
      return;
    case KIND_S_REF:
      return stringRef(index, arg);
    case KIND_N:
      lastKind[index] = V_N;
      lastAt[index] = at;
      lastLength[index] = arg;
      at += arg;
      return;
    case KIND_REPEAT:
      if (lastKind[index] !== V_S && lastKind[index] !== V_N) corrupt('repeat of no value');
      return;
    case KIND_CONSTANT:
      if (arg > CONSTANT_NULL) corrupt('unknown constant');
      lastKind[index] = V_CONSTANT;
      lastAt[index] = arg;
      return;
    case KIND_B:
    case KIND_CBOR:
      lastKind[index] = kind === KIND_B ? V_B : V_CBOR;
      lastAt[index] = at;
      lastLength[index] = arg;
      at += arg;
      return;
    default:
      corrupt('unknown value kind');
  }
}

function stringRef(index: number, ref: number): void {
  if (ref >= layout.stringCount) corrupt('string index out of range');
  let p = readU16(src, layout.stringsAt + 2 * ref);
  const tag = src[p++]!;
  if (tag >> 5 !== KIND_S_LITERAL || p >= layout.namesAt) corrupt('string directory points at no string');
  let length = tag & TAG_LONG_ARG;
  if (length === TAG_LONG_ARG) {
    const saved = at;
    at = p;
    length = readVarint();
    p = at;
    at = saved;
  }
  lastKind[index] = V_S;
  lastAt[index] = p;
  lastLength[index] = length;
}

/** The current key against `bound`: negative, 0 or positive. */
function compareKey(bound: SortKeyBound): number {
  if (header.skType === 'N') {
    if (keyInt === keyInt && bound.int === bound.int) return keyInt - bound.int;
    bound.bytes ??= encodeKeyValue(bound.key);
    return compareBytes(encodeKeyValue({ N: numberKeyText() }), bound.bytes);
  }
  const b = bound.bytes!;
  const n = keyLength < b.length ? keyLength : b.length;
  for (let i = 0; i < n; i++) if (keyBytes[i] !== b[i]) return keyBytes[i]! - b[i]!;
  return keyLength - b.length;
}

function numberKeyText(): string {
  return keyInt === keyInt ? String(keyInt) : readPackedNumber(src, keyAt, keyLength);
}

function sortKeyValue(asWire: boolean): unknown {
  switch (header.skType) {
    case 'N':
      return { N: numberKeyText() };
    case 'S':
      return { S: slices.utf8Slice.call(keyBytes, 0, keyLength) };
    default:
      return { B: asWire ? slices.base64Slice.call(keyBytes, 0, keyLength) : keyBytes.slice(0, keyLength) };
  }
}

function partitionKeyValue(asWire: boolean): unknown {
  const pk = header.pk;
  if ('S' in pk) return { S: pk.S };
  if ('N' in pk) return { N: pk.N };
  return { B: asWire ? header.pkBase64 : pk.B.slice() };
}

function valueOf(index: number, asWire: boolean): unknown {
  const from = lastAt[index]!;
  const to = from + lastLength[index]!;
  switch (lastKind[index]) {
    case V_S:
      return { S: textAt(src, from, to) };
    case V_N:
      return { N: readPackedNumber(src, from, to - from) };
    case V_CONSTANT:
      return from === CONSTANT_NULL ? { NULL: true } : { BOOL: from === CONSTANT_TRUE };
    case V_B:
      return { B: asWire ? slices.base64Slice.call(src, from, to) : src.slice(from, to) };
    case V_CBOR:
      return (readItem(src, asWire, from, undefined, to) as Record<string, unknown>)['']!;
    default:
      return corrupt('value of no kind');
  }
}

/** The item just parsed, built (its type is the caller's `asWire`'s). */
function buildItem<W extends boolean>(asWire: W): Decoded<W> {
  shape ??= shapeIn(table, header, indices, count);
  values.length = count + 2;
  values[0] = partitionKeyValue(asWire);
  values[1] = sortKeyValue(asWire);
  for (let i = 0; i < count; i++) values[i + 2] = valueOf(indices[i]!, asWire);
  return buildObject(shape, values) as unknown as Decoded<W>;
}

/** The restart whose segment holds the first item at or after `bound`: the last restart key <= bound, or 0. */
function seek(bound: SortKeyBound): number {
  let lo = 0;
  let hi = layout.restartCount - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    startSegment(mid);
    parseKey();
    if (compareKey(bound) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function beforeFrom(from: SortKeyBound): boolean {
  const c = compareKey(from);
  return c < 0 || (c === 0 && from.exclusive);
}

function afterTo(to: SortKeyBound): boolean {
  const c = compareKey(to);
  return c > 0 || (c === 0 && to.exclusive);
}

// ---- reads ------------------------------------------------------------------------------------

/**
 * Visits, in ascending order, the block's items from `from` to `to` (either open). True when the
 * block ran out before the range did (a walk goes on to the next block), false when an item past
 * `to` was reached or `visit` returned false.
 */
export function forwardItems<W extends boolean>(block: Uint8Array, from: SortKeyBound | undefined, to: SortKeyBound | undefined, asWire: W, visit: BlockVisitor<W>): boolean {
  open(block);
  try {
    startSegment(from === undefined ? 0 : seek(from));
    let checkFrom = from !== undefined;
    while (itemIndex < layout.itemCount) {
      if (itemIndex % RESTART_INTERVAL === 0) startSegment(itemIndex / RESTART_INTERVAL);
      parseItem();
      if (checkFrom && beforeFrom(from!)) continue;
      checkFrom = false;
      if (to !== undefined && afterTo(to)) return false;
      if (visit(buildItem(asWire), size) === false) return false;
    }
    return true;
  } finally {
    close();
  }
}

/**
 * Visits, in descending order, the block's items from `to` down to `from` (either open). True when
 * the block ran out before the range did (a walk goes on to the previous block), false when an
 * item before `from` was reached or `visit` returned false.
 */
export function reverseItems<W extends boolean>(block: Uint8Array, from: SortKeyBound | undefined, to: SortKeyBound | undefined, asWire: W, visit: BlockVisitor<W>): boolean {
  open(block);
  const items: Decoded<W>[] = [];
  const sizes: number[] = [];
  try {
    for (let r = to === undefined ? layout.restartCount - 1 : seek(to); r >= 0; r--) {
      startSegment(r);
      const end = Math.min(layout.itemCount, (r + 1) * RESTART_INTERVAL);
      let reachedFrom = false;
      items.length = 0;
      sizes.length = 0;
      while (itemIndex < end) {
        parseItem();
        if (to !== undefined && afterTo(to)) break;
        if (from !== undefined && beforeFrom(from)) {
          reachedFrom = true;
          continue;
        }
        items.push(buildItem(asWire));
        sizes.push(size);
      }
      // Built before visiting: a visitor may not read blocks while this one is parsed.
      const segmentItems = items.slice();
      const segmentSizes = sizes.slice();
      close();
      for (let i = segmentItems.length - 1; i >= 0; i--) if (visit(segmentItems[i]!, segmentSizes[i]!) === false) return false;
      if (reachedFrom) return false;
      if (r > 0) open(block);
    }
    return true;
  } finally {
    close();
  }
}

/** The item whose sort key equals `key`, and its size; undefined when the block has none. */
export function getBlockItem<W extends boolean>(block: Uint8Array, key: SortKeyBound, asWire: W): { item: Decoded<W>; size: number } | undefined {
  open(block);
  try {
    startSegment(seek(key));
    const end = Math.min(layout.itemCount, itemIndex + RESTART_INTERVAL);
    while (itemIndex < end) {
      parseItem();
      const c = compareKey(key);
      if (c === 0) return { item: buildItem(asWire), size };
      if (c > 0) return undefined;
    }
    return undefined;
  } finally {
    close();
  }
}

/** The number of items in the block (its footer's count). */
export function blockItemCount(block: Uint8Array): number {
  return readLayout(block).itemCount;
}

/** The block's first or last sort key. */
export function blockSortKey(block: Uint8Array, which: 'first' | 'last'): KeyValue {
  open(block);
  try {
    const r = which === 'first' ? 0 : layout.restartCount - 1;
    startSegment(r);
    const end = which === 'first' ? itemIndex + 1 : layout.itemCount;
    while (itemIndex < end) parseItem();
    return sortKeyValue(false) as KeyValue;
  } finally {
    close();
  }
}

/** What rebuilding a block's tail state needs from its last segment (item-block.ts blockTail). */
export type TailSegment = {
  readonly lastKey: KeyValue;
  /** An N key written as an integer delta (the next may be a delta from it). */
  readonly lastKeyIsDelta: boolean;
  readonly shape: readonly number[];
  /** Per name index: LAST_S, LAST_N or LAST_NONE, and the text of an S or N. */
  readonly lastKind: readonly number[];
  readonly lastValue: readonly string[];
};

export function tailSegment(block: Uint8Array): TailSegment {
  open(block);
  try {
    startSegment(layout.restartCount - 1);
    while (itemIndex < layout.itemCount) parseItem();
    const kinds: number[] = [];
    const texts: string[] = [];
    for (let i = 0; i < layout.nameCount; i++) {
      const kind = lastKind[i];
      const from = lastAt[i]!;
      const to = from + lastLength[i]!;
      kinds.push(kind === V_S ? LAST_S : kind === V_N ? LAST_N : LAST_NONE);
      texts.push(kind === V_S ? textAt(src, from, to) : kind === V_N ? readPackedNumber(src, from, to - from) : '');
    }
    return { lastKey: sortKeyValue(false) as KeyValue, lastKeyIsDelta: header.skType === 'N' && keyInt === keyInt, shape: indices.slice(0, count), lastKind: kinds, lastValue: texts };
  } finally {
    close();
  }
}
