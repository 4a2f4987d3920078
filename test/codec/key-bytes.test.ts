import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../../src/model/attribute-value.js';
import {
  compareBytes,
  encodeKey,
  encodeKeyValue,
  keyValueEnd,
  maxKeyValueBytes,
  readKeyValue,
  writeKeyValue,
} from '../../src/codec/key-bytes.js';
import { anyCanonicalNumber, compareNumbers } from './number-oracle.js';

const RUNS = 10_000;
const sign = (n: number): number => (n > 0 ? 1 : n < 0 ? -1 : 0);
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Full Unicode, weighted toward the ranges where UTF-16 and UTF-8 orders disagree. */
const codePoint = fc.oneof(
  fc.integer({ min: 0x00, max: 0x7f }),
  fc.integer({ min: 0x80, max: 0x7ff }),
  fc.integer({ min: 0x800, max: 0xd7ff }),
  fc.integer({ min: 0xe000, max: 0xffff }),
  fc.integer({ min: 0x10000, max: 0x10ffff }),
  fc.constantFrom(0x00, 0x01, 0xff, 0xfffd, 0xffff, 0x10000),
);
const stringKey = fc.array(codePoint, { maxLength: 12 }).map((cps) => String.fromCodePoint(...cps));
const binaryKey = fc.uint8Array({ maxLength: 12 }).chain((b) =>
  // Zero and 0xFF bytes are where escaping could go wrong: make them common.
  fc.array(fc.constantFrom(0x00, 0x01, 0xfe, 0xff), { maxLength: 4 }).map((extra) => Uint8Array.from([...b, ...extra])),
);

const compareUtf8 = (a: string, b: string): number => compareBytes(utf8(a), utf8(b));
const oracle = (a: KeyValue, b: KeyValue): number => {
  if ('S' in a && 'S' in b) return compareUtf8(a.S, b.S);
  if ('N' in a && 'N' in b) return compareNumbers(a.N, b.N);
  if ('B' in a && 'B' in b) return compareBytes(a.B, b.B);
  throw new TypeError('mixed types');
};

const typed = {
  S: stringKey.map((S): KeyValue => ({ S })),
  N: anyCanonicalNumber.map((N): KeyValue => ({ N })),
  B: binaryKey.map((B): KeyValue => ({ B })),
} as const;
const types = ['S', 'N', 'B'] as const;

describe('key bytes: table', () => {
  it.each<[string, KeyValue, string]>([
    ['empty string', { S: '' }, '0001'],
    ['ASCII', { S: 'ab' }, '61620001'],
    ['NUL escaped', { S: 'a\u0000' }, '6100ff0001'],
    ['astral as 4-byte UTF-8', { S: '\u{1F600}' }, 'f09f98800001'],
    ['lone surrogate as U+FFFD', { S: '\ud800' }, 'efbfbd0001'],
    ['binary with zeros', { B: Uint8Array.from([0, 1, 0xff]) }, '00ff01ff0001'],
    ['zero', { N: '0' }, '02'],
    ['one', { N: '1' }, '034102'],
    ['minus one', { N: '-1' }, '01befd'],
    ['21.5', { N: '21.5' }, '03412b64'],
    ['1200', { N: '1200' }, '034218'],
    ['0.0001', { N: '0.0001' }, '033f02'],
    ['13-digit timestamp', { N: '1700000000000' }, '0347038c'],
    ['1E125', { N: '1' + '0'.repeat(125) }, '037f14'],
    ['1E-130', { N: '0.' + '0'.repeat(129) + '1' }, '030002'],
  ])('%s', (_name, value, expected) => {
    const bytes = encodeKeyValue(value);
    expect(hex(bytes)).toBe(expected);
    expect(bytes.length).toBeLessThanOrEqual(maxKeyValueBytes(value));
    const type = 'S' in value ? 'S' : 'N' in value ? 'N' : 'B';
    const decoded = readKeyValue(type, bytes, 0);
    expect(decoded.end).toBe(bytes.length);
    if ('S' in value && value.S === '\ud800') expect(decoded.value).toEqual({ S: '\ufffd' });
    else expect(decoded.value).toEqual(value);
  });

  it('orders a sorted list of numbers', () => {
    const sorted = [
      '-' + '9'.repeat(38) + '0'.repeat(88), '-1' + '0'.repeat(125), '-100', '-99.5', '-10', '-1.5', '-1',
      '-0.1', '-0.000001', '-0.' + '0'.repeat(129) + '1', '0', '0.' + '0'.repeat(129) + '1', '0.01', '0.1',
      '0.10000000000000000000000000000000000001', '0.5', '1', '1.0000000000000000000000000000000000001', '1.1',
      '9', '10', '10.5', '11', '99', '100', '101', '1000', '1700000000000', '1700000000001', '1' + '0'.repeat(125),
      '9'.repeat(38) + '0'.repeat(88),
    ];
    const encoded = sorted.map((N) => encodeKeyValue({ N }));
    for (let i = 1; i < encoded.length; i++) {
      expect(compareBytes(encoded[i - 1]!, encoded[i]!), `${sorted[i - 1]} < ${sorted[i]}`).toBe(-1);
    }
  });

  it('orders strings by UTF-8 bytes, not UTF-16 units', () => {
    // U+FFFF is one UTF-16 unit above U+D83D (a high surrogate) but its UTF-8 bytes sort below.
    const bmp = encodeKeyValue({ S: '\uffff' });
    const astral = encodeKeyValue({ S: '\u{1F600}' });
    expect('\uffff' > '\u{1F600}').toBe(true);
    expect(compareBytes(bmp, astral)).toBe(-1);
    expect(compareBytes(encodeKeyValue({ S: 'ab' }), encodeKeyValue({ S: 'abc' }))).toBe(-1);
    expect(compareBytes(encodeKeyValue({ S: 'a' }), encodeKeyValue({ S: 'a\u0000' }))).toBe(-1);
    expect(compareBytes(encodeKeyValue({ S: 'a\u0000' }), encodeKeyValue({ S: 'a\u0001' }))).toBe(-1);
  });

  it('writes at an offset, returns the end, and leaves other bytes alone', () => {
    const target = new Uint8Array(64).fill(0xaa);
    const end = writeKeyValue({ N: '-21.5' }, target, 5);
    expect(hex(target.subarray(5, end))).toBe('01bed49b');
    expect(target[4]).toBe(0xaa);
    expect(target[end]).toBe(0xaa);
  });

  it('decodes binary as a copy that outlives the source buffer', () => {
    const bytes = encodeKeyValue({ B: Uint8Array.from([1, 2, 3]) });
    const { value } = readKeyValue('B', bytes, 0);
    bytes.fill(0);
    expect(value).toEqual({ B: Uint8Array.from([1, 2, 3]) });
  });

  it('rejects malformed bytes', () => {
    expect(() => readKeyValue('S', Uint8Array.from([0x61, 0x00]), 0)).toThrow(RangeError);
    expect(() => readKeyValue('B', Uint8Array.from([0x00, 0x05, 0x00, 0x01]), 0)).toThrow(RangeError);
    expect(() => readKeyValue('N', Uint8Array.from([0x07]), 0)).toThrow(RangeError);
    expect(() => readKeyValue('N', Uint8Array.from([0x03, 0x41, 0x03]), 0)).toThrow(RangeError);
  });

  it('compareBytes is unsigned and puts a prefix first', () => {
    expect(compareBytes(Uint8Array.from([0x7f]), Uint8Array.from([0x80]))).toBe(-1);
    expect(compareBytes(Uint8Array.from([1, 2]), Uint8Array.from([1, 2, 0]))).toBe(-1);
    expect(compareBytes(Uint8Array.from([1, 2]), Uint8Array.from([1, 2]))).toBe(0);
    expect(compareBytes(Uint8Array.from([2]), Uint8Array.from([1, 9]))).toBe(1);
  });
});

