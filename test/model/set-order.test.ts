import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../src/model/number.js';
import { SET_ORDER, hasDuplicates, sortMembers, uniqueSorted } from '../../src/model/set-order.js';

/** Oracles: Buffer.compare over UTF-8 encodings and raw bytes; Number() for small decimals. */
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const byBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('SET_ORDER: the order DynamoDB returns set members in', () => {
  it.each<[string, string[], string[]]>([
    ['the empty string first', ['a', ''], ['', 'a']],
    ['bytewise, so upper case first', ['b', 'a', 'B'], ['B', 'a', 'b']],
    ['by UTF-8 bytes, not UTF-16 units: U+FFFD before U+1F600', ['\u{1F600}', '\uFFFD'], ['\uFFFD', '\u{1F600}']],
    ['a prefix first', ['ab', 'a'], ['a', 'ab']],
  ])('SS: %s', (_name, members, expected) => {
    expect(sortMembers(members, SET_ORDER.SS)).toEqual(expected);
  });

  it('NS by value, not by text', () => {
    expect(sortMembers(['10', '9', '-1', '0.5', '-20'], SET_ORDER.NS)).toEqual(['-20', '-1', '0.5', '9', '10']);
  });

  it('BS by unsigned bytes, the empty member first', () => {
    const sorted = sortMembers([Uint8Array.of(0xff), Uint8Array.of(0), new Uint8Array(0), Uint8Array.of(0, 1)], SET_ORDER.BS);
    expect(sorted.map((b) => [...b])).toEqual([[], [0], [0, 1], [0xff]]);
  });

  it('SS agrees with sorting the UTF-8 encodings', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 12 }), (members) => {
        const expected = members.slice().sort((a, b) => Buffer.compare(utf8(a), utf8(b)));
        expect(sortMembers(members, SET_ORDER.SS)).toEqual(expected);
      }),
    );
  });

  it('NS agrees with sorting by numeric value', () => {
    const member = fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 0, max: 6 })).map(([m, e]) => parseNumber(`${m}e-${e}`));
    fc.assert(
      fc.property(fc.array(member, { maxLength: 12 }), (members) => {
        const expected = members.slice().sort((a, b) => Number(a) - Number(b));
        expect(sortMembers(members, SET_ORDER.NS).map(Number)).toEqual(expected.map(Number));
      }),
    );
  });

  it('BS agrees with Buffer.compare', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 4 }), { maxLength: 12 }), (members) => {
        expect(sortMembers(members, SET_ORDER.BS).map((b) => [...b])).toEqual(members.slice().sort(byBytes).map((b) => [...b]));
      }),
    );
  });
});

describe('sortMembers, hasDuplicates, uniqueSorted', () => {
  it('returns members already in order as they are, and never sorts the given array', () => {
    const sorted = ['a', 'b'];
    expect(sortMembers(sorted, SET_ORDER.SS)).toBe(sorted);
    const unsorted = ['b', 'a'];
    expect(sortMembers(unsorted, SET_ORDER.SS)).toEqual(['a', 'b']);
    expect(unsorted).toEqual(['b', 'a']);
  });

  it('finds duplicates only next to each other in sorted members', () => {
    expect(hasDuplicates(['a', 'a', 'b'], SET_ORDER.SS)).toBe(true);
    expect(hasDuplicates(['a', 'b'], SET_ORDER.SS)).toBe(false);
    expect(hasDuplicates([Uint8Array.of(1), Uint8Array.of(1)], SET_ORDER.BS)).toBe(true);
  });

  it('uniqueSorted is the sorted union', () => {
    expect(uniqueSorted(['c', 'a', 'b', 'a', 'c'], SET_ORDER.SS)).toEqual(['a', 'b', 'c']);
    expect(uniqueSorted(['2', '10', '2'], SET_ORDER.NS)).toEqual(['2', '10']);
  });
});
