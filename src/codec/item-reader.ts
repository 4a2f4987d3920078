/**
 * A one-pass reader of the item grammar in item-value.ts, building AttributeValues directly.
 * Strict: anything outside the grammar throws RangeError. Every string and binary value is copied
 * out of the source, so the source may be a zero-copy buffer that becomes invalid afterwards.
 * Not reentrant (module-level cursor and entry stack), which is fine: reading calls out only to
 * a NameDecoder's nameOf, around which the reader keeps its whole state.
 *
 * Where the time goes (bench/decode.ts, the benchmark's 12-attribute reading): the repeated parts
 * of an item are looked up rather than built (names and short strings from text caches,
 * text-cache.ts; decimals from a cache of canonical strings, decimal-cache.ts; the item's map from
 * its names' compiled shape, object-shapes.ts), so what remains is reading the bytes and
 * allocating each value's wrapper.
 */
import { MAX_NESTING_DEPTH } from '../model/limits.js';
import { fromDecimalFraction } from './decimal-fraction.js';
import type { NameDecoder } from './attribute-name-codes.js';
import { MAX_SHAPE_NAMES, hashNames, shapeOf, type CompiledShape } from './object-shapes.js';
import { slices } from './buffer-slices.js';
import { MAX_SMALL_INTEGER, largeIntegerText } from './large-integer-text.js';
import { DECIMAL_CACHE_BITS, cacheDecimal, decimalExponents, decimalMantissas, decimalStrings, promoteDecimal } from './decimal-cache.js';
import { MAX_CACHED_TEXT_BYTES, TEXT_CACHE_SIZE, cacheText, lookupWords, nameCache, promoteText, sameText, valueCache, type TextCache } from './text-cache.js';

type Value = { [type: string]: unknown };
type Attributes = { [name: string]: Value };

let src: Uint8Array = new Uint8Array(0);
let pos = 0;
/** Where the value being read ends in `src` (a record's trailer may follow it, item-record.ts). */
let limit = 0;
let wire = false;
/** The dictionary of the value being read (attribute-name-codes.ts), if the caller gave one. */
let dictionary: NameDecoder | undefined;

const TAG_DECIMAL_FRACTION = 4;
const TAG_SET = 258;
// Nesting in the stored form is bounded by DynamoDB's limit; the slack allows the top-level map.
const MAX_DEPTH = MAX_NESTING_DEPTH + 2;

/**
 * Reads a whole item from `bytes[offset..end]` (the item must fill it exactly); `asWire` gives
 * binary values as base64 strings. Offset and end spare callers a subarray per record.
 */
export function readItem(bytes: Uint8Array, asWire: boolean, offset = 0, names?: NameDecoder, end = bytes.length): Attributes {
  begin(bytes, asWire, offset, names, end);
  const item = readMap(readMapHeader(), 0);
  finish();
  return item;
}

/**
 * Reads only the top-level attributes named in `names`, skipping the rest unbuilt. Without a
 * dictionary a coded name matches nothing: enough for key attributes, which are never coded.
 */
export function readItemAttributes(bytes: Uint8Array, names: ReadonlySet<string>, asWire: boolean, offset = 0, codes?: NameDecoder, end = bytes.length): Attributes {
  begin(bytes, asWire, offset, codes, end);
  const count = readMapHeader();
  const item: Attributes = {};
  for (let i = 0; i < count; i++) {
    const name = readTopName(false);
    if (name !== undefined && names.has(name)) put(item, name, readValue(1));
    else skipValue(1);
  }
  finish();
  return item;
}

function begin(bytes: Uint8Array, asWire: boolean, offset: number, names: NameDecoder | undefined, end: number): void {
  if (end > bytes.length || end < offset) throw new RangeError('item value: end outside the bytes');
  src = bytes;
  pos = offset;
  limit = end;
  wire = asWire;
  dictionary = names;
  stackTop = 0;
}

function finish(): void {
  const trailing = pos !== limit;
  src = EMPTY; // do not pin the caller's buffer
  dictionary = undefined;
  if (trailing) throw new RangeError('item value: trailing bytes');
}

const EMPTY = new Uint8Array(0);

function fail(what: string): never {
  src = EMPTY;
  dictionary = undefined;
  throw new RangeError(`item value: ${what}`);
}

/**
 * The entries of the maps being read, innermost last: a map of `count` entries (at most
 * MAX_SHAPE_NAMES) takes `count` slots from `stackTop` while its values are read, then builds its
 * object in one step from its names' shape (object-shapes.ts). Bounded by the nesting limit.
 */
const STACK_SLOTS = (MAX_DEPTH + 1) * MAX_SHAPE_NAMES;
const stackNames: string[] = new Array<string>(STACK_SLOTS).fill('');
const stackValues: (Value | undefined)[] = new Array<Value | undefined>(STACK_SLOTS).fill(undefined);
let stackTop = 0;

