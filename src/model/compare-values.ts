/**
 * Ordering for `< <= > >= BETWEEN` and sort keys (../shared/spec/DYNAMODB.md §2): defined only
 * between two values of the same type among S, N and B. S by UTF-8 bytes (code points, not
 * UTF-16 units), B by unsigned bytes, N numerically. A strict prefix sorts first.
 */
import type { AttributeValue } from './attribute-value.js';
import { compareNumbers } from './number.js';
import { compareUtf8 } from './utf8.js';

/** -1, 0 or 1; `undefined` when the two values are not both S, both N or both B. */
export function compareValues(a: AttributeValue, b: AttributeValue): -1 | 0 | 1 | undefined {
  if ('S' in a) return 'S' in b ? compareUtf8(a.S, b.S) : undefined;
  if ('N' in a) return 'N' in b ? compareNumbers(a.N, b.N) : undefined;
  if ('B' in a) return 'B' in b ? compareBytes(a.B, b.B) : undefined;
  return undefined;
}

/** Unsigned lexicographic byte order; a strict prefix sorts first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  const n = a.byteLength < b.byteLength ? a.byteLength : b.byteLength;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.byteLength === b.byteLength ? 0 : a.byteLength < b.byteLength ? -1 : 1;
}
