import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue } from '../../src/model/attribute-value.js';
import { compareBytes, compareValues } from '../../src/model/compare-values.js';
import { parseNumber } from '../../src/model/number.js';

const b = (...bytes: number[]): AttributeValue => ({ B: Uint8Array.from(bytes) });
const n = (literal: string): AttributeValue => ({ N: parseNumber(literal) });

describe('compareValues', () => {
  it.each<[string, AttributeValue, AttributeValue, number | undefined]>([
    ['S by bytes: a > A', { S: 'a' }, { S: 'A' }, 1],
    ['S: ¿ > z', { S: '¿' }, { S: 'z' }, 1],
    ['S: astral > U+FFFD', { S: '😀' }, { S: '\ufffd' }, 1],
    ['S: prefix first', { S: 'ab' }, { S: 'abc' }, -1],
    ['S equal', { S: 'x' }, { S: 'x' }, 0],
    ['N numeric, not textual', n('10'), n('9'), 1],
    ['N negative', n('-10'), n('-9'), -1],
    ['N 1.0 = 1', n('1.0'), n('1'), 0],
    ['B unsigned: 0x80 > 0x7f', b(0x80), b(0x7f), 1],
    ['B prefix first', b(1, 2), b(1, 2, 0), -1],
    ['B empty first', b(), b(0), -1],
    ['S vs N', { S: '1' }, n('1'), undefined],
    ['N vs B', n('1'), b(1), undefined],
    ['BOOL', { BOOL: true }, { BOOL: false }, undefined],
    ['NULL', { NULL: true }, { NULL: true }, undefined],
    ['L', { L: [] }, { L: [] }, undefined],
    ['SS', { SS: ['a'] }, { SS: ['a'] }, undefined],
  ])('%s', (_name, x, y, expected) => {
    expect(compareValues(x, y)).toBe(expected);
  });

  it('B order is the unsigned order of Buffer.compare', () => {
    const bytes = fc.uint8Array({ maxLength: 8 });
    fc.assert(
      fc.property(bytes, bytes, (x, y) => {
        expect(compareBytes(x, y)).toBe(Buffer.compare(x, y));
      }),
      { numRuns: 2000 },
    );
  });
});
