/**
 * What every read of a block would otherwise decode again: its header (key names, types and the
 * partition key's value), its name table, short texts, and the object builder of each name
 * sequence. Each is looked up by its bytes (hashed, then compared byte for byte), so a read of a
 * block seen before decodes none of them, and equal names come back as the same strings.
 * Bounded: direct-mapped tables (a collision replaces), SHAPES_PER_TABLE shapes per name table.
 */
import type { KeyValue } from '../model/attribute-value.js';
import * as bufferSlices from './buffer-slices.js';
import * as format from './item-block-format.js';
import type { BlockLayout } from './item-block-format.js';
import type { KeyType } from './key-bytes.js';
import * as objectShapes from './object-shapes.js';
import type { CompiledShape } from './object-shapes.js';

// Read once (see item-block-reader.ts): under tsx every use of an imported binding is a getter call.
const { slices } = bufferSlices;
const { BLOCK_FORMAT_VERSION, KEY_TYPES } = format;
const { hashNames, shapeOf } = objectShapes;

export type BlockHeader = {
  readonly pkName: string;
  readonly pkType: KeyType;
  readonly skName: string;
  readonly skType: KeyType;
  /** The partition key's value (B: a copy the reader must not hand out). */
  readonly pk: KeyValue;
  /** B partition keys: the value as base64 text (the wire form). */
  readonly pkBase64: string;
  /** Where the first item starts. */
  readonly itemsAt: number;
};

/** A name sequence of a block: the key names, then the item's other names in value order. */
export type BlockShape = {
  readonly pkName: string;
  readonly skName: string;
  readonly indices: readonly number[];
  readonly names: readonly string[];
  readonly hash: number;
  compiled: CompiledShape | undefined;
};

export type NameTable = { readonly names: readonly string[]; readonly shapes: BlockShape[]; next: number };

const HEADER_SLOTS = 4096;
const NAME_TABLE_SLOTS = 256;
const TEXT_SLOTS = 16384;
const MAX_CACHED_TEXT_BYTES = 32;
const SHAPES_PER_TABLE = 32;

