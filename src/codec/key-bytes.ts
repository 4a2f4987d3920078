/**
 * Key bytes: an order-preserving, prefix-free encoding of S, N and B key values (format version 1,
 * frozen). LMDB compares keys with unsigned memcmp, so for two values of the same type
 * `compareBytes(enc(a), enc(b))` has the sign of DynamoDB's comparison (spec §2), and no encoding is
 * a proper prefix of another encoding of the same type, so `enc(pk) + enc(sk)` sorts by pk, then sk.
 * The type is not stored: the key schema says which type each position holds.
 *
 *   string   = escaped(utf8(value)) 0x00 0x01        ; S
 *   binary   = escaped(value) 0x00 0x01              ; B
 *   escaped  = *( 0x00 0xFF | 0x01..0xFF )           ; each 0x00 byte written as 0x00 0xFF
 *
 *   number   = negative | zero | positive            ; N
 *   zero     = 0x02
 *   positive = 0x03 exponent mantissa
 *   negative = 0x01 ~exponent ~mantissa              ; ~ = every byte complemented (0xFF - b)
 *   exponent = E + 64                                ; one byte, 0x00..0x7F
 *   mantissa = *( 2*m + 1 ) 2*m                      ; one byte per base-100 digit m (0..99);
 *                                                    ; the last digit (even byte) is never 0
 *
 * where |value| = 0.m1 m2 ... mk (base 100) * 100^E with m1 >= 1. DynamoDB's range 1E-130 ..
 * 9.99..E+125 gives E in -64..63; 38 decimal digits need at most 20 base-100 digits, so a number
 * takes at most 22 bytes. Digits are written most significant first and the final digit is marked by
 * an even byte, so a shorter mantissa that is a prefix of a longer one (a smaller magnitude at the
 * same exponent) sorts first; complementing reverses the order for negatives and keeps it prefix-free.
 *
 * Strings are encoded from their UTF-16 code units; a lone surrogate becomes U+FFFD (EF BF BD), as
 * TextEncoder does. UTF-8 byte order equals code-point order, which is DynamoDB's string order.
 *
 * Numbers must be canonical (model/number.ts): plain decimal, no exponent, no leading zeros except
 * "0.xxx", no trailing fractional zeros, "-" for negatives, zero = "0". They are not re-validated.
 */
import type { KeyValue } from '../model/attribute-value.js';

export type KeyType = 'S' | 'N' | 'B';

const TERMINATOR = 0x01;
const ESCAPE = 0xff;
const NEGATIVE = 0x01;
const ZERO = 0x02;
const POSITIVE = 0x03;
const EXPONENT_BIAS = 64;

/**
 * An upper bound on the bytes `writeKeyValue` writes for `value`, cheap to compute (no UTF-8 walk).
 * S: 3 bytes per UTF-16 unit (a NUL escapes to 2, a surrogate pair is 4 for 2 units) + terminator.
 */
export function maxKeyValueBytes(value: KeyValue): number {
  if ('S' in value) return value.S.length * 3 + 2;
  if ('N' in value) return (value.N.length >> 1) + 4;
  return value.B.length * 2 + 2;
}

/**
 * Writes `value`'s key bytes at `target[start]` and returns the end offset. The caller guarantees
 * `target.length - start >= maxKeyValueBytes(value)`.
 */
export function writeKeyValue(value: KeyValue, target: Uint8Array, start: number): number {
  if ('S' in value) return writeString(value.S, target, start);
  if ('N' in value) return writeNumber(value.N, target, start);
  return writeBinary(value.B, target, start);
}

/** The key bytes of one value, in a fresh exactly-sized array. */
export function encodeKeyValue(value: KeyValue): Uint8Array {
  return encodeKey([value]);
}

/** The concatenated key bytes of `parts` (e.g. [pk, sk]), in a fresh exactly-sized array. */
export function encodeKey(parts: readonly KeyValue[]): Uint8Array {
  let max = 0;
  for (const part of parts) max += maxKeyValueBytes(part);
  const scratch = max <= SCRATCH.length ? SCRATCH : new Uint8Array(max);
  let end = 0;
  for (const part of parts) end = writeKeyValue(part, scratch, end);
  return scratch.slice(0, end);
}

