import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue } from '../../src/model/attribute-value.js';
import { validateAttributeValue } from '../../src/model/validate-attribute-value.js';
import { valuesEqual } from '../../src/model/values-equal.js';

const v = (wire: unknown): AttributeValue => validateAttributeValue(wire);

describe('valuesEqual', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['S', { S: 'a' }, { S: 'a' }, true],
    ['S differs', { S: 'a' }, { S: 'b' }, false],
    ['N numeric', { N: '1.0' }, { N: '1' }, true],
    ['N 1e2 = 100', { N: '1e2' }, { N: '100' }, true],
    ['N differs', { N: '1' }, { N: '1.01' }, false],
    ['S vs N', { S: '1' }, { N: '1' }, false],
    ['B bytewise', { B: 'AAE=' }, { B: Uint8Array.of(0, 1) }, true],
    ['B differs', { B: 'AAE=' }, { B: 'AAI=' }, false],
    ['B vs S', { B: '' }, { S: '' }, false],
    ['BOOL', { BOOL: true }, { BOOL: true }, true],
    ['BOOL differs', { BOOL: true }, { BOOL: false }, false],
    ['NULL', { NULL: true }, { NULL: true }, true],
    ['NULL vs BOOL', { NULL: true }, { BOOL: true }, false],
    ['SS unordered', { SS: ['a', 'b', 'c'] }, { SS: ['c', 'a', 'b'] }, true],
    ['SS subset', { SS: ['a', 'b'] }, { SS: ['a', 'b', 'c'] }, false],
    ['NS numeric and unordered', { NS: ['1.0', '2'] }, { NS: ['2.00', '1'] }, true],
    ['NS differs', { NS: ['1', '2'] }, { NS: ['1', '3'] }, false],
    ['BS unordered', { BS: ['AA==', 'AQ=='] }, { BS: ['AQ==', 'AA=='] }, true],
    ['BS differs', { BS: ['AA==', 'AQ=='] }, { BS: ['AQ==', 'Ag=='] }, false],
    ['SS vs L', { SS: ['a'] }, { L: [{ S: 'a' }] }, false],
    ['L ordered', { L: [{ S: 'a' }, { N: '1' }] }, { L: [{ S: 'a' }, { N: '1.0' }] }, true],
    ['L order matters', { L: [{ S: 'a' }, { S: 'b' }] }, { L: [{ S: 'b' }, { S: 'a' }] }, false],
    ['L length', { L: [{ S: 'a' }] }, { L: [{ S: 'a' }, { S: 'a' }] }, false],
    ['M by keys and values', { M: { a: { N: '1' }, b: { L: [] } } }, { M: { b: { L: [] }, a: { N: '1' } } }, true],
    ['M extra key', { M: { a: { N: '1' } } }, { M: { a: { N: '1' }, b: { N: '1' } } }, false],
    ['M missing key', { M: { a: { N: '1' }, b: { N: '1' } } }, { M: { a: { N: '1' } } }, false],
    ['M value differs', { M: { a: { N: '1' } } }, { M: { a: { S: '1' } } }, false],
    ['M empty', { M: {} }, { M: {} }, true],
    ['M vs L', { M: {} }, { L: [] }, false],
  ])('%s', (_name, a, b, expected) => {
    expect(valuesEqual(v(a), v(b))).toBe(expected);
    expect(valuesEqual(v(b), v(a))).toBe(expected);
  });

  it('large sets compare unordered (hash path)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 17, maxLength: 60 }), fc.boolean(), (ints, drop) => {
        const shuffled = [...ints].reverse();
        if (drop) shuffled[0] = 20_000 + (shuffled[0] as number);
        const ns = (xs: number[]) => v({ NS: xs.map(String) });
        const bs = (xs: number[]) => v({ BS: xs.map((x) => Uint8Array.of(x >> 8, x & 0xff)) });
        const ss = (xs: number[]) => v({ SS: xs.map((x) => `s${x}`) });
        expect(valuesEqual(ns(ints), ns(shuffled))).toBe(!drop);
        expect(valuesEqual(bs(ints), bs(shuffled))).toBe(!drop);
        expect(valuesEqual(ss(ints), ss(shuffled))).toBe(!drop);
      }),
      { numRuns: 200 },
    );
  });
});
