/**
 * Test support for N values: a generator of canonical decimal strings over DynamoDB's whole range
 * and a BigInt-based exact comparison, both independent of the code under test.
 */
import fc from 'fast-check';

/** A canonical number as (sign, significant digits, exponent of the last digit). */
interface Decimal {
  readonly negative: boolean;
  readonly digits: bigint;
  readonly exponent: number;
}

/** Parses a canonical decimal string: value = (-1)^negative * digits * 10^exponent. */
export function parseCanonical(s: string): Decimal {
  const negative = s.startsWith('-');
  const body = negative ? s.slice(1) : s;
  const dot = body.indexOf('.');
  const fraction = dot < 0 ? '' : body.slice(dot + 1);
  const whole = (dot < 0 ? body : body.slice(0, dot)) + fraction;
  return { negative, digits: BigInt(whole), exponent: -fraction.length };
}

/** Exact numeric comparison of two canonical decimal strings: -1, 0 or 1. */
export function compareNumbers(a: string, b: string): number {
  const x = parseCanonical(a);
  const y = parseCanonical(b);
  const shift = Math.min(x.exponent, y.exponent);
  const xs = (x.negative ? -x.digits : x.digits) * 10n ** BigInt(x.exponent - shift);
  const ys = (y.negative ? -y.digits : y.digits) * 10n ** BigInt(y.exponent - shift);
  return xs < ys ? -1 : xs > ys ? 1 : 0;
}

/** Builds the canonical string of sign * 0.d1d2...dn * 10^(point) given significant digits. */
export function canonicalString(negative: boolean, significant: string, point: number): string {
  let text: string;
  if (point <= 0) text = '0.' + '0'.repeat(-point) + significant;
  else if (point >= significant.length) text = significant + '0'.repeat(point - significant.length);
  else text = significant.slice(0, point) + '.' + significant.slice(point);
  return negative ? '-' + text : text;
}

const digit = fc.integer({ min: 0, max: 9 });
const nonZeroDigit = fc.integer({ min: 1, max: 9 });

/**
 * Random canonical non-zero numbers from 1E-130 to 9.99..E+125 with 1..38 significant digits.
 * Exponents are biased toward small magnitudes and near-equal values so comparisons hit shared
 * prefixes, not only the exponent byte.
 */
export const canonicalNumber: fc.Arbitrary<string> = fc
  .tuple(
    fc.boolean(),
    nonZeroDigit,
    fc.array(digit, { maxLength: 36 }),
    nonZeroDigit,
    fc.boolean(),
    fc.oneof(fc.integer({ min: -130, max: 125 }), fc.integer({ min: -6, max: 20 })),
  )
  .map(([negative, head, middle, tail, single, leadExponent]) => {
    const significant = single ? String(head) : String(head) + middle.join('') + String(tail);
    return canonicalString(negative, significant, leadExponent + 1);
  });

/** Canonical numbers including zero and a few boundary values. */
export const anyCanonicalNumber: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: canonicalNumber },
  { weight: 1, arbitrary: fc.constantFrom('0', '1', '-1', '0.1', '10', '100', '99', '0.01', '-0.01') },
);
