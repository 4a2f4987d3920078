import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationException } from '../../src/model/errors.js';
import {
  addNumbers,
  compareNumbers,
  decomposeNumber,
  numberSize,
  parseNumber,
  subtractNumbers,
} from '../../src/model/number.js';
import { addExact, anyLiteral, compareExact, exactOf, limitOf, validLiteral } from './number-oracle.js';
import { anyCanonicalNumber } from '../codec/number-oracle.js';

const PRECISION = 'Attempting to store more than 38 significant digits in a Number';
const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';
const SYNTAX = 'The parameter cannot be converted to a numeric value';
const MESSAGES = { overflow: OVERFLOW, underflow: UNDERFLOW, precision: PRECISION } as const;

const NINES_38 = '9'.repeat(38);
const MAX = `9.${'9'.repeat(37)}E+125`;
const CANONICAL = /^(0|-?(0|[1-9]\d*)(\.\d*[1-9])?)$/;

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('parseNumber', () => {
  it.each([
    ['3', '3'],
    ['-7.1234', '-7.1234'],
    ['-17e5', '-1700000'],
    ['-17.4E37', '-174' + '0'.repeat(36)],
    ['+3', '3'],
    ['.123', '0.123'],
    ['0001.23', '1.23'],
    ['1e+5', '100000'],
    ['0e125', '0'],
    ['0e-130', '0'],
    ['0.00e127', '0'],
    ['0', '0'],
    ['-0', '0'],
    ['0.000', '0'],
    ['00042', '42'],
    ['1.200', '1.2'],
    ['1.0', '1'],
    ['1.5E2', '150'],
    ['1E3', '1000'],
    ['1E-3', '0.001'],
    ['1.', '1'],
    ['-.5e-1', '-0.05'],
    ['1E125', '1' + '0'.repeat(125)],
    ['1E-130', '0.' + '0'.repeat(129) + '1'],
    [MAX, NINES_38 + '0'.repeat(88)],
    [`-${MAX}`, `-${NINES_38}${'0'.repeat(88)}`],
    ['1234567895171680000000000000000000000000', '1234567895171680000000000000000000000000'],
    [NINES_38, NINES_38],
    ['0.' + NINES_38, '0.' + NINES_38],
    ['1' + '0'.repeat(50) + 'e-50', '1'],
  ])('%s -> %s', (literal, canonical) => {
    expect(parseNumber(literal)).toBe(canonical);
  });

  it.each([
    'NaN', 'Infinity', '-Infinity', 'dog', ' 1', '1 ', '\t1', '1\n', '1+2', '1.2.3', '+e2', '1e', '1e+', '',
    '.', '-', '+', 'e5', '.e1', '--1', '+-1', '0x10', '1_000', '1,5', '１', '1e1.5', '١',
  ])('rejects %j, echoing it', (literal) => {
    const error = thrown(() => parseNumber(literal));
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(`${SYNTAX}: ${literal}`);
  });

  it.each([
    ['1E126', OVERFLOW],
    ['-1E126', OVERFLOW],
    ['10E125', OVERFLOW],
    [`${'9'.repeat(39)}e88`, OVERFLOW],
    [`${'9'.repeat(39)}e87`, PRECISION],
    ['1E99999999999', OVERFLOW],
    ['1e2147483647', OVERFLOW],
    ['1e2147483648', OVERFLOW],
    ['-1e9223372036854775807', OVERFLOW],
    ['0e126', OVERFLOW],
    ['0e1000', OVERFLOW],
    ['0e-131', UNDERFLOW],
    ['0.0e-130', UNDERFLOW],
    ['0e-99999999999', UNDERFLOW],
    ['1E-131', UNDERFLOW],
    ['-1E-131', UNDERFLOW],
    ['0.1E-130', UNDERFLOW],
    ['1E-99999999999', UNDERFLOW],
    ['1e-2147483648', UNDERFLOW],
    ['1e-9223372036854775808', UNDERFLOW],
    ['1' + '1'.repeat(38), PRECISION],
    ['-1.23456789012345678901234567890123456789', PRECISION],
    ['1.' + '0'.repeat(37) + '1', PRECISION],
  ])('%s is rejected with the limit message', (literal, message) => {
    const error = thrown(() => parseNumber(literal));
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(message);
  });

  it('an exponent past a 64-bit integer cannot be converted, whatever the digits', () => {
    for (const literal of ['1e9223372036854775808', '0e9223372036854775808', '1e-9223372036854775809', '1E99999999999999999999']) {
      expect(thrown(() => parseNumber(literal)).message).toBe(`${SYNTAX}: ${literal}`);
    }
  });


  describe('the older layer (BatchWriteItem, transactions, Scan) reads literals as BigDecimal does', () => {
    it.each([
      ['abc', `${SYNTAX}: abc`],
      ['', SYNTAX],
      [' 1', `${SYNTAX}:  1`],
      ['1e126', OVERFLOW],
      ['1e2147483646', OVERFLOW],
      // precision - scale computed in 32 bits wraps past 2^31 - 1.
      ['1e2147483647', UNDERFLOW],
      ['1e2147483648', `${SYNTAX}: 1e2147483648`],
      ['1e-2147483649', `${SYNTAX}: 1e-2147483649`],
      ['0.5e-2147483648', `${SYNTAX}: 0.5e-2147483648`],
      ['1e9223372036854775808', `${SYNTAX}: 1e9223372036854775808`],
      ['0e126', OVERFLOW],
      ['0e-131', UNDERFLOW],
    ])('%j -> %s', (literal, message) => {
      expect(thrown(() => parseNumber(literal, 'older')).message).toBe(message);
    });

    it('accepts what the current layer accepts, with the same canonical form', () => {
      fc.assert(
        fc.property(validLiteral, (literal) => {
          expect(parseNumber(literal, 'older')).toBe(parseNumber(literal));
        }),
        { numRuns: 1000 },
      );
    });
  });

  it('returns a canonical number as it is, and canonicalizes every near miss', () => {
    fc.assert(
      fc.property(anyCanonicalNumber, (n) => {
        expect(parseNumber(n)).toBe(n);
      }),
      { numRuns: 5000 },
    );
    for (const [literal, canonical] of [
      ['21.50', '21.5'], ['021.5', '21.5'], ['+21.5', '21.5'], ['-0.0', '0'], ['-0', '0'], ['21.', '21'],
      ['.5', '0.5'], ['-.5', '-0.5'], ['00.5', '0.5'], ['0.50', '0.5'], ['2.15e1', '21.5'], ['-0.010', '-0.01'],
    ]) {
      expect(parseNumber(literal!), literal).toBe(canonical);
    }
  });

  it('38 significant digits pass, 39 do not', () => {
    expect(parseNumber('1.' + '0'.repeat(36) + '1')).toBe('1.' + '0'.repeat(36) + '1');
    expect(thrown(() => parseNumber('1' + '0'.repeat(37) + '1')).message).toBe(PRECISION);
    expect(parseNumber('1' + '0'.repeat(36) + '10')).toBe('1' + '0'.repeat(36) + '10');
  });

  it('agrees with the rational oracle on arbitrary literals', () => {
    fc.assert(
      fc.property(anyLiteral, (literal) => {
        const exact = exactOf(literal);
        expect(exact).toBeDefined();
        const limit = limitOf(exact!);
        if (limit !== 'ok') {
          expect(thrown(() => parseNumber(literal)).message).toBe(MESSAGES[limit]);
          return;
        }
        const canonical = parseNumber(literal);
        expect(canonical).toMatch(CANONICAL);
        expect(compareExact(exactOf(canonical)!, exact!)).toBe(0);
        expect(parseNumber(canonical)).toBe(canonical);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('decomposeNumber', () => {
  it.each([
    ['0', false, '', 0],
    ['7', false, '7', 1],
    ['-12.5', true, '125', 2],
    ['1200', false, '12', 4],
    ['0.001', false, '1', -2],
    ['-0.5', true, '5', 0],
    ['100.01', false, '10001', 3],
  ])('%s', (canonical, negative, digits, exponent) => {
    expect(decomposeNumber(canonical)).toEqual({ negative, digits, exponent });
  });

  it('reassembles to the same value', () => {
    fc.assert(
      fc.property(validLiteral, (literal) => {
        const canonical = parseNumber(literal);
        const { negative, digits, exponent } = decomposeNumber(canonical);
        if (digits === '') {
          expect(canonical).toBe('0');
          return;
        }
        expect(digits).toMatch(/^[1-9](\d*[1-9])?$/);
        expect(parseNumber(`${negative ? '-' : ''}0.${digits}e${exponent}`)).toBe(canonical);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('compareNumbers', () => {
  it.each([
    ['0', '0', 0],
    ['1', '2', -1],
    ['-1', '-2', 1],
    ['-1', '0', -1],
    ['0', '-0.5', 1],
    ['0.5', '0.05', 1],
    ['10', '9.99', 1],
    ['12', '12.5', -1],
    ['-12', '-12.5', 1],
    ['0', '0.' + '0'.repeat(129) + '1', -1],
    [NINES_38 + '0'.repeat(88), '1' + '0'.repeat(125), 1],
  ])('%s vs %s = %d', (a, b, expected) => {
    expect(compareNumbers(a, b)).toBe(expected);
    expect(compareNumbers(b, a)).toBe(-expected || 0);
  });

  it('agrees with the rational oracle (10,000 pairs)', () => {
    fc.assert(
      fc.property(validLiteral, validLiteral, (x, y) => {
        const a = parseNumber(x);
        const b = parseNumber(y);
        expect(compareNumbers(a, b)).toBe(compareExact(exactOf(x)!, exactOf(y)!));
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('addNumbers / subtractNumbers', () => {
  it.each([
    ['1', '2', '3', '-1'],
    ['0.1', '0.2', '0.3', '-0.1'],
    ['1.5', '1.5', '3', '0'],
    ['-5', '5', '0', '-10'],
    ['99999999999999', '1', '100000000000000', '99999999999998'],
    ['123456789012345', '1', '123456789012346', '123456789012344'],
    ['0.001', '1000', '1000.001', '-999.999'],
  ])('%s and %s', (a, b, sum, difference) => {
    expect(addNumbers(a, b)).toBe(sum);
    expect(subtractNumbers(a, b)).toBe(difference);
  });

  it('a result beyond the limits fails like DynamoDB (precision reported as overflow)', () => {
    const big = parseNumber('9e125');
    expect(thrown(() => addNumbers(big, big)).message).toBe(OVERFLOW);
    expect(thrown(() => subtractNumbers('-' + big, big)).message).toBe(OVERFLOW);
    expect(thrown(() => addNumbers(parseNumber('1e50'), '1')).message).toBe(OVERFLOW);
    const tiny = parseNumber('2e-130');
    expect(thrown(() => subtractNumbers(tiny, parseNumber('1.5e-130'))).message).toBe(UNDERFLOW);
    expect(addNumbers(parseNumber('1e37'), '1')).toBe('1' + '0'.repeat(36) + '1');
  });

  it('agree with the rational oracle', () => {
    fc.assert(
      fc.property(validLiteral, validLiteral, fc.boolean(), (x, y, subtract) => {
        const a = parseNumber(x);
        const b = parseNumber(y);
        const expected = addExact(exactOf(x)!, exactOf(y)!, subtract ? -1n : 1n);
        const limit = limitOf(expected);
        const run = () => (subtract ? subtractNumbers(a, b) : addNumbers(a, b));
        if (limit !== 'ok') {
          expect(thrown(run).message).toBe(limit === 'precision' ? OVERFLOW : MESSAGES[limit]);
          return;
        }
        const result = run();
        expect(result).toMatch(CANONICAL);
        expect(compareExact(exactOf(result)!, expected)).toBe(0);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('numberSize', () => {
  it.each([
    ['0', 1],
    ['-0', 1],
    ['7', 2],
    ['42', 2],
    ['-42', 3],
    ['123', 3],
    ['123.45', 4],
    ['0.0000001', 2],
    ['1E125', 2],
    ['100', 2],
    ['100.5', 4],
    ['0.12', 2],
    ['0.123', 3],
    ['1.5', 3],
    [NINES_38, 20],
    [`-${NINES_38}`, 21],
    ['0.' + NINES_38, 20],
  ])('%s costs %d bytes', (literal, size) => {
    expect(numberSize(parseNumber(literal))).toBe(size);
  });

  it('counts only significant digits: 1E125 and its expansion cost the same', () => {
    expect(numberSize(parseNumber('1E125'))).toBe(numberSize(parseNumber('1' + '0'.repeat(125))));
  });
});
