/**
 * The item-block format of the issue 48 prototype (bench/block-layout.ts): a run of one partition's
 * items in sort-key order packed into one LMDB value, items encoded against the ones before them in
 * the block. Bench-only: S and N attributes, an N sort key holding a safe integer.
 *
 *   block  := 0x01 pkName pkValue skName item*          ; strings: len:varint utf8
 *   item   := delta:varint size:varint shape value*     ; delta: sort key - previous (the first
 *                                                       ;   item: - the block key's base)
 *   shape  := (n << 1) | 1, then n name refs            ; a new name sequence
 *           | (n << 1)                                  ; the previous item's n names again
 *   name   := index:varint, and when index = names seen so far in the block: len:varint utf8
 *   value  := tag:u8 [varint when tag & 31 = 31] bytes  ; kind = tag >> 5, arg = tag & 31
 *     kind 0  S literal, arg = byte length              ; added to the block's string table
 *     kind 1  S, arg = index in the string table
 *     kind 2  N as packed nibbles (digits . - E +), arg = byte length
 *     kind 3  the previous item's value of the same name
 *
 * Nothing counts the items, so an item in sort order is appended by concatenating its bytes: the
 * block is not re-encoded. Encoding it needs the block's tail state (names, strings, last key, each
 * name's last value), which `scanBlock` rebuilds from the bytes or a caller keeps.
 */

export type WireValue = { S: string } | { N: string };
export type WireItem = Record<string, WireValue>;

const KIND_S_LITERAL = 0;
const KIND_S_REF = 1;
const KIND_N = 2;
const KIND_REPEAT = 3;
const VERSION = 1;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** What encoding the next item of a block needs to know. */
export class TailState {
  names: string[] = [];
  nameIndex = new Map<string, number>();
  strings: string[] = [];
  stringIndex = new Map<string, number>();
  /** Per name index: the last item's value (kind S or N) and its text. */
  lastKind: number[] = [];
  lastText: string[] = [];
  shape: number[] = [];
  lastKey = 0;
  pkName = '';
  pkValue = '';
  skName = '';
  /** The block's length when this state was its tail. */
  length = 0;
}

// ---- writing ----------------------------------------------------------------------------------

let out = new Uint8Array(64 * 1024);
let pos = 0;

