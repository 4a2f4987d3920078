/**
 * The parse state of one item-block read (grammar atop item-block-writer.ts): where the parse is,
 * the current item's key, size and names, and per name the latest value of the segment, so that
 * items out of range are only parsed and values are decoded when an item is built. One parser
 * serves one read at a time (item-block-reader.ts); a read must not start another.
 */
import type { Item, KeyValue, WireItemOutput } from '../model/attribute-value.js';
import * as bufferSlices from './buffer-slices.js';
import * as dictionary from './item-block-dictionary.js';
import type { BlockHeader, BlockShape, NameTable } from './item-block-dictionary.js';
import * as format from './item-block-format.js';
import type { BlockLayout } from './item-block-format.js';
import * as numbers from './item-block-numbers.js';
import * as itemReader from './item-reader.js';
import * as keyBytesCodec from './key-bytes.js';
import type { KeyType } from './key-bytes.js';

// Imported bindings read once, into module constants: run through tsx (the benchmarks), every use
// of an imported binding is a getter call, measured at a third of a point lookup's time.
const { slices } = bufferSlices;
const { buildObject, headerOf, nameTableOf, shapeIn, textAt } = dictionary;
const { CONSTANT_NULL, CONSTANT_TRUE, KIND_B, KIND_CBOR, KIND_CONSTANT, KIND_N, KIND_REPEAT, KIND_S_LITERAL, KIND_S_REF, RESTART_INTERVAL, TAG_LONG_ARG, readLayout, readU16 } = format;
const { readPackedNumber } = numbers;
const { readItem } = itemReader;
const { compareBytes, encodeKeyValue } = keyBytesCodec;

/** A sort key to compare a block's keys with, prepared once per read (item-block-reader.ts sortKeyBound). */
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

const EMPTY = new Uint8Array(0);
/** Per name index, the kind of the segment's latest value. */
export const V_S = 0;
export const V_N = 1;
const V_CONSTANT = 2;
const V_B = 3;
const V_CBOR = 4;
const V_NONE = 5;

export class BlockParser {
  src: Uint8Array = EMPTY;
  at = 0;
  header!: BlockHeader;
  layout!: BlockLayout;
  table!: NameTable;
  itemIndex = 0;
  size = 0;
  /** The key: N as its integer when written as a delta (else NaN, and the packed text at keyAt/keyLength); S, B in keyBytes. */
  keyInt = 0;
  keyAt = 0;
  keyLength = 0;
  keyBytes = new Uint8Array(256);
  /** The current name sequence: name indices, its count, its shape once looked up. */
  readonly indices: number[] = [];
  count = 0;
  shape: BlockShape | undefined;
  /** Per name index, the latest value seen in the segment: its kind and where its payload is. */
  lastKind = new Uint8Array(64);
  lastAt = new Int32Array(64);
  lastLength = new Int32Array(64);
  private readonly values: unknown[] = [];

  corrupt(what: string): never {
    throw new RangeError(`item block: ${what}`);
  }

  open(block: Uint8Array): void {
    this.src = block;
    this.header = headerOf(block);
    this.layout = readLayout(block);
    if (this.layout.namesAt < this.header.itemsAt) this.corrupt('items before the header ends');
    this.table = nameTableOf(block, this.layout);
    if (this.lastKind.length < this.layout.nameCount) {
      this.lastKind = new Uint8Array(this.layout.nameCount);
      this.lastAt = new Int32Array(this.layout.nameCount);
      this.lastLength = new Int32Array(this.layout.nameCount);
    }
  }

  close(): void {
    this.src = EMPTY;
  }

  readVarint(): number {
    let b = this.src[this.at++]!;
    if (b < 0x80) return b;
    let v = b & 0x7f;
    let scale = 128;
    do {
      if (this.at >= this.layout.namesAt) this.corrupt('truncated item');
      b = this.src[this.at++]!;
      v += (b & 0x7f) * scale;
      scale *= 128;
    } while (b >= 0x80);
    return v;
  }

