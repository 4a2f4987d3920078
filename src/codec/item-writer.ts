/**
 * A one-pass writer of the item grammar in item-value.ts, straight from AttributeValues into one
 * reused, growing buffer (no intermediate plain objects). Heads use CBOR's preferred (shortest)
 * serialization; every length is definite. Not reentrant (module-level buffer); writing calls out
 * only to a NameEncoder, which must not write items itself.
 */
import type { AttributeValue } from '../model/attribute-value.js';
import type { NameEncoder } from './attribute-name-codes.js';
import { isSafeIntegerString, toDecimalFraction } from './decimal-fraction.js';

/** The header's first byte after a 3-byte text trailer (item-record.ts). */
export const LONG_TEXT_TRAILER = 0x40;
const TAG_DECIMAL_FRACTION = 4;
const TAG_SET = 258;
const MAJOR_UINT = 0;
const MAJOR_NEGINT = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
const MAJOR_TAG = 6;

/**
 * Items are written one after another into a chunk and returned as views of it; a chunk is never
 * written twice, so a returned view stays valid and unchanged for as long as it is held (it keeps
 * its chunk alive). Views instead of copies: a copy costs an allocation per item (measured ~20% of
 * encoding a 170-byte item).
 */
const CHUNK_BYTES = 16 * 1024;
const MIN_ROOM_BYTES = 2 * 1024;
let buf = new Uint8Array(CHUNK_BYTES);
let start = 0;
let pos = 0;
const utf8 = new TextEncoder();

/**
 * Writes the item; returns a view of its bytes that stays valid while held (see above). With
 * `headerBytes`, the view starts with that many zero bytes for the caller to fill (a record
 * header), so a record needs no second buffer and copy. With `codes`, top-level names it gives a
 * code are written as that code (attribute-name-codes.ts). With `textTrailer` (and a header), the
 * view ends with zero bytes making its length even and its last two bytes zero (a record's text
 * trailer, item-record.ts): 3 of them when the bytes before are odd in number, else 2; the
 * header's first byte is then LONG_TEXT_TRAILER for 3, else 0.
 */
export function writeItem(item: { readonly [name: string]: AttributeValue }, headerBytes = 0, codes?: NameEncoder, textTrailer = false): Uint8Array {
  if (buf.length - start < MIN_ROOM_BYTES + headerBytes) {
    buf = new Uint8Array(CHUNK_BYTES);
    start = 0;
  }
  buf.fill(0, start, start + headerBytes);
  pos = start + headerBytes;
  try {
    if (codes === undefined) writeMap(item);
    else writeCodedMap(item, codes);
  } catch (error) {
    pos = start;
    throw error;
  }
  if (textTrailer && headerBytes > 0) {
    ensure(3);
    const odd = (pos - start) & 1;
    buf.fill(0, pos, pos + 2 + odd);
    pos += 2 + odd;
    if (odd) buf[start] = LONG_TEXT_TRAILER;
  }
  const bytes = buf.subarray(start, pos);
  // 8-byte alignment keeps the next item's copy into LMDB on aligned addresses.
  start = (pos + 7) & ~7;
  return bytes;
}

function ensure(n: number): void {
  if (pos + n <= buf.length) return;
  // Move the item written so far into a fresh chunk; the old chunk's earlier views stay intact.
  const used = pos - start;
  const grown = new Uint8Array(Math.max(CHUNK_BYTES, 2 * (used + n)));
  grown.set(buf.subarray(start, pos));
  buf = grown;
  start = 0;
  pos = used;
}

/** A head with an argument up to 2^53 - 1. */
function head(major: number, n: number): void {
  ensure(9);
  const m = major << 5;
  if (n < 24) buf[pos++] = m | n;
  else if (n < 0x100) {
    buf[pos++] = m | 24;
    buf[pos++] = n;
  } else if (n < 0x10000) {
    buf[pos++] = m | 25;
    buf[pos++] = n >> 8;
    buf[pos++] = n & 0xff;
  } else if (n < 0x100000000) {
    buf[pos++] = m | 26;
    buf[pos++] = n >>> 24;
    buf[pos++] = (n >> 16) & 0xff;
    buf[pos++] = (n >> 8) & 0xff;
    buf[pos++] = n & 0xff;
  } else {
    const high = Math.floor(n / 0x100000000);
    const low = n >>> 0;
    buf[pos++] = m | 27;
    buf[pos++] = high >>> 24;
    buf[pos++] = (high >> 16) & 0xff;
    buf[pos++] = (high >> 8) & 0xff;
    buf[pos++] = high & 0xff;
    buf[pos++] = low >>> 24;
    buf[pos++] = (low >> 16) & 0xff;
    buf[pos++] = (low >> 8) & 0xff;
    buf[pos++] = low & 0xff;
  }
}

function headSize(n: number): number {
  return n < 24 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : n < 0x100000000 ? 5 : 9;
}

function writeText(s: string): void {
  const length = s.length;
  if (length < 24) {
    // Short ASCII (most names and values): the byte length is the char count, known up front.
    ensure(length + 1);
    const from = pos;
    buf[pos++] = (MAJOR_TEXT << 5) | length;
    let i = 0;
    for (; i < length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[pos++] = c;
    }
    if (i === length) return;
    pos = from;
  }
  // Reserve the head for the worst case (3 bytes per UTF-16 unit), then close the gap if smaller.
  const max = length * 3;
  const reserved = headSize(max);
  ensure(reserved + max);
  const at = pos;
  const written = utf8.encodeInto(s, buf.subarray(at + reserved, at + reserved + max)).written;
  const actual = headSize(written);
  if (actual < reserved) buf.copyWithin(at + actual, at + reserved, at + reserved + written);
  head(MAJOR_TEXT, written);
  pos = at + actual + written;
}