/**
 * The shape of the last map built from one, per depth: the next item (or the next M value at that
 * depth, as in a list of maps) most often has the same names, and then is built from it without a
 * shape lookup.
 */
const lastShapes: (CompiledShape | undefined)[] = new Array<CompiledShape | undefined>(MAX_DEPTH + 1).fill(undefined);

/**
 * A map of `count` entries (its head read), at `depth` (0: the item, whose names may be coded).
 * Values are released from the stack once built, so it pins nothing of a finished read.
 */
function readMap(count: number, depth: number): Attributes {
  if (count > MAX_SHAPE_NAMES) {
    const map: Attributes = {};
    for (let i = 0; i < count; i++) put(map, depth === 0 ? readTopName(true)! : readName(), readValue(depth + 1));
    return map;
  }
  const at = stackTop;
  stackTop = at + count;
  const last = lastShapes[depth];
  const expected = last !== undefined && last.names.length === count ? last.names : undefined;
  let same = expected !== undefined;
  for (let i = 0; i < count; i++) {
    const name = depth === 0 ? readTopName(true)! : readName();
    if (same && expected![i] !== name) same = false;
    stackNames[at + i] = name;
    stackValues[at + i] = readValue(depth + 1);
  }
  stackTop = at;
  const shape = same ? last : shapeOf(stackNames, at, count, hashNames(stackNames, at, count));
  let map: Attributes;
  if (shape !== undefined) {
    lastShapes[depth] = shape;
    map = shape.build(stackValues, at) as Attributes;
  } else {
    map = {};
    for (let i = 0; i < count; i++) put(map, stackNames[at + i]!, stackValues[at + i]!);
  }
  for (let i = 0; i < count; i++) stackValues[at + i] = undefined;
  return map;
}