  startSegment(r: number): void {
    this.at = readU16(this.src, this.layout.restartsAt + 2 * r);
    if (this.at < this.header.itemsAt || this.at >= this.layout.namesAt) this.corrupt('restart out of range');
    this.itemIndex = r * RESTART_INTERVAL;
    this.lastKind.fill(V_NONE, 0, this.layout.nameCount);
  }

  parseKey(): void {
    const restart = this.itemIndex % RESTART_INTERVAL === 0;
    if (this.header.skType === 'N') {
      const v = this.readVarint();
      if (v % 2 === 0) {
        if (!restart && this.keyInt !== this.keyInt) this.corrupt('integer delta after a non-integer key');
        this.keyInt = (restart ? 0 : this.keyInt) + v / 2;
      } else {
        this.keyInt = Number.NaN;
        this.keyAt = this.at;
        this.keyLength = (v - 1) / 2;
        this.at += this.keyLength;
      }
      return;
    }
    const shared = this.readVarint();
    const suffix = this.readVarint();
    if ((restart && shared > 0) || shared > this.keyLength || this.at + suffix > this.layout.namesAt) this.corrupt('malformed key');
    if (this.keyBytes.length < shared + suffix) {
      const grown = new Uint8Array(2 * (shared + suffix));
      grown.set(this.keyBytes.subarray(0, shared));
      this.keyBytes = grown;
    }
    this.keyBytes.set(this.src.subarray(this.at, this.at + suffix), shared);
    this.keyLength = shared + suffix;
    this.at += suffix;
  }

  /** Parses the item at `at` (its key, size, names and where each value is); builds nothing. */
  parseItem(): void {
    this.parseKey();
    this.size = this.readVarint();
    const head = this.readVarint();
    const n = Math.floor(head / 2);
    if (head % 2 === 1) {
      for (let i = 0; i < n; i++) {
        const index = this.readVarint();
        if (index >= this.layout.nameCount) this.corrupt('name index out of range');
        this.indices[i] = index;
      }
      this.count = n;
      this.shape = undefined;
    } else if (this.itemIndex % RESTART_INTERVAL === 0 || n !== this.count) this.corrupt('shape refers to no previous item');
    for (let i = 0; i < n; i++) this.parseValue(this.indices[i]!);
    if (this.at > this.layout.namesAt) this.corrupt('item past the items');
    this.itemIndex++;
  }

  parseValue(index: number): void {
    const tag = this.src[this.at++]!;
    const kind = tag >> 5;
    let arg = tag & TAG_LONG_ARG;
    if (arg === TAG_LONG_ARG) arg = this.readVarint();
    switch (kind) {
      case KIND_S_LITERAL:
        this.lastKind[index] = V_S;
        this.lastAt[index] = this.at;
        this.lastLength[index] = arg;
        this.at += arg;
        return;
      case KIND_S_REF:
        return this.stringRef(index, arg);
      case KIND_N:
        this.lastKind[index] = V_N;
        this.lastAt[index] = this.at;
        this.lastLength[index] = arg;
        this.at += arg;
        return;
      case KIND_REPEAT:
        if (this.lastKind[index] !== V_S && this.lastKind[index] !== V_N) this.corrupt('repeat of no value');
        return;
      case KIND_CONSTANT:
        if (arg > CONSTANT_NULL) this.corrupt('unknown constant');
        this.lastKind[index] = V_CONSTANT;
        this.lastAt[index] = arg;
        return;
      case KIND_B:
      case KIND_CBOR:
        this.lastKind[index] = kind === KIND_B ? V_B : V_CBOR;
        this.lastAt[index] = this.at;
        this.lastLength[index] = arg;
        this.at += arg;
        return;
      default:
        this.corrupt('unknown value kind');
    }
  }