function writeBytes(b: Uint8Array): void {
  head(MAJOR_BYTES, b.length);
  ensure(b.length);
  buf.set(b, pos);
  pos += b.length;
}

function writeNumber(canonical: string): void {
  if (isSafeIntegerString(canonical)) {
    const n = Number(canonical);
    if (n < 0) head(MAJOR_NEGINT, -1 - n);
    else head(MAJOR_UINT, n);
    return;
  }
  if (writeShortDecimal(canonical)) return;
  const [exponent, mantissa] = toDecimalFraction(canonical);
  head(MAJOR_TAG, TAG_DECIMAL_FRACTION);
  head(MAJOR_ARRAY, 2);
  if (exponent < 0) head(MAJOR_NEGINT, -1 - exponent);
  else head(MAJOR_UINT, exponent);
  if (typeof mantissa === 'number') {
    if (mantissa < 0) head(MAJOR_NEGINT, -1 - mantissa);
    else head(MAJOR_UINT, mantissa);
  } else writeBigInteger(mantissa);
}

/**
 * A canonical non-integer of at most 15 digits ("21.37", "-0.004") written as toDecimalFraction
 * would write it, in one pass over its characters: its mantissa is exact as a number, and has no
 * trailing zero since a canonical fraction ends in a nonzero digit. False (nothing written) for
 * anything longer.
 */
function writeShortDecimal(canonical: string): boolean {
  const length = canonical.length;
  const negative = canonical.charCodeAt(0) === 0x2d;
  if (length - (negative ? 1 : 0) > 16) return false;
  let mantissa = 0;
  let fractionDigits = -1;
  for (let i = negative ? 1 : 0; i < length; i++) {
    const c = canonical.charCodeAt(i);
    if (c === 0x2e) fractionDigits = 0;
    else {
      mantissa = mantissa * 10 + (c - 0x30);
      if (fractionDigits >= 0) fractionDigits++;
    }
  }
  if (fractionDigits <= 0) return false; // an integer past 2^53 (16 digits): the general path
  head(MAJOR_TAG, TAG_DECIMAL_FRACTION);
  head(MAJOR_ARRAY, 2);
  head(MAJOR_NEGINT, fractionDigits - 1); // exponent -fractionDigits, always negative here
  head(negative ? MAJOR_NEGINT : MAJOR_UINT, negative ? mantissa - 1 : mantissa);
  return true;
}

/** An integer beyond 15 digits: a 64-bit head when it fits, else a tag 2/3 bignum. */
function writeBigInteger(n: bigint): void {
  const negative = n < 0n;
  let magnitude = negative ? -1n - n : n;
  if (magnitude < 0x20000000000000n) {
    head(negative ? MAJOR_NEGINT : MAJOR_UINT, Number(magnitude));
    return;
  }
  if (magnitude <= 0xffffffffffffffffn) {
    ensure(9);
    buf[pos++] = ((negative ? MAJOR_NEGINT : MAJOR_UINT) << 5) | 27;
    for (let shift = 56n; shift >= 0n; shift -= 8n) buf[pos++] = Number((magnitude >> shift) & 0xffn);
    return;
  }
  const bytes: number[] = [];
  for (; magnitude > 0n; magnitude >>= 8n) bytes.push(Number(magnitude & 0xffn));
  head(MAJOR_TAG, negative ? 3 : 2);
  head(MAJOR_BYTES, bytes.length);
  ensure(bytes.length);
  for (let i = bytes.length - 1; i >= 0; i--) buf[pos++] = bytes[i]!;
}

function writeMap(map: { readonly [name: string]: AttributeValue }): void {
  const names = Object.keys(map);
  head(MAJOR_MAP, names.length);
  for (const name of names) {
    writeText(name);
    writeValue(map[name]!);
  }
}

/** The top-level map with each name as its code where `codes` has one. */
function writeCodedMap(map: { readonly [name: string]: AttributeValue }, codes: NameEncoder): void {
  const names = Object.keys(map);
  head(MAJOR_MAP, names.length);
  for (const name of names) {
    const code = codes.codeOf(name);
    if (code === undefined) writeText(name);
    else head(MAJOR_UINT, code);
    writeValue(map[name]!);
  }
}

function writeValue(value: AttributeValue): void {
  if ('S' in value) writeText(value.S);
  else if ('N' in value) writeNumber(value.N);
  else if ('B' in value) writeBytes(value.B);
  else if ('BOOL' in value) {
    ensure(1);
    buf[pos++] = value.BOOL ? 0xf5 : 0xf4;
  } else if ('NULL' in value) {
    ensure(1);
    buf[pos++] = 0xf6;
  } else if ('M' in value) writeMap(value.M);
  else if ('L' in value) {
    head(MAJOR_ARRAY, value.L.length);
    for (const element of value.L) writeValue(element);
  } else if ('SS' in value) {
    head(MAJOR_TAG, TAG_SET);
    head(MAJOR_ARRAY, value.SS.length);
    for (const s of value.SS) writeText(s);
  } else if ('NS' in value) {
    head(MAJOR_TAG, TAG_SET);
    head(MAJOR_ARRAY, value.NS.length);
    for (const n of value.NS) writeNumber(n);
  } else {
    head(MAJOR_TAG, TAG_SET);
    head(MAJOR_ARRAY, value.BS.length);
    for (const b of value.BS) writeBytes(b);
  }
}