function ensure(n: number): void {
  if (pos + n <= out.length) return;
  const grown = new Uint8Array(2 * (pos + n));
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

function text(s: string): void {
  const bytes = utf8.encode(s);
  varint(bytes.length);
  ensure(bytes.length);
  out.set(bytes, pos);
  pos += bytes.length;
}

function tag(kind: number, arg: number): void {
  ensure(1);
  if (arg < 31) out[pos++] = (kind << 5) | arg;
  else {
    out[pos++] = (kind << 5) | 31;
    varint(arg);
  }
}

const NIBBLE: Record<string, number> = { '0': 0, '1': 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, '7': 7, '8': 8, '9': 9, '.': 10, '-': 11, E: 12, '+': 13, e: 12 };
const CHAR = '0123456789.-E+';

function number(n: string): void {
  const bytes = (n.length + 1) >> 1;
  tag(KIND_N, bytes);
  ensure(bytes);
  for (let i = 0; i < n.length; i += 2) {
    const hi = NIBBLE[n[i]!]!;
    const lo = i + 1 < n.length ? NIBBLE[n[i + 1]!]! : 15;
    out[pos++] = (hi << 4) | lo;
  }
}

/** A new block's header (the first item follows through appendItem). */
export function blockHeader(state: TailState, pkName: string, pkValue: string, skName: string, baseKey: number): Uint8Array {
  pos = 0;
  ensure(1);
  out[pos++] = VERSION;
  text(pkName);
  text(pkValue);
  text(skName);
  state.pkName = pkName;
  state.pkValue = pkValue;
  state.skName = skName;
  state.lastKey = baseKey;
  state.length = pos;
  return out.slice(0, pos);
}

/**
 * The bytes of `item` (sort key `key`, after every item of the block, DynamoDB size `size`) as the
 * block's next item; updates `state`. A view of a reused buffer, valid until the next call.
 */
export function encodeNext(state: TailState, item: WireItem, key: number, size: number): Uint8Array {
  pos = 0;
  varint(key - state.lastKey);
  varint(size);
  let sameShape = true;
  let n = 0;
  for (const name in item) {
    if (name === state.pkName || name === state.skName) continue;
    const index = state.nameIndex.get(name);
    if (index === undefined || state.shape[n] !== index) sameShape = false;
    n++;
  }
  if (n !== state.shape.length) sameShape = false;
  if (sameShape) varint(n << 1);
  else {
    varint((n << 1) | 1);
    state.shape.length = 0;
    for (const name in item) {
      if (name === state.pkName || name === state.skName) continue;
      let index = state.nameIndex.get(name);
      if (index === undefined) {
        index = state.names.length;
        state.names.push(name);
        state.nameIndex.set(name, index);
        varint(index);
        text(name);
      } else varint(index);
      state.shape.push(index);
    }
  }
  for (const index of state.shape) {
    const value = item[state.names[index]!]!;
    const isS = 'S' in value;
    const t = isS ? (value as { S: string }).S : (value as { N: string }).N;
    const kind = isS ? KIND_S_LITERAL : KIND_N;
    if (state.lastKind[index] === kind && state.lastText[index] === t) {
      tag(KIND_REPEAT, 0);
      continue;
    }
    state.lastKind[index] = kind;
    state.lastText[index] = t;
    if (!isS) number(t);
    else {
      const ref = state.stringIndex.get(t);
      if (ref !== undefined) tag(KIND_S_REF, ref);
      else {
        state.stringIndex.set(t, state.strings.length);
        state.strings.push(t);
        const bytes = utf8.encode(t);
        tag(KIND_S_LITERAL, bytes.length);
        ensure(bytes.length);
        out.set(bytes, pos);
        pos += bytes.length;
      }
    }
  }
  state.lastKey = key;
  state.length += pos;
  return out.subarray(0, pos);
}

// ---- reading ----------------------------------------------------------------------------------

let src: Uint8Array = new Uint8Array(0);
let at = 0;

function readVarint(): number {
  let b = src[at++]!;
  if (b < 0x80) return b;
  let v = b & 0x7f;
  let scale = 128;
  do {
    b = src[at++]!;
    v += (b & 0x7f) * scale;
    scale *= 128;
  } while (b >= 0x80);
  return v;
}

function readText(): string {
  const n = readVarint();
  const s = n <= MAX_CACHED_TEXT ? cachedText(at, n) : utf8Decoder.decode(src.subarray(at, at + n));
  at += n;
  return s;
}

/**
 * Texts a block read decodes every time (the header's names and partition key, the attribute
 * names), direct-mapped by a hash of their bytes and checked byte for byte: the same strings come
 * back without a decode, and equal names are the same string, so a shape is recognised by identity.
 */
const MAX_CACHED_TEXT = 64;
const TEXT_SLOTS = 4096;
const textBytes: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(TEXT_SLOTS).fill(undefined);
const textStrings: string[] = new Array<string>(TEXT_SLOTS).fill('');

function cachedText(from: number, n: number): string {
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ src[from + i]!, 0x01000193);
  const slot = (h >>> 0) & (TEXT_SLOTS - 1);
  const known = textBytes[slot];
  if (known !== undefined && known.length === n) {
    let same = true;
    for (let i = 0; i < n; i++) {
      if (known[i] !== src[from + i]) {
        same = false;
        break;
      }
    }
    if (same) return textStrings[slot]!;
  }
  const bytes = src.slice(from, from + n);
  const text = utf8Decoder.decode(bytes);
  textBytes[slot] = bytes;
  textStrings[slot] = text;
  return text;
}

/** Decoded numbers of up to 4 packed bytes, by their bytes and length: readings repeat their values. */
const numberCache = new Map<number, string>();