  stringRef(index: number, ref: number): void {
    if (ref >= this.layout.stringCount) this.corrupt('string index out of range');
    let p = readU16(this.src, this.layout.stringsAt + 2 * ref);
    const tag = this.src[p++]!;
    if (tag >> 5 !== KIND_S_LITERAL || p >= this.layout.namesAt) this.corrupt('string directory points at no string');
    let length = tag & TAG_LONG_ARG;
    if (length === TAG_LONG_ARG) {
      const saved = this.at;
      this.at = p;
      length = this.readVarint();
      p = this.at;
      this.at = saved;
    }
    this.lastKind[index] = V_S;
    this.lastAt[index] = p;
    this.lastLength[index] = length;
  }

  /** The current key against `bound`: negative, 0 or positive. */
  compareKey(bound: SortKeyBound): number {
    if (this.header.skType === 'N') {
      if (this.keyInt === this.keyInt && bound.int === bound.int) return this.keyInt - bound.int;
      bound.bytes ??= encodeKeyValue(bound.key);
      return compareBytes(encodeKeyValue({ N: this.numberKeyText() }), bound.bytes);
    }
    const b = bound.bytes!;
    const n = this.keyLength < b.length ? this.keyLength : b.length;
    for (let i = 0; i < n; i++) if (this.keyBytes[i] !== b[i]) return this.keyBytes[i]! - b[i]!;
    return this.keyLength - b.length;
  }

  numberKeyText(): string {
    return this.keyInt === this.keyInt ? String(this.keyInt) : readPackedNumber(this.src, this.keyAt, this.keyLength);
  }

  sortKeyValue(asWire: boolean): unknown {
    switch (this.header.skType) {
      case 'N':
        return { N: this.numberKeyText() };
      case 'S':
        return { S: slices.utf8Slice.call(this.keyBytes, 0, this.keyLength) };
      default:
        return { B: asWire ? slices.base64Slice.call(this.keyBytes, 0, this.keyLength) : this.keyBytes.slice(0, this.keyLength) };
    }
  }

  partitionKeyValue(asWire: boolean): unknown {
    const pk = this.header.pk;
    if ('S' in pk) return { S: pk.S };
    if ('N' in pk) return { N: pk.N };
    return { B: asWire ? this.header.pkBase64 : pk.B.slice() };
  }

  valueOf(index: number, asWire: boolean): unknown {
    const from = this.lastAt[index]!;
    const to = from + this.lastLength[index]!;
    switch (this.lastKind[index]) {
      case V_S:
        return { S: textAt(this.src, from, to) };
      case V_N:
        return { N: readPackedNumber(this.src, from, to - from) };
      case V_CONSTANT:
        return from === CONSTANT_NULL ? { NULL: true } : { BOOL: from === CONSTANT_TRUE };
      case V_B:
        return { B: asWire ? slices.base64Slice.call(this.src, from, to) : this.src.slice(from, to) };
      case V_CBOR:
        return (readItem(this.src, asWire, from, undefined, to) as Record<string, unknown>)['']!;
      default:
        return this.corrupt('value of no kind');
    }
  }

  /** The item just parsed, built (its type is the caller's `asWire`'s). */
  buildItem<W extends boolean>(asWire: W): Decoded<W> {
    this.shape ??= shapeIn(this.table, this.header, this.indices, this.count);
    this.values.length = this.count + 2;
    this.values[0] = this.partitionKeyValue(asWire);
    this.values[1] = this.sortKeyValue(asWire);
    for (let i = 0; i < this.count; i++) this.values[i + 2] = this.valueOf(this.indices[i]!, asWire);
    return buildObject(this.shape, this.values) as unknown as Decoded<W>;
  }

  /** The restart whose segment holds the first item at or after `bound`: the last restart key <= bound, or 0. */
  seek(bound: SortKeyBound): number {
    let lo = 0;
    let hi = this.layout.restartCount - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      this.startSegment(mid);
      this.parseKey();
      if (this.compareKey(bound) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  beforeFrom(from: SortKeyBound): boolean {
    const c = this.compareKey(from);
    return c < 0 || (c === 0 && from.exclusive);
  }

  afterTo(to: SortKeyBound): boolean {
    const c = this.compareKey(to);
    return c > 0 || (c === 0 && to.exclusive);
  }

  // ---- reads ------------------------------------------------------------------------------------
}
