import farmhash from 'farmhash';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../../src/model/attribute-value.js';
import { partitionHash, readHash, writeHash } from '../../src/codec/partition-hash.js';

describe('partitionHash', () => {
  it('uses FarmHash Fingerprint32 as specified (reference vectors of google/farmhash)', () => {
    // Published 32-bit vectors, also reproduced by independent ports (e.g. dgryski/go-farm).
    const reference: [string, number][] = [
      ['', 0xdc56d17a],
      ['a', 0x3c973d4d],
      ['abc', 0x2f635ec7],
      ['abcdefgh', 0xfd7ec8b9],
    ];
    for (const [input, expected] of reference) expect(farmhash.fingerprint32(Buffer.from(input)) >>> 0).toBe(expected);
  });

  // Golden values: frozen. A change here moves every item to another partition and breaks the hub.
  it.each<[string, KeyValue, number]>([
    ['S sensor-1', { S: 'sensor-1' }, 439874197],
    ['S empty', { S: '' }, 3468143913],
    ['S non-ASCII', { S: 'é😀' }, 3103024571],
    ['S "1"', { S: '1' }, 1527208442],
    ['S 2048 bytes', { S: 'x'.repeat(2048) }, 3363407948],
    ['N 0', { N: '0' }, 3529439565],
    ['N 1', { N: '1' }, 4056136081],
    ['N -21.5', { N: '-21.5' }, 2087855568],
    ['N timestamp', { N: '1700000000000' }, 1113516554],
    ['B empty', { B: new Uint8Array(0) }, 2442398622],
    ['B bytes', { B: Uint8Array.from([0, 1, 2, 255]) }, 2559538386],
  ])('golden: %s', (_name, value, expected) => {
    expect(partitionHash(value)).toBe(expected);
  });

  it('is fingerprint32 of the type tag followed by the value bytes', () => {
    expect(partitionHash({ S: 'abc' })).toBe(farmhash.fingerprint32(Buffer.from('Sabc')) >>> 0);
    expect(partitionHash({ N: '-1.5' })).toBe(farmhash.fingerprint32(Buffer.from('N-1.5')) >>> 0);
    expect(partitionHash({ B: Uint8Array.from([1, 2]) })).toBe(farmhash.fingerprint32(Buffer.from([0x42, 1, 2])) >>> 0);
  });

  it('handles values larger than the scratch buffer', () => {
    const big = 'é'.repeat(5000);
    expect(partitionHash({ S: big })).toBe(farmhash.fingerprint32(Buffer.from('S' + big)) >>> 0);
    expect(partitionHash({ S: 'sensor-1' })).toBe(439874197);
  });

  it('returns an unsigned 32-bit integer that round-trips through writeHash big-endian', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const h = partitionHash({ S: s });
        expect(Number.isInteger(h) && h >= 0 && h <= 0xffffffff).toBe(true);
        const target = new Uint8Array(6);
        expect(writeHash(h, target, 1)).toBe(5);
        expect(readHash(target, 1)).toBe(h);
        expect(target[1]).toBe(h >>> 24);
        expect(target[4]).toBe(h & 0xff);
      }),
      { numRuns: 2000 },
    );
  });
});