describe.each(types)('key bytes: properties of %s', (type) => {
  const value = typed[type];

  it('byte order equals DynamoDB order', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sign(compareBytes(encodeKeyValue(a), encodeKeyValue(b)))).toBe(sign(oracle(a, b)));
      }),
      { numRuns: RUNS },
    );
  });

  it('decodes back exactly, within maxKeyValueBytes', () => {
    fc.assert(
      fc.property(value, (v) => {
        const bytes = encodeKeyValue(v);
        expect(bytes.length).toBeLessThanOrEqual(maxKeyValueBytes(v));
        const decoded = readKeyValue(type, bytes, 0);
        expect(decoded.end).toBe(bytes.length);
        expect(decoded.value).toEqual(v);
      }),
      { numRuns: RUNS },
    );
  });

  it('keyValueEnd finds where a value ends without decoding it, whatever follows', () => {
    fc.assert(
      fc.property(value, fc.uint8Array({ maxLength: 8 }), (v, tail) => {
        const bytes = encodeKeyValue(v);
        const followed = Uint8Array.from([0xaa, ...bytes, ...tail]);
        expect(keyValueEnd(type, followed, 1)).toBe(1 + bytes.length);
      }),
      { numRuns: RUNS },
    );
  });

  it('no encoding is a proper prefix of another', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const x = encodeKeyValue(a);
        const y = encodeKeyValue(b);
        if (x.length < y.length) expect(hex(y.subarray(0, x.length))).not.toBe(hex(x));
        if (y.length < x.length) expect(hex(x.subarray(0, y.length))).not.toBe(hex(y));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('key bytes: composite keys', () => {
  const pair = <A, B>(a: fc.Arbitrary<A>, b: fc.Arbitrary<B>) => fc.tuple(a, b);

  it.each([
    ['S', 'N'],
    ['N', 'S'],
    ['B', 'S'],
    ['S', 'B'],
    ['N', 'N'],
  ] as const)('enc(pk) + enc(sk) orders by pk, then sk (%s, %s)', (pkType, skType) => {
    const key = pair(typed[pkType], typed[skType]);
    fc.assert(
      fc.property(key, key, ([pk1, sk1], [pk2, sk2]) => {
        const expected = sign(oracle(pk1, pk2)) || sign(oracle(sk1, sk2));
        const x = encodeKey([pk1, sk1]);
        const y = encodeKey([pk2, sk2]);
        expect(sign(compareBytes(x, y))).toBe(expected);
        const first = readKeyValue(pkType, x, 0);
        const second = readKeyValue(skType, x, first.end);
        expect([first.value, second.value, second.end]).toEqual([pk1, sk1, x.length]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('key bytes: zero-copy sources', () => {
  it('decodes B from a Buffer as a copy, not a view', () => {
    const source = Buffer.from(encodeKeyValue({ B: Uint8Array.from([7, 0, 9]) }));
    const { value } = readKeyValue('B', source, 0);
    source.fill(0xee);
    expect(value).toEqual({ B: Uint8Array.from([7, 0, 9]) });
    const plain = readKeyValue('B', Buffer.from(encodeKeyValue({ B: Uint8Array.from([5]) })), 0).value;
    expect('B' in plain && Object.getPrototypeOf(plain.B)).toBe(Uint8Array.prototype);
  });
});