const SCRATCH = new Uint8Array(8192);

/**
 * Decodes one value of `type` starting at `buf[start]`; `end` is the offset just past it, where the
 * next key part begins. The result never aliases `buf` (B is copied), so `buf` may be a zero-copy
 * LMDB buffer. Throws RangeError on bytes that are not a valid encoding.
 */
export function readKeyValue(type: KeyType, buf: Uint8Array, start: number): { value: KeyValue; end: number } {
  if (type === 'N') return readNumber(buf, start);
  const { bytes, end } = readEscaped(buf, start);
  return type === 'S' ? { value: { S: decoder.decode(bytes) }, end } : { value: { B: bytes }, end };
}

/** The offset just past the encoded value of `type` starting at `buf[start]`, without decoding it. */
export function keyValueEnd(type: KeyType, buf: Uint8Array, start: number): number {
  if (type === 'N') {
    const lead = buf[start];
    if (lead === ZERO) return start + 1;
    // Past the exponent, digits run to the last one: even for a positive, odd (complemented) for a negative.
    const last = lead === POSITIVE ? 0 : 1;
    let i = start + 2;
    while (i < buf.length && (buf[i]! & 1) !== last) i++;
    if (i >= buf.length) throw new RangeError('key bytes end inside a number');
    return i + 1;
  }
  for (let i = start; i + 1 < buf.length; i++) {
    if (buf[i] !== 0) continue;
    if (buf[i + 1] === TERMINATOR) return i + 2;
    i++; // 0x00 0xFF: an escaped NUL
  }
  throw new RangeError('key bytes end inside a string or binary value');
}

/** Whether `bytes` begins with every byte of `prefix`. */
export function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Unsigned lexicographic comparison, shorter prefix first (LMDB's default key order): -1, 0 or 1. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

// ignoreBOM: a leading U+FEFF is part of the value, not a byte-order mark to strip.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function writeString(s: string, target: Uint8Array, start: number): number {
  let p = start;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0) {
        target[p++] = 0;
        target[p++] = ESCAPE;
      } else target[p++] = c;
    } else if (c < 0x800) {
      target[p++] = 0xc0 | (c >> 6);
      target[p++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          target[p++] = 0xf0 | (c >> 18);
          target[p++] = 0x80 | ((c >> 12) & 0x3f);
          target[p++] = 0x80 | ((c >> 6) & 0x3f);
          target[p++] = 0x80 | (c & 0x3f);
          continue;
        }
        c = 0xfffd;
      }
      target[p++] = 0xe0 | (c >> 12);
      target[p++] = 0x80 | ((c >> 6) & 0x3f);
      target[p++] = 0x80 | (c & 0x3f);
    }
  }
  target[p++] = 0;
  target[p++] = TERMINATOR;
  return p;
}

function writeBinary(b: Uint8Array, target: Uint8Array, start: number): number {
  let p = start;
  for (let i = 0; i < b.length; i++) {
    const x = b[i]!;
    target[p++] = x;
    if (x === 0) target[p++] = ESCAPE;
  }
  target[p++] = 0;
  target[p++] = TERMINATOR;
  return p;
}

function readEscaped(buf: Uint8Array, start: number): { bytes: Uint8Array; end: number } {
  // First pass finds the terminator and the escape count, so the copy is allocated once.
  let escapes = 0;
  let i = start;
  for (;;) {
    if (i + 1 >= buf.length) throw new RangeError('key bytes: unterminated string or binary');
    if (buf[i] === 0) {
      const next = buf[i + 1];
      if (next === TERMINATOR) break;
      if (next !== ESCAPE) throw new RangeError('key bytes: bad escape');
      escapes++;
      i += 2;
    } else i++;
  }
  const end = i + 2;
  if (escapes === 0) {
    // Not buf.slice: on a Buffer (LMDB's zero-copy values) that is a view, not a copy.
    const bytes = new Uint8Array(i - start);
    bytes.set(buf.subarray(start, i));
    return { bytes, end };
  }
  const bytes = new Uint8Array(i - start - escapes);
  let q = 0;
  for (let j = start; j < i; j++) {
    const x = buf[j]!;
    bytes[q++] = x;
    if (x === 0) j++;
  }
  return { bytes, end };
}