function put(target: Attributes, name: string, value: Value): void {
  // A plain assignment to "__proto__" would set the prototype instead of adding a key.
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/**
 * Reads the argument of the head whose initial byte (already consumed) is `initial`. Small enough
 * to be inlined everywhere: most heads of an item carry their argument in the initial byte.
 */
function readArgument(initial: number): number {
  const info = initial & 0x1f;
  return info < 24 ? info : readLongArgument(info);
}

/** An argument in the 1, 2, 4 or 8 bytes after the initial byte (`info` 24..27). */
function readLongArgument(info: number): number {
  const bytes = src;
  const at = pos;
  if (info === 24) {
    need(1);
    pos = at + 1;
    return bytes[at]!;
  }
  if (info === 25) {
    need(2);
    pos = at + 2;
    return (bytes[at]! << 8) | bytes[at + 1]!;
  }
  if (info === 26) {
    need(4);
    pos = at + 4;
    return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
  }
  if (info === 27) {
    need(8);
    pos = at + 8;
    const high = ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
    const low = ((bytes[at + 4]! << 24) | (bytes[at + 5]! << 16) | (bytes[at + 6]! << 8) | bytes[at + 7]!) >>> 0;
    if (high >= 0x200000) return -1 - high; // beyond 2^53: the caller decides (big integers only)
    return high * 0x100000000 + low;
  }
  return fail('indefinite length or reserved head');
}

function byte(): number {
  if (pos >= limit) fail('truncated');
  return src[pos++]!;
}

function need(n: number): void {
  if (pos + n > limit) fail('truncated');
}

function readMapHeader(): number {
  const initial = byte();
  if (initial >> 5 !== 5) fail('item is not a map');
  return readArgument(initial);
}

function readText(): string {
  const initial = byte();
  if (initial >> 5 !== 3) fail('string set element is not a text string');
  return textOf(readLength(initial));
}

/**
 * A top-level name: text, or a code of the dictionary (attribute-name-codes.ts). A code without a
 * dictionary is an error when `required` (a whole item), else undefined (matches no wanted name).
 */
function readTopName(required: boolean): string | undefined {
  const initial = pos < limit ? src[pos] : undefined;
  if (initial === undefined || initial >> 5 !== 0) return readName();
  pos++;
  const code = readArgument(initial);
  if (dictionary === undefined) {
    if (!required) return undefined;
    fail(`attribute name code ${code} read without the table's name dictionary`);
  }
  let name = dictionary.knownName(code);
  if (name === undefined) {
    // Only the store knows (a name another process added): its read may end the validity of the
    // caller's view, so the rest of this value is read from a copy; keep the reader's state, the
    // maps' entries read so far included, should the lookup read another item. Rare: once per
    // new code per process.
    const at = pos;
    const end = limit;
    const bytes = Uint8Array.from(src);
    const names = dictionary;
    const asWire = wire;
    const top = stackTop;
    const entryNames = stackNames.slice(0, top);
    const entryValues = stackValues.slice(0, top);
    name = names.nameOf(code);
    src = bytes;
    pos = at;
    limit = end;
    dictionary = names;
    wire = asWire;
    stackTop = top;
    for (let i = 0; i < top; i++) {
      stackNames[i] = entryNames[i]!;
      stackValues[i] = entryValues[i];
    }
  }
  if (name === undefined) fail(`unknown attribute name code ${code}`);
  return name;
}

function readName(): string {
  const initial = byte();
  if (initial >> 5 !== 3) fail('map key is not a text string');
  return cachedText(nameCache, readLength(initial));
}

/**
 * The next `length` bytes as a string, from `cache` when the same ASCII bytes were read before.
 * The bytes are taken as words (the last one zero-padded), hashed and compared with the slot's
 * words: equal length and words mean equal bytes. Only ASCII strings are cached (a non-ASCII
 * string's char codes are not its UTF-8 bytes), so a hit proves the bytes ASCII without a check.
 */
function cachedText(cache: TextCache, length: number): string {
  if (length > MAX_CACHED_TEXT_BYTES) return textOf(length);
  const bytes = src;
  const start = pos;
  const stop = start + length;
  const words = lookupWords;
  let h = length;
  let seen = 0;
  let n = 0;
  let i = start;
  for (; i + 4 <= stop; i += 4) {
    const word = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    words[n++] = word;
    seen |= word;
    h = Math.imul(h ^ word, 0x9e3779b1);
  }
  if (i < stop) {
    let word = 0;
    for (let shift = 0; i < stop; i++, shift += 8) word |= bytes[i]! << shift;
    words[n++] = word;
    seen |= word;
    h = Math.imul(h ^ word, 0x9e3779b1);
  }
  const slot = (h ^ (h >>> 16)) & (TEXT_CACHE_SIZE - 2);
  if (sameText(cache, slot, length, n)) {
    pos = stop;
    return cache.strings[slot]!;
  }
  if (sameText(cache, slot + 1, length, n)) {
    pos = stop;
    return promoteText(cache, slot);
  }
  return cacheText(cache, slot, textOf(length), n, (seen & 0x80808080) === 0);
}


function readLength(initial: number): number {
  const n = readArgument(initial);
  if (n < 0) fail('length too large');
  need(n);
  return n;
}

function textOf(length: number): string {
  const start = pos;
  pos += length;
  return slices.utf8Slice.call(src, start, pos);
}

function bytesOf(length: number): Uint8Array | string {
  const start = pos;
  pos += length;
  if (wire) return slices.base64Slice.call(src, start, pos);
  // Not src.slice: on a Buffer that is a view, and the source may be invalid once we return.
  const copy = new Uint8Array(length);
  copy.set(src.subarray(start, pos));
  return copy;
}

/** A big integer head (beyond 2^53) re-read exactly, as a decimal string. */
function bigArgument(initialPos: number): string {
  const at = initialPos + 1;
  let n = 0n;
  for (let i = 0; i < 8; i++) n = (n << 8n) | BigInt(src[at + i]!);
  return (src[initialPos]! >> 5 === 1 ? -1n - n : n).toString();
}

/** An integer (major 0/1) whose head byte is at `start`, as a decimal string. */
function integerText(start: number, initial: number): string {
  const n = readArgument(initial);
  if (n < 0) return bigArgument(start);
  if (n <= MAX_SMALL_INTEGER) return String(initial >> 5 === 1 ? -1 - n : n);
  return initial >> 5 === 1 ? '-' + largeIntegerText(n + 1) : largeIntegerText(n);
}


function readValue(depth: number): Value {
  if (depth > MAX_DEPTH) fail('nested too deeply');
  const start = pos;
  const initial = byte();
  switch (initial >> 5) {
    case 0:
    case 1:
      return { N: integerText(start, initial) };
    case 2:
      return { B: bytesOf(readLength(initial)) };
    case 3:
      return { S: cachedText(valueCache, readLength(initial)) };
    case 4: {
      const count = readLength0(initial);
      const list: Value[] = new Array(count);
      for (let i = 0; i < count; i++) list[i] = readValue(depth + 1);
      return { L: list };
    }
    case 5:
      return { M: readMap(readLength0(initial), depth) };
    case 6: {
      const tag = readArgument(initial);
      if (tag === TAG_DECIMAL_FRACTION) return { N: readDecimalFraction() };
      if (tag === TAG_SET) return readSet();
      return fail(`unsupported tag ${tag}`);
    }
    default:
      if (initial === 0xf5) return { BOOL: true };
      if (initial === 0xf4) return { BOOL: false };
      if (initial === 0xf6) return { NULL: true };
      return fail('unsupported simple value or float');
  }
}

/** Counts of arrays and maps: each element takes at least one byte, so a count is bounded too. */
function readLength0(initial: number): number {
  const n = readArgument(initial);
  if (n < 0 || n > limit - pos) fail('count too large');
  return n;
}

function readDecimalFraction(): string {
  if (byte() !== 0x82) fail('decimal fraction is not a 2-element array');
  const exponentStart = pos;
  const exponentHead = byte();
  if (exponentHead >> 5 > 1) fail('decimal fraction exponent is not an integer');
  const n = readArgument(exponentHead);
  // Beyond 2^53 the exponent is not a safe integer: fromDecimalFraction refuses it.
  const exponent = n < 0 ? Number(bigArgument(exponentStart)) : exponentHead >> 5 === 1 ? -1 - n : n;
  const mantissaStart = pos;
  const mantissaHead = byte();
  const m = mantissaHead >> 5 <= 1 ? readArgument(mantissaHead) : -1;
  if (m < 0) {
    // A bignum, or an integer beyond 2^53: rare, read again exactly.
    pos = mantissaStart;
    return fromDecimalFraction(exponent, readMantissa());
  }
  const mantissa = mantissaHead >> 5 === 1 ? -1 - m : m;
  // Readings repeat their values (a temperature to two decimals has a few thousand): a
  // direct-mapped cache of canonical strings skips the string building on a hit. The slot is the
  // product's top bits, which depend on every bit of the mantissa (the low bits of a product
  // depend only on the mantissa's low bits: readings of one scale then share slots). Measured on
  // the benchmark's readings (5,800 distinct decimals): 26% misses in 4096 slots, 5% in 16384;
  // two ways per hash, as the text caches: 3.8% of a GetItem's decimals missed with one.
  const slot = (Math.imul((mantissa | 0) ^ (exponent << 24), 0x9e3779b1) >>> (32 - DECIMAL_CACHE_BITS)) & ~1;
  if (decimalMantissas[slot] === mantissa && decimalExponents[slot] === exponent) return decimalStrings[slot]!;
  if (decimalMantissas[slot + 1] === mantissa && decimalExponents[slot + 1] === exponent) return promoteDecimal(slot);
  return cacheDecimal(slot, exponent, mantissa);
}


function readMantissa(): number | bigint {
  const start = pos;
  const initial = byte();
  const major = initial >> 5;
  if (major === 0 || major === 1) {
    const n = readArgument(initial);
    if (n < 0) return BigInt(bigArgument(start));
    return major === 1 ? -1 - n : n;
  }
  if (initial === 0xc2 || initial === 0xc3) {
    const head = byte();
    if (head >> 5 !== 2) fail('bignum is not a byte string');
    const length = readLength(head);
    let n = 0n;
    for (let i = 0; i < length; i++) n = (n << 8n) | BigInt(src[pos++]!);
    return initial === 0xc3 ? -1n - n : n;
  }
  return fail('decimal fraction mantissa is not an integer');
}

function readSet(): Value {
  const initial = byte();
  if (initial >> 5 !== 4) fail('set is not an array');
  const count = readLength0(initial);
  if (count === 0) fail('empty set');
  const first = pos < limit ? src[pos]! : 0xff;
  const major = first >> 5;
  if (major === 3) {
    const ss: string[] = new Array(count);
    for (let i = 0; i < count; i++) ss[i] = readText();
    return { SS: ss };
  }
  if (major === 2) {
    const bs: (Uint8Array | string)[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const head = byte();
      if (head >> 5 !== 2) fail('binary set element is not a byte string');
      bs[i] = bytesOf(readLength(head));
    }
    return { BS: bs };
  }
  const ns: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const element = readValue(MAX_DEPTH);
    if (!('N' in element)) fail('set elements of mixed types');
    ns[i] = element.N as string;
  }
  return { NS: ns };
}

/** Advances past one value without building it. */
function skipValue(depth: number): void {
  if (depth > MAX_DEPTH) fail('nested too deeply');
  const initial = byte();
  const major = initial >> 5;
  if (major === 7) {
    if (initial < 0xf4 || initial > 0xf6) fail('unsupported simple value or float');
    return;
  }
  const n = readArgument(initial);
  if (major <= 1) return;
  if (major === 2 || major === 3) {
    if (n < 0) fail('length too large');
    need(n);
    pos += n;
  } else if (major === 4) {
    for (let i = 0; i < n; i++) skipValue(depth + 1);
  } else if (major === 5) {
    for (let i = 0; i < 2 * n; i++) skipValue(depth + 1);
  } else if (n === TAG_DECIMAL_FRACTION || n === TAG_SET || n === 2 || n === 3) skipValue(depth + 1);
  else fail(`unsupported tag ${n}`);
}
