import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf8, isWellFormedUtf16, utf8ByteLength } from '../../src/model/utf8.js';

const bytesOf = (s: string) => new TextEncoder().encode(s);

function compareByteArrays(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Strings biased toward the interesting ranges: ASCII, 2- and 3-byte, U+E000..U+FFFF, astral. */
const unit = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7f }),
  fc.integer({ min: 0x80, max: 0x7ff }),
  fc.integer({ min: 0x800, max: 0xd7ff }),
  fc.integer({ min: 0xe000, max: 0xffff }),
  fc.integer({ min: 0x10000, max: 0x10ffff }),
);
const text = fc.array(unit, { maxLength: 12 }).map((cps) => String.fromCodePoint(...cps));

describe('utf8ByteLength', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['¿', 2],
    ['€', 3],
    ['\uffff', 3],
    ['😀', 4],
    ['a😀b', 6],
    ['\ud800', 3],
    ['\udc00x', 4],
    ['x'.repeat(100) + '😀', 104],
  ])('%j is %d bytes', (s, n) => {
    expect(utf8ByteLength(s)).toBe(n);
  });

  it('matches TextEncoder on short and long strings', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 10 }), (s, repeat) => {
        const t = s.repeat(repeat);
        expect(utf8ByteLength(t)).toBe(bytesOf(t).length);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('compareUtf8', () => {
  it.each([
    ['a', 'A', 1],
    ['¿', 'z', 1],
    ['ab', 'abc', -1],
    ['', 'a', -1],
    ['same', 'same', 0],
    // U+1F600 (F0 9F 98 80) sorts after U+FFFF (EF BF BF) in UTF-8, before it in UTF-16.
    ['😀', '\uffff', 1],
    ['\ue000', '😀', -1],
    ['x😀', 'x\uff5e', 1],
  ])('%j vs %j = %d', (a, b, expected) => {
    expect(compareUtf8(a, b)).toBe(expected);
    expect(compareUtf8(b, a)).toBe(-expected || 0);
  });

  it('equals the order of the UTF-8 bytes', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(compareUtf8(a, b)).toBe(compareByteArrays(bytesOf(a), bytesOf(b)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('isWellFormedUtf16', () => {
  it.each([
    ['', true],
    ['plain ascii', true],
    ['\u00e9\u4e2d', true],
    ['\ud83d\ude00', true],
    ['a\ud800', false],
    ['\udc00b', false],
    ['\ud800\ud800', false],
    ['\ude00\ud83d', false],
  ])('%j -> %s', (s, expected) => expect(isWellFormedUtf16(s)).toBe(expected));

  it('agrees with a UTF-8 round trip (the oracle: only well-formed strings survive it)', () => {
    const unit = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (units) => {
        const s = String.fromCharCode(...units);
        expect(isWellFormedUtf16(s)).toBe(Buffer.from(s, 'utf8').toString('utf8') === s);
      }),
      { numRuns: 2000 },
    );
  });
});