const CHAR_0 = 48;
const CHAR_DOT = 46;
const CHAR_MINUS = 45;

function writeNumber(s: string, target: Uint8Array, start: number): number {
  if (s === '0') {
    target[start] = ZERO;
    return start + 1;
  }
  const negative = s.charCodeAt(0) === CHAR_MINUS;
  const flip = negative ? 0xff : 0;
  let i = negative ? 1 : 0;
  let dot = s.indexOf('.', i);
  if (dot < 0) dot = s.length;
  // pos = decimal exponent such that |value| = 0.<significant digits> * 10^pos.
  let pos: number;
  if (dot - i === 1 && s.charCodeAt(i) === CHAR_0) {
    i = dot + 1;
    while (s.charCodeAt(i) === CHAR_0) i++;
    pos = dot + 1 - i;
  } else pos = dot - i;
  let last = s.length - 1;
  while (last > i && (s.charCodeAt(last) === CHAR_0 || s.charCodeAt(last) === CHAR_DOT)) last--;
  // An odd decimal exponent gets a leading 0 digit so digits pair up on base-100 boundaries.
  const odd = pos & 1;
  target[start] = negative ? NEGATIVE : POSITIVE;
  target[start + 1] = ((pos + odd) / 2 + EXPONENT_BIAS) ^ flip;
  let p = start + 2;
  let high = odd ? 0 : -1;
  for (let j = i; j <= last; j++) {
    const c = s.charCodeAt(j);
    if (c === CHAR_DOT) continue;
    const d = c - CHAR_0;
    if (high < 0) high = d;
    else {
      target[p++] = ((high * 10 + d) * 2 + 1) ^ flip;
      high = -1;
    }
  }
  if (high >= 0) target[p++] = ((high * 10) * 2 + 1) ^ flip;
  // The last digit is marked by clearing its low bit (setting it, once complemented).
  target[p - 1] = target[p - 1]! ^ 1;
  return p;
}

function readNumber(buf: Uint8Array, start: number): { value: KeyValue; end: number } {
  const head = buf[start];
  if (head === ZERO) return { value: { N: '0' }, end: start + 1 };
  if (head !== POSITIVE && head !== NEGATIVE) throw new RangeError('key bytes: bad number sign');
  const flip = head === NEGATIVE ? 0xff : 0;
  if (start + 2 >= buf.length) throw new RangeError('key bytes: truncated number');
  const pos = (((buf[start + 1]! ^ flip) - EXPONENT_BIAS) * 2) | 0;
  let digits = '';
  let p = start + 2;
  for (;;) {
    if (p >= buf.length) throw new RangeError('key bytes: truncated number');
    const b = buf[p++]! ^ flip;
    const m = b >> 1;
    if (m > 99) throw new RangeError('key bytes: bad number digit');
    digits += m < 10 ? '0' + m : m;
    if ((b & 1) === 0) break;
  }
  // |value| = 0.<digits> * 10^pos; digits may carry one leading and one trailing zero.
  const first = digits.charCodeAt(0) === CHAR_0 ? 1 : 0;
  const last = digits.charCodeAt(digits.length - 1) === CHAR_0 ? digits.length - 1 : digits.length;
  const significant = first === 0 && last === digits.length ? digits : digits.slice(first, last);
  const point = pos - first;
  let text: string;
  if (point <= 0) text = '0.' + '0'.repeat(-point) + significant;
  else if (point >= significant.length) text = significant + '0'.repeat(point - significant.length);
  else text = significant.slice(0, point) + '.' + significant.slice(point);
  return { value: { N: flip ? '-' + text : text }, end: p };
}
