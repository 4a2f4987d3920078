import farmhash from 'farmhash';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KeyValue } from '../../src/model/attribute-value.js';
import { fingerprint32 } from '../../src/codec/fingerprint32.js';
import { loadFingerprint32 } from '../../src/codec/partition-hash.js';

const native = (bytes: Uint8Array): number => farmhash.fingerprint32(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)) >>> 0;

describe('fingerprint32 (the portable FarmHash Fingerprint32)', () => {
  it('gives the published reference vectors of google/farmhash', () => {
    const reference: [string, number][] = [
      ['', 0xdc56d17a],
      ['a', 0x3c973d4d],
      ['abc', 0x2f635ec7],
      ['abcdefgh', 0xfd7ec8b9],
    ];
    for (const [input, expected] of reference) expect(fingerprint32(Buffer.from(input))).toBe(expected);
  });

  it('equals native farmhash at every length from 0 to 300 bytes (each code path and boundary)', () => {
    const bytes = new Uint8Array(300);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 151 + 7) & 0xff; // high bytes too: lengths 0-4 read signed chars
    for (let len = 0; len <= bytes.length; len++) expect(fingerprint32(bytes.subarray(0, len)), `length ${len}`).toBe(native(bytes.subarray(0, len)));
  });

  it('equals native farmhash on random inputs of 0 to 2,100 bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 30 }), fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 1000, maxLength: 2100 })), (bytes) => {
        expect(fingerprint32(bytes)).toBe(native(bytes));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads only its view of a larger buffer', () => {
    const backing = Uint8Array.from({ length: 64 }, (_, i) => i);
    const view = backing.subarray(5, 40);
    expect(fingerprint32(view)).toBe(native(Uint8Array.from(view)));
  });
});

describe('partition hash implementation choice (EDGETABLE_FARMHASH)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("'js' forces the portable function, unset or 'native' use the module, anything else is an error", () => {
    expect(loadFingerprint32('js')).toEqual({ implementation: 'js', fingerprint32 });
    expect(loadFingerprint32(undefined).implementation).toBe('native');
    expect(loadFingerprint32('native').implementation).toBe('native');
    expect(() => loadFingerprint32('fast')).toThrow(`EDGETABLE_FARMHASH is 'native' or 'js', not "fast"`);
  });

  it('falls back to the portable function where the native module does not load (farmhash on linux-arm)', () => {
    const unsupported = (): never => {
      throw new Error('Unsupported platform: linux-arm');
    };
    expect(loadFingerprint32(undefined, unsupported)).toEqual({ implementation: 'js', fingerprint32 });
    expect(() => loadFingerprint32('native', unsupported)).toThrow(/EDGETABLE_FARMHASH=native, but the farmhash module does not load/);
  });

  // The frozen golden values of partition-hash.test.ts, with the native module out of the picture.
  it.each<[string, KeyValue, number]>([
    ['S sensor-1', { S: 'sensor-1' }, 439874197],
    ['S empty', { S: '' }, 3468143913],
    ['S non-ASCII', { S: 'é😀' }, 3103024571],
    ['S 2048 bytes', { S: 'x'.repeat(2048) }, 3363407948],
    ['N -21.5', { N: '-21.5' }, 2087855568],
    ['N timestamp', { N: '1700000000000' }, 1113516554],
    ['B empty', { B: new Uint8Array(0) }, 2442398622],
    ['B bytes', { B: Uint8Array.from([0, 1, 2, 255]) }, 2559538386],
  ])('with EDGETABLE_FARMHASH=js, partitionHash keeps its golden value: %s', async (_name, value, expected) => {
    vi.stubEnv('EDGETABLE_FARMHASH', 'js');
    vi.resetModules();
    const forced = await import('../../src/codec/partition-hash.js');
    expect(forced.HASH_IMPLEMENTATION).toBe('js');
    expect(forced.partitionHash(value)).toBe(expected);
  });
});