function readNumber(bytes: number): string {
  if (bytes <= 4) {
    let k = bytes;
    for (let i = 0; i < bytes; i++) k = k * 256 + src[at + i]!;
    let s = numberCache.get(k);
    if (s === undefined) {
      s = numberText(bytes);
      if (numberCache.size >= 1 << 16) numberCache.clear();
      numberCache.set(k, s);
    }
    at += bytes;
    return s;
  }
  const s = numberText(bytes);
  at += bytes;
  return s;
}

function numberText(bytes: number): string {
  let s = '';
  for (let i = 0; i < bytes; i++) {
    const b = src[at + i]!;
    s += CHAR[b >> 4]!;
    if ((b & 15) !== 15) s += CHAR[b & 15]!;
  }
  return s;
}

/** Object builders by name sequence: one compiled literal per shape (as codec/object-shapes.ts does). */
type Builder = (pk: WireValue, sk: WireValue, v: WireValue[]) => WireItem;
const builders = new Map<string, Builder>();

/** The last shape's builder: blocks of one table repeat it, and cached names make it an identity check. */
let lastBuilder: { pkName: string; skName: string; names: readonly string[]; builder: Builder } | undefined;

function builderOf(pkName: string, skName: string, names: readonly string[]): Builder {
  const last = lastBuilder;
  if (last !== undefined && last.pkName === pkName && last.skName === skName && last.names.length === names.length && last.names.every((n, i) => n === names[i])) return last.builder;
  const builder = compiledBuilder(pkName, skName, names);
  lastBuilder = { pkName, skName, names: names.slice(), builder };
  return builder;
}

function compiledBuilder(pkName: string, skName: string, names: readonly string[]): Builder {
  const id = `${pkName}\u0000${skName}\u0000${names.join('\u0000')}`;
  let b = builders.get(id);
  if (b === undefined) {
    const body = names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ');
    b = new Function('pk', 'sk', 'v', `return { ${JSON.stringify(pkName)}: pk, ${JSON.stringify(skName)}: sk, ${body} };`) as Builder;
    builders.set(id, b);
  }
  return b;
}

/**
 * What a visitor of a block's items is told per item, before it decides to build it: its sort key
 * and size. Returning BUILD gets the item; SKIP goes on; STOP ends the block.
 */
export const SKIP = 0;
export const BUILD = 1;
export const STOP = 2;

/**
 * Per block decode, reused: the string table as offsets (a string is decoded when an item that is
 * built shows it, once per block), and per name the last value as a string-table index (S) or the
 * offset and length of its packed digits (N), so items that are not built cost only their parse.
 */
const names: string[] = [];
const stringAt: number[] = [];
const stringLength: number[] = [];
const stringText: (string | undefined)[] = [];
const lastKind: number[] = [];
const lastRef: number[] = [];
const shape: number[] = [];
let shapeNames: string[] = [];
const values: WireValue[] = [];

function stringOf(i: number): string {
  let s = stringText[i];
  if (s === undefined) {
    const from = stringAt[i]!;
    s = stringText[i] = utf8Decoder.decode(src.subarray(from, from + stringLength[i]!));
  }
  return s;
}

/**
 * Walks the items of `block` (base sort key `baseKey`) in order: `want(key, size)` says what to do
 * with each, `visit(item)` gets the built ones. Items not built are only parsed: their values are
 * resolved when a later built item repeats or refers to them.
 */
