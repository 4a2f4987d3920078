/**
 * UTF-8 facts about JavaScript strings without encoding them: byte length (item size, key and
 * name limits) and byte order (S ordering, §2). Both run on every write and in comparison loops,
 * so neither allocates.
 *
 * A lone surrogate counts as U+FFFD (3 bytes), which is what TextEncoder and Buffer write for it.
 * Validation refuses such strings (`isWellFormedUtf16`): two different lone surrogates would both
 * be stored as U+FFFD, so two different keys would become one.
 */

/** Strings longer than this go to the native counter: a call costs less than the loop there. */
const NATIVE_THRESHOLD_CHARS = 64;

/** Number of bytes `s` occupies in UTF-8. */
export function utf8ByteLength(s: string): number {
  const n = s.length;
  if (n > NATIVE_THRESHOLD_CHARS) return Buffer.byteLength(s, 'utf8');
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      // A surrogate pair: two UTF-16 units, four UTF-8 bytes.
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 2;
        i++;
      } else {
        bytes += 2;
      }
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/**
 * Compares two strings in the order of their UTF-8 bytes (= Unicode code-point order), which is
 * how DynamoDB orders S values. Plain `<` compares UTF-16 units and puts U+10000.. (surrogates,
 * 0xD800..0xDFFF) before U+E000..U+FFFF; the fix-up below moves surrogates above the rest of
 * the BMP at the first differing unit, the only place where order is decided.
 * Returns -1, 0 or 1.
 */
export function compareUtf8(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** ES2024's String.prototype.isWellFormed (every Node >= 20 has it; the ES2022 lib types lack it). */
type WellFormedCheck = { isWellFormed(): boolean };

/**
 * Whether `s` encodes to UTF-8 without loss: no lone (unpaired) UTF-16 surrogate. V8's native
 * check, because it runs for every string of every write (about 3x faster than a regex pretest).
 */
export function isWellFormedUtf16(s: string): boolean {
  return (s as unknown as WellFormedCheck).isWellFormed();
}