function hashBytes(src: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 ^ (to - from);
  for (let i = from; i < to; i++) h = Math.imul(h ^ src[i]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

/** The hash of the length and the first and last SAMPLE_BYTES bytes: long ranges are then compared once, not hashed and compared. */
const SAMPLE_BYTES = 16;
function hashSampled(src: Uint8Array, from: number, to: number): number {
  return to - from <= 2 * SAMPLE_BYTES ? hashBytes(src, from, to) : (hashBytes(src, from, from + SAMPLE_BYTES) ^ Math.imul(hashBytes(src, to - SAMPLE_BYTES, to), 0x9e3779b1) ^ (to - from)) >>> 0;
}

function sameBytes(known: Uint8Array, src: Uint8Array, from: number, to: number): boolean {
  if (known.length !== to - from) return false;
  for (let i = 0; i < known.length; i++) if (known[i] !== src[from + i]) return false;
  return true;
}

/** A direct-mapped cache of values decoded from byte ranges. */
class BytesCache<T> {
  private readonly keys: (Uint8Array | undefined)[];
  private readonly values: (T | undefined)[];
  /** `sampled`: hash only the ends of a range (for ranges that differ at their ends, as name tables do). */
  constructor(
    private readonly slots: number,
    private readonly sampled = false,
  ) {
    this.keys = new Array<Uint8Array | undefined>(slots).fill(undefined);
    this.values = new Array<T | undefined>(slots).fill(undefined);
  }
  get(src: Uint8Array, from: number, to: number, decode: (src: Uint8Array, from: number, to: number) => T): T {
    const slot = (this.sampled ? hashSampled(src, from, to) : hashBytes(src, from, to)) & (this.slots - 1);
    const known = this.keys[slot];
    if (known !== undefined && sameBytes(known, src, from, to)) return this.values[slot]!;
    const value = decode(src, from, to);
    this.keys[slot] = src.slice(from, to);
    this.values[slot] = value;
    return value;
  }
}

const texts = new BytesCache<string>(TEXT_SLOTS);
const decodeText = (src: Uint8Array, from: number, to: number): string => slices.utf8Slice.call(src, from, to);

/** The UTF-8 text in `src[from..to)`; short texts come from the cache. */
export function textAt(src: Uint8Array, from: number, to: number): string {
  return to - from <= MAX_CACHED_TEXT_BYTES ? texts.get(src, from, to, decodeText) : decodeText(src, from, to);
}

let varintValue = 0;

/** Reads a varint at `src[at]` into `varintValue`; returns the offset after it. */
function readVarintAt(src: Uint8Array, at: number): number {
  let b = src[at++]!;
  if (b < 0x80) {
    varintValue = b;
    return at;
  }
  let v = b & 0x7f;
  let scale = 128;
  do {
    if (at >= src.length) throw new RangeError('item block: truncated');
    b = src[at++]!;
    v += (b & 0x7f) * scale;
    scale *= 128;
  } while (b >= 0x80);
  varintValue = v;
  return at;
}

const headers = new BytesCache<BlockHeader>(HEADER_SLOTS);

/** The block's header. RangeError for another format version or a header past the block. */
export function headerOf(block: Uint8Array): BlockHeader {
  if (block[0] !== BLOCK_FORMAT_VERSION) throw new RangeError(`item block: format version ${block[0]}, expected ${BLOCK_FORMAT_VERSION}`);
  const from = readVarintAt(block, 1);
  const to = from + varintValue;
  if (to > block.length) throw new RangeError('item block: header past the end');
  return headers.get(block, from, to, decodeHeader);
}

function decodeHeader(src: Uint8Array, from: number, to: number): BlockHeader {
  const skType = KEY_TYPES[src[from]!];
  const pkType = KEY_TYPES[src[from + 1]!];
  if (skType === undefined || pkType === undefined) throw new RangeError('item block: unknown key type');
  let at = readVarintAt(src, from + 2);
  const pkName = textAt(src, at, (at += varintValue));
  at = readVarintAt(src, at);
  const skName = textAt(src, at, (at += varintValue));
  at = readVarintAt(src, at);
  const end = at + varintValue;
  if (end !== to) throw new RangeError('item block: malformed header');
  const pk: KeyValue = pkType === 'B' ? { B: src.slice(at, end) } : pkType === 'S' ? { S: textAt(src, at, end) } : { N: textAt(src, at, end) };
  return { pkName, pkType, skName, skType, pk, pkBase64: pkType === 'B' ? slices.base64Slice.call(src, at, end) : '', itemsAt: to };
}

const nameTables = new BytesCache<NameTable>(NAME_TABLE_SLOTS, true);
let expectedNames = 0;

/** The block's attribute names, by index. */
export function nameTableOf(block: Uint8Array, layout: BlockLayout): NameTable {
  expectedNames = layout.nameCount;
  return nameTables.get(block, layout.namesAt, layout.stringsAt, decodeNames);
}

function decodeNames(src: Uint8Array, from: number, to: number): NameTable {
  const names: string[] = [];
  let at = from;
  while (at < to) {
    at = readVarintAt(src, at);
    const end = at + varintValue;
    if (end > to) throw new RangeError('item block: malformed names');
    names.push(textAt(src, at, end));
    at = end;
  }
  if (names.length !== expectedNames) throw new RangeError('item block: name count differs from the footer');
  return { names, shapes: [], next: 0 };
}

/** The shape of `indices[0..n)` in `table` under `header`'s key names, made on first sight. */
export function shapeIn(table: NameTable, header: BlockHeader, indices: readonly number[], n: number): BlockShape {
  const { pkName, skName } = header;
  for (const shape of table.shapes) {
    if (shape.indices.length !== n || shape.pkName !== pkName || shape.skName !== skName) continue;
    let i = 0;
    while (i < n && shape.indices[i] === indices[i]) i++;
    if (i === n) return shape;
  }
  const names = [pkName, skName];
  for (let i = 0; i < n; i++) {
    const name = table.names[indices[i]!];
    if (name === undefined) throw new RangeError('item block: name index out of range');
    names.push(name);
  }
  const shape: BlockShape = { pkName, skName, indices: indices.slice(0, n), names, hash: hashNames(names, 0, names.length), compiled: undefined };
  if (table.shapes.length < SHAPES_PER_TABLE) table.shapes.push(shape);
  else {
    table.shapes[table.next] = shape;
    table.next = (table.next + 1) % SHAPES_PER_TABLE;
  }
  return shape;
}

/** The object of `shape` from `values[0..names.length)`: one compiled literal once object-shapes.ts gives one, else by adds. */
export function buildObject(shape: BlockShape, values: readonly unknown[]): Record<string, unknown> {
  if (shape.compiled === undefined) shape.compiled = shapeOf(shape.names, 0, shape.names.length, shape.hash);
  if (shape.compiled !== undefined) return shape.compiled.build(values, 0);
  const object: Record<string, unknown> = {};
  const names = shape.names;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    // A plain assignment to "__proto__" would set the prototype instead of adding a key.
    if (name === '__proto__') Object.defineProperty(object, name, { value: values[i], enumerable: true, writable: true, configurable: true });
    else object[name] = values[i];
  }
  return object;
}
