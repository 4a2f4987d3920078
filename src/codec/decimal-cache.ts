/** The cache of canonical decimal strings behind item-reader.ts's readDecimalFraction (two ways per hash). */
import { fromDecimalFraction } from './decimal-fraction.js';

export const DECIMAL_CACHE_BITS = 14;
/** Bounded: 16384 strings, and 256 KB of mantissas and exponents. */
const DECIMAL_CACHE_SIZE = 1 << DECIMAL_CACHE_BITS;
export const decimalMantissas = new Float64Array(DECIMAL_CACHE_SIZE).fill(Number.NaN);
export const decimalExponents = new Float64Array(DECIMAL_CACHE_SIZE);
export const decimalStrings: string[] = new Array<string>(DECIMAL_CACHE_SIZE).fill('');

/** The second entry of the decimal cache's pair at `slot`, made its first. */
export function promoteDecimal(slot: number): string {
  const text = decimalStrings[slot + 1]!;
  const mantissa = decimalMantissas[slot + 1]!;
  const exponent = decimalExponents[slot + 1]!;
  demoteDecimal(slot);
  decimalMantissas[slot] = mantissa;
  decimalExponents[slot] = exponent;
  decimalStrings[slot] = text;
  return text;
}

/** The miss of the decimal cache: the canonical string built, and cached first in the pair at `slot`. */
export function cacheDecimal(slot: number, exponent: number, mantissa: number): string {
  const text = fromDecimalFraction(exponent, mantissa);
  demoteDecimal(slot);
  decimalMantissas[slot] = mantissa;
  decimalExponents[slot] = exponent;
  decimalStrings[slot] = text;
  return text;
}

/** The first entry of the pair at `slot` made its second (the second goes). */
function demoteDecimal(slot: number): void {
  decimalMantissas[slot + 1] = decimalMantissas[slot]!;
  decimalExponents[slot + 1] = decimalExponents[slot]!;
  decimalStrings[slot + 1] = decimalStrings[slot]!;
}
