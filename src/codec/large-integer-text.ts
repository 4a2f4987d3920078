/** The decimal text of integers above V8's small-integer range, for item-reader.ts. */
import { slices } from './buffer-slices.js';

/** Below this V8 formats an integer quickly (a small integer, and a cache of recent ones). */
export const MAX_SMALL_INTEGER = 0x3fffffff;
const HIGH_DIGITS = 1e8;
/** The digits of largeIntegerText, written from the end (2^53 has 16). */
const digitBytes = new Uint8Array(16);

/**
 * The decimal digits of an integer `m` above MAX_SMALL_INTEGER and at most 2^53, written into a
 * scratch and read out as one flat string. Not String(m): a double-to-string path (measured ~150
 * ns for a 13-digit timestamp, which every sensor reading has), and every string V8 makes from a
 * number goes into its number-to-string cache, an old-space table that keeps it alive past the
 * next scavenge or two; with a distinct timestamp per item read, those strings were most of what
 * a GetItem left the scavenger to copy and promote (bench/get-probe.ts). Exact: both parts are
 * integers below 2^31 once split at 10^8, the low part corrected should the division round up.
 */
export function largeIntegerText(m: number): string {
  let high = Math.floor(m / HIGH_DIGITS);
  let low = m - high * HIGH_DIGITS;
  if (low < 0) {
    high--;
    low += HIGH_DIGITS;
  }
  const digits = digitBytes;
  let at = digits.length;
  for (let k = 0; k < 8; k++) {
    const q = (low / 10) | 0;
    digits[--at] = 48 + low - q * 10;
    low = q;
  }
  if (high === 0) {
    while (at < digits.length - 1 && digits[at] === 48) at++;
  } else {
    while (high > 0) {
      const q = (high / 10) | 0;
      digits[--at] = 48 + high - q * 10;
      high = q;
    }
  }
  return slices.latin1Slice.call(digits, at, digits.length);
}
