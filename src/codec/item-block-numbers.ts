/**
 * N values in an item block: the exact text of the number as packed nibbles, two characters a
 * byte, the last byte's low nibble 15 when the text is odd in length. The text is kept exactly
 * (DynamoDB returns a number as stored), so every character of a number literal has a nibble.
 */

const NIBBLE_CHARS = '0123456789.-E+e';
const PAD = 15;
const NIBBLE_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < NIBBLE_CHARS.length; i++) NIBBLE_OF[NIBBLE_CHARS.charCodeAt(i)] = i;

/** Bytes the packed text of `n` takes. */
export function packedNumberBytes(n: string): number {
  return (n.length + 1) >> 1;
}

/** Writes `n` packed at `target[at]`; returns the end. RangeError for a character no number has. */
export function writePackedNumber(n: string, target: Uint8Array, at: number): number {
  for (let i = 0; i < n.length; i += 2) {
    const hi = nibbleOf(n.charCodeAt(i));
    const lo = i + 1 < n.length ? nibbleOf(n.charCodeAt(i + 1)) : PAD;
    target[at++] = (hi << 4) | lo;
  }
  return at;
}

function nibbleOf(code: number): number {
  const nibble = code < 128 ? NIBBLE_OF[code]! : -1;
  if (nibble < 0) throw new RangeError(`item block: ${String.fromCharCode(code)} in a number`);
  return nibble;
}

/**
 * Decoded numbers of up to 4 packed bytes by their bytes and length (readings repeat their
 * values); bounded: cleared when full.
 */
const MAX_CACHED_NUMBERS = 1 << 16;
const cache = new Map<number, string>();

/** The text packed in `src[at..at + bytes)`. */
export function readPackedNumber(src: Uint8Array, at: number, bytes: number): string {
  if (bytes > 4) return unpack(src, at, bytes);
  let k = bytes;
  for (let i = 0; i < bytes; i++) k = k * 256 + src[at + i]!;
  let s = cache.get(k);
  if (s === undefined) {
    s = unpack(src, at, bytes);
    if (cache.size >= MAX_CACHED_NUMBERS) cache.clear();
    cache.set(k, s);
  }
  return s;
}

function unpack(src: Uint8Array, at: number, bytes: number): string {
  let s = '';
  for (let i = 0; i < bytes; i++) {
    const b = src[at + i]!;
    s += NIBBLE_CHARS[b >> 4]!;
    if ((b & 15) !== PAD) s += NIBBLE_CHARS[b & 15]!;
  }
  return s;
}

/**
 * The value of a number text that is a non-negative integer in its plainest form and a safe
 * integer ("0", "17", not "017", "1.0" or "-3"), else NaN: such sort keys are stored as deltas.
 */
export function plainIntegerOf(n: string): number {
  const length = n.length;
  if (length === 0 || length > 16 || (length > 1 && n.charCodeAt(0) === 48)) return Number.NaN;
  let v = 0;
  for (let i = 0; i < length; i++) {
    const d = n.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    v = v * 10 + d;
  }
  return v <= Number.MAX_SAFE_INTEGER ? v : Number.NaN;
}
