/**
 * A brute-force oracle for DynamoDB numbers: exact rationals value = coefficient * 10^exponent
 * with BigInt, written independently of src/model/number.ts.
 */
import fc from 'fast-check';

export type Exact = { c: bigint; e: number };

const LITERAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Value of a numeric literal (any accepted syntax), or undefined if it is not one. */
export function exactOf(literal: string): Exact | undefined {
  const m = LITERAL.exec(literal);
  if (!m) return undefined;
  const int = m[2] ?? '';
  const frac = m[3] ?? '';
  if (int.length + frac.length === 0) return undefined;
  const magnitude = BigInt(int + frac || '0');
  return { c: m[1] === '-' ? -magnitude : magnitude, e: Number(m[4] ?? '0') - frac.length };
}

export function compareExact(a: Exact, b: Exact): number {
  const e = Math.min(a.e, b.e);
  const x = a.c * 10n ** BigInt(a.e - e);
  const y = b.c * 10n ** BigInt(b.e - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addExact(a: Exact, b: Exact, sign: 1n | -1n): Exact {
  const e = Math.min(a.e, b.e);
  return { c: a.c * 10n ** BigInt(a.e - e) + sign * b.c * 10n ** BigInt(b.e - e), e };
}

/**
 * 'ok', or which limit the value breaks (range before precision, as DynamoDB reports). A zero is
 * range-checked by the exponent of its one digit as written (`0e126` overflows).
 */
export function limitOf(x: Exact): 'ok' | 'overflow' | 'underflow' | 'precision' {
  if (x.c === 0n) return x.e > 125 ? 'overflow' : x.e < -130 ? 'underflow' : 'ok';
  let digits = (x.c < 0n ? -x.c : x.c).toString();
  let e = x.e;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    e++;
  }
  const scientific = e + digits.length - 1;
  if (scientific > 125) return 'overflow';
  if (scientific < -130) return 'underflow';
  return digits.length > 38 ? 'precision' : 'ok';
}

const digitString = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Literals of every accepted shape, valid or out of limits. */
export const anyLiteral = fc
  .tuple(
    fc.constantFrom('', '+', '-'),
    digitString(0, 42),
    fc.option(digitString(0, 42)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 180 }))),
  )
  .filter(([, int, frac]) => int.length + (frac ?? '').length > 0)
  .map(([sign, int, frac, exp]) => {
    let s = sign + int;
    if (frac !== null) s += '.' + frac;
    if (exp !== null) s += exp[0] + exp[1] + String(exp[2]);
    return s;
  });

/** Literals of numbers inside every limit, spread over the whole range, zero included. */
export const validLiteral = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('0', '-0', '0.000', '0e7') },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), digitString(0, 37), fc.integer({ min: -130, max: 125 }))
      .map(([negative, lead, rest, scientific]) => `${negative ? '-' : ''}${lead}.${rest}e${scientific}`),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), digitString(0, 12), fc.integer({ min: -6, max: 12 }))
      .map(([negative, lead, rest, scientific]) => `${negative ? '-' : ''}${lead}.${rest}e${scientific}`),
  },
  { weight: 3, arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String) },
);