export function readBlock(block: Uint8Array, baseKey: number, want: (key: number, size: number) => number, visit: (item: WireItem) => void): void {
  src = block;
  at = 0;
  if (src[at++] !== VERSION) throw new RangeError('block: unknown version');
  const pkName = readText();
  const pk = readText();
  const skName = readText();
  names.length = 0;
  stringAt.length = 0;
  stringLength.length = 0;
  stringText.length = 0;
  lastKind.length = 0;
  lastRef.length = 0;
  shape.length = 0;
  let builder: Builder | undefined;
  let key = baseKey;
  const end = block.length;
  while (at < end) {
    key += readVarint();
    const size = readVarint();
    const head = readVarint();
    const n = head >>> 1;
    if ((head & 1) === 1) {
      shape.length = 0;
      for (let i = 0; i < n; i++) {
        const index = readVarint();
        if (index === names.length) names.push(readText());
        shape.push(index);
      }
      shapeNames = shape.map((i) => names[i]!);
      builder = undefined;
    }
    const decision = want(key, size);
    if (decision === STOP) break;
    for (let i = 0; i < n; i++) {
      const index = shape[i]!;
      const t = src[at++]!;
      const kind = t >> 5;
      let arg = t & 31;
      if (arg === 31) arg = readVarint();
      if (kind === KIND_S_LITERAL) {
        lastKind[index] = KIND_S_LITERAL;
        lastRef[index] = stringAt.length;
        stringAt.push(at);
        stringLength.push(arg);
        stringText.push(undefined);
        at += arg;
      } else if (kind === KIND_S_REF) {
        lastKind[index] = KIND_S_LITERAL;
        lastRef[index] = arg;
      } else if (kind === KIND_N) {
        lastKind[index] = KIND_N;
        lastRef[index] = at * 32 + arg;
        at += arg;
      } else if (kind !== KIND_REPEAT) throw new RangeError('block: unknown value kind');
    }
    if (decision === BUILD) {
      for (let i = 0; i < n; i++) {
        const index = shape[i]!;
        const ref = lastRef[index]!;
        values[i] = lastKind[index] === KIND_N ? { N: numberAt(ref >>> 5, ref & 31) } : { S: stringOf(ref) };
      }
      builder ??= builderOf(pkName, skName, shapeNames);
      values.length = n;
      visit(builder({ S: pk }, { N: String(key) }, values));
    }
  }
  src = EMPTY;
}

function numberAt(offset: number, bytes: number): string {
  const saved = at;
  at = offset;
  const s = readNumber(bytes);
  at = saved;
  return s;
}

const EMPTY = new Uint8Array(0);

/** The items of a block (sort key order) and its tail state, from its bytes alone: what an append needs when no state is kept. */
export function scanBlock(block: Uint8Array, baseKey: number): TailState {
  const state = new TailState();
  src = block;
  at = 1;
  state.pkName = readText();
  state.pkValue = readText();
  state.skName = readText();
  let key = baseKey;
  while (at < block.length) {
    key += readVarint();
    readVarint();
    const head = readVarint();
    const n = head >>> 1;
    if ((head & 1) === 1) {
      state.shape.length = 0;
      for (let i = 0; i < n; i++) {
        const index = readVarint();
        if (index === state.names.length) {
          const name = readText();
          state.nameIndex.set(name, index);
          state.names.push(name);
        }
        state.shape.push(index);
      }
    }
    for (let i = 0; i < n; i++) {
      const index = state.shape[i]!;
      const t = src[at++]!;
      const kind = t >> 5;
      let arg = t & 31;
      if (arg === 31) arg = readVarint();
      if (kind === KIND_S_LITERAL) {
        const s = utf8Decoder.decode(src.subarray(at, at + arg));
        at += arg;
        state.stringIndex.set(s, state.strings.length);
        state.strings.push(s);
        state.lastKind[index] = KIND_S_LITERAL;
        state.lastText[index] = s;
      } else if (kind === KIND_S_REF) {
        state.lastKind[index] = KIND_S_LITERAL;
        state.lastText[index] = state.strings[arg]!;
      } else if (kind === KIND_N) {
        state.lastKind[index] = KIND_N;
        state.lastText[index] = readNumber(arg);
      }
    }
  }
  state.lastKey = key;
  state.length = block.length;
  src = EMPTY;
  return state;
}

/** Counts a block's items without building anything (a latest-N read finds where its last N start). */
export function countItems(block: Uint8Array, baseKey: number): number {
  let count = 0;
  readBlock(block, baseKey, () => (count++, SKIP), () => {});
  return count;
}
