import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromDecimalFraction, isSafeIntegerString, toDecimalFraction } from '../../src/codec/decimal-fraction.js';
import { anyCanonicalNumber, parseCanonical } from './number-oracle.js';

describe('decimal fraction', () => {
  it.each<[string, boolean]>([
    ['0', true], ['-1', true], ['9007199254740991', true], ['-9007199254740991', true],
    ['9007199254740992', false], ['21.5', false], ['1' + '0'.repeat(20), false],
  ])('isSafeIntegerString(%s) = %s', (s, expected) => {
    expect(isSafeIntegerString(s)).toBe(expected);
  });

  it.each<[string, number, number | bigint]>([
    ['21.5', -1, 215], ['-0.000001', -6, -1], ['1200000000000000000', 17, 12], ['0.1', -1, 1],
    ['123456789012345678901234567890.12345678', -8, 12345678901234567890123456789012345678n],
  ])('toDecimalFraction(%s) = [%d, %s]', (s, exponent, mantissa) => {
    expect(toDecimalFraction(s)).toEqual([exponent, mantissa]);
  });

  it('round-trips every canonical number with a trailing-zero-free mantissa', () => {
    fc.assert(
      fc.property(anyCanonicalNumber, (n) => {
        const [exponent, mantissa] = toDecimalFraction(n);
        expect(fromDecimalFraction(exponent, mantissa)).toBe(n);
        expect(n === '0' || !String(mantissa).endsWith('0')).toBe(true);
      }),
      { numRuns: 10_000 },
    );
  });

  it('reads any exponent and mantissa to the canonical string of the same value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.integer({ min: -60, max: 60 }), (m, e) => {
        const text = fromDecimalFraction(e, m);
        expect(text).toMatch(/^(0|-?(0\.\d*[1-9]|[1-9]\d*(\.\d*[1-9])?))$/);
        // Same value: compare both at the smaller of the two exponents, exactly.
        const parsed = parseCanonical(text);
        const signed = parsed.negative ? -parsed.digits : parsed.digits;
        const k = Math.min(e, parsed.exponent);
        expect(signed * 10n ** BigInt(parsed.exponent - k)).toBe(m * 10n ** BigInt(e - k));
      }),
      { numRuns: 2_000 },
    );
  });
});
