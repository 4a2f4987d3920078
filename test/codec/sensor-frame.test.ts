import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CobsSplitter,
  FrameError,
  cobsDecode,
  decodeAck,
  decodeSensorFrame,
  encodeSensorFrame,
  verifySensorMac,
} from '../../src/codec/sensor-frame.js';
import { createHmac } from 'node:crypto';
import { MAX_SENSOR_COBS_FRAME_BYTES, MAX_SENSOR_FRAME_BYTES } from '../../src/model/limits.js';

import { EXAMPLE, KEY, hex, kindOf, toHex, withCrc } from './sensor-frame-fixtures.js';

// The worked example of docs/sensor-frame.md; the C tests (firmware-bridge/test/frame-test.c) hold the same bytes.
const EXAMPLE_HEX =
  'A7 00 02 01 62 6E 31 02 07 03 1B 00 00 01 8B CF E5 68 00 04 A5 61 74 FA 41 AC 00 00 61 68 22 61 73 62 6F 6B ' +
  '63 62 69 67 1A 00 01 86 A0 62 70 69 FB 40 09 21 FB 54 44 2D 18 05 05 07 01 74 82 EB 29';
/** The same reading from a node on the version 1 library (no boot id). */
const EXAMPLE_V1_HEX =
  'A6 00 01 01 62 6E 31 02 07 03 1B 00 00 01 8B CF E5 68 00 04 A5 61 74 FA 41 AC 00 00 61 68 22 61 73 62 6F 6B ' +
  '63 62 69 67 1A 00 01 86 A0 62 70 69 FB 40 09 21 FB 54 44 2D 18 05 05 1F FE 76 58';
/** Keyed with 00 01 .. 0F: the MAC pair 08 48 <8 bytes> ends the map (frame-test.c holds the same bytes). */
const EXAMPLE_MAC_HEX =
  'A8 00 02 01 62 6E 31 02 07 03 1B 00 00 01 8B CF E5 68 00 04 A5 61 74 FA 41 AC 00 00 61 68 22 61 73 62 6F 6B ' +
  '63 62 69 67 1A 00 01 86 A0 62 70 69 FB 40 09 21 FB 54 44 2D 18 05 05 07 01 08 48 60 0E B2 8B 92 E2 A8 99 D8 82 EA 8B';
/** A frame with `fieldsHex` (CBOR of the fields map) inside an otherwise valid frame. */
const frameWithFields = (fieldsHex: string): Uint8Array => withCrc(`A7 00 02 01 61 61 02 01 03 00 04 ${fieldsHex} 05 01 07 01`);

describe('encodeSensorFrame / decodeSensorFrame', () => {
  it('writes the documented bytes and reads them back', () => {
    const bytes = encodeSensorFrame(EXAMPLE);
    expect(toHex(bytes)).toBe(EXAMPLE_HEX);
    expect(decodeSensorFrame(bytes)).toEqual(EXAMPLE);
  });

  it('defaults base to seq and boot to 1, and accepts a frame without fields', () => {
    const bytes = encodeSensorFrame({ deviceId: 'a', seq: 1, ts: 0, fields: {} });
    expect(toHex(bytes.subarray(0, 16))).toBe('A7 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 01');
    expect(decodeSensorFrame(bytes)).toEqual({ deviceId: 'a', boot: 1, seq: 1, base: 1, ts: 0, fields: {}, signed: false });
  });

  it('carries the boot id (key 7, 1..2^32-1) after base', () => {
    const bytes = encodeSensorFrame({ deviceId: 'a', boot: 0xffffffff, seq: 1, ts: 0, fields: {} });
    expect(toHex(bytes.subarray(0, 20))).toBe('A7 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 1A FF FF FF FF');
    expect(decodeSensorFrame(bytes).boot).toBe(0xffffffff);
    expect(kindOf(() => encodeSensorFrame({ deviceId: 'a', boot: 2 ** 32, seq: 1, ts: 0, fields: {} }))).toBe('malformed');
    expect(kindOf(() => decodeSensorFrame(withCrc('A7 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 00')))).toBe('malformed'); // boot 0
    expect(kindOf(() => decodeSensorFrame(withCrc('A6 00 02 01 61 61 02 01 03 00 04 A0 05 01')))).toBe('malformed'); // v2 without boot
    expect(kindOf(() => decodeSensorFrame(withCrc('A7 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 20')))).toBe('malformed'); // negative
  });

  it('still decodes version 1 frames, as boot 0 (and writes them for boot 0)', () => {
    const v1 = encodeSensorFrame({ ...EXAMPLE, boot: 0 });
    expect(toHex(v1)).toBe(EXAMPLE_V1_HEX);
    expect(decodeSensorFrame(v1)).toEqual({ ...EXAMPLE, boot: 0 });
    // version 1 has no keys 7 and 8
    expect(kindOf(() => decodeSensorFrame(withCrc('A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 07 01')))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...EXAMPLE, boot: 0 }, { key: KEY }))).toBe('malformed');
  });

  it.each([
    [0, '00'],
    [-0, '00'],
    [23, '17'],
    [24, '18 18'],
    [-1, '20'],
    [-25, '38 18'],
    [21.5, 'FA 41 AC 00 00'],
    [-0.25, 'FA BE 80 00 00'],
    [0.1, 'FB 3F B9 99 99 99 99 99 9A'],
    [1e300, 'FB 7E 37 E4 3C 88 00 75 9C'],
    [Number.MAX_SAFE_INTEGER, '1B 00 1F FF FF FF FF FF FF'],
    [-Number.MAX_SAFE_INTEGER, '3B 00 1F FF FF FF FF FF FE'],
    [2 ** 53, 'FA 5A 00 00 00'],
    [2 ** 32, '1B 00 00 00 01 00 00 00 00'],
    [65535, '19 FF FF'],
    [65536, '1A 00 01 00 00'],
  ])('writes %s canonically as %s (as the C library does)', (v, want) => {
    const bytes = encodeSensorFrame({ deviceId: 'd', seq: 1, ts: 0, fields: { x: v } });
    // A7 00 02 01 61 64 02 01 03 00 04 A1 61 78 <value> 05 01 07 01 crc
    expect(toHex(bytes.subarray(14, bytes.length - 8))).toBe(want);
    expect(decodeSensorFrame(bytes).fields['x']).toBe(v === 0 ? 0 : v);
  });

  it('reads every valid encoding of a number, not only the canonical one', () => {
    expect(decodeSensorFrame(frameWithFields('A1 61 78 F9 3C 00')).fields['x']).toBe(1); // float16
    expect(decodeSensorFrame(frameWithFields('A1 61 78 F9 80 01')).fields['x']).toBe(-(2 ** -24)); // subnormal
    expect(decodeSensorFrame(frameWithFields('A1 61 78 1B 00 00 00 00 00 00 00 05')).fields['x']).toBe(5);
    expect(decodeSensorFrame(frameWithFields('A1 61 78 FA 41 A8 00 00')).fields['x']).toBe(21);
  });

  it('keeps "__proto__" as an ordinary own field', () => {
    const bytes = encodeSensorFrame({ deviceId: 'd', seq: 1, ts: 0, fields: JSON.parse('{"__proto__": 5, "constructor": "x"}') });
    const f = decodeSensorFrame(bytes);
    expect(Object.keys(f.fields)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(f.fields)).toBe(Object.prototype);
    expect(f.fields['__proto__']).toBe(5);
  });

  it('round-trips arbitrary valid frames', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,31}$/);
    const value = fc.oneof(
      fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ maxLength: 30, unit: 'grapheme' }),
    );
    const frame = fc.record({
      deviceId: fc.stringMatching(/^[A-Za-z0-9._:-]{1,32}$/),
      boot: fc.integer({ min: 0, max: 0xffffffff }),
      seq: fc.integer({ min: 1, max: 0xffffffff }),
      ts: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      fields: fc.dictionary(name, value, { maxKeys: 8 }),
    });
    fc.assert(
      fc.property(frame, fc.nat(), (f, b) => {
        const base = 1 + (b % f.seq);
        const bytes = encodeSensorFrame({ ...f, base });
        const back = decodeSensorFrame(bytes);
        const want = Object.fromEntries(Object.entries(f.fields).map(([k, v]) => [k, Object.is(v, -0) ? 0 : v]));
        expect(back).toEqual({ ...f, base, fields: want, signed: false });
        expect(encodeSensorFrame(back)).toEqual(bytes); // canonical: decode then encode is the identity
      }),
      { numRuns: 300 },
    );
  });

  it('refuses to encode what the grammar forbids', () => {
    const ok = { deviceId: 'd', seq: 1, ts: 0, fields: {} };
    expect(kindOf(() => encodeSensorFrame({ ...ok, deviceId: 'a/b' }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, deviceId: 'x'.repeat(33) }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, seq: 0 }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, seq: 2 ** 32 }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, seq: 3, base: 4 }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, ts: -1 }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, ts: 2 ** 53 }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: { '9x': 1 } }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: { x: NaN } }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: { x: Infinity } }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: { x: '\uD800' } }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: { x: 'v'.repeat(129) } }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: { x: 'v'.repeat(128) } }))).toBe('ok');
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}`, i]));
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: many }))).toBe('malformed');
    const big = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`s${i}`, 'v'.repeat(128)]));
    expect(kindOf(() => encodeSensorFrame({ ...ok, fields: big }))).toBe('oversized');
  });

  it('builds a frame of exactly the maximum size and refuses one byte more', () => {
    const fields = { s0: 'v'.repeat(128), s1: 'v'.repeat(128), s2: 'v'.repeat(128), z: 'w'.repeat(88) };
    expect(encodeSensorFrame({ deviceId: 'ok', seq: 1, ts: 0, fields })).toHaveLength(MAX_SENSOR_FRAME_BYTES);
    expect(kindOf(() => encodeSensorFrame({ deviceId: 'ok', seq: 1, ts: 0, fields: { ...fields, z: 'w'.repeat(89) } }))).toBe('oversized');
    // a MAC takes 10 bytes (frame-test.c: the same limits)
    const keyed = { s0: fields.s0, s1: fields.s1, s2: fields.s2, zz: 'w'.repeat(77) };
    expect(encodeSensorFrame({ deviceId: 'ok', seq: 1, ts: 0, fields: keyed }, { key: KEY })).toHaveLength(MAX_SENSOR_FRAME_BYTES);
    expect(kindOf(() => encodeSensorFrame({ deviceId: 'ok', seq: 1, ts: 0, fields: { ...keyed, zz: 'w'.repeat(78) } }, { key: KEY }))).toBe('oversized');
  });
});

describe('the frame MAC', () => {
  it('is HMAC-SHA256 of the map bytes before its pair, truncated to 8 bytes (as Node computes it)', () => {
    const bytes = encodeSensorFrame(EXAMPLE, { key: KEY });
    expect(toHex(bytes)).toBe(EXAMPLE_MAC_HEX);
    const covered = hex(EXAMPLE_HEX).subarray(0, -4);
    covered[0] = 0xa8; // one more pair
    const tag = createHmac('sha256', KEY).update(covered).digest().subarray(0, 8);
    expect(toHex(bytes.subarray(bytes.length - 12, bytes.length - 4))).toBe(toHex(tag));
    expect(decodeSensorFrame(bytes)).toEqual({ ...EXAMPLE, signed: true });
    expect(verifySensorMac(bytes, KEY)).toBe(true);
  });

  it('fails for another key, a changed byte behind a fixed CRC, or no MAC', () => {
    const bytes = encodeSensorFrame(EXAMPLE, { key: KEY });
    const other = KEY.slice();
    other[15]! ^= 1;
    expect(verifySensorMac(bytes, other)).toBe(false);
    expect(verifySensorMac(encodeSensorFrame(EXAMPLE), KEY)).toBe(false);
    // an attacker who changes a reading and fixes the CRC still cannot fix the MAC
    for (let i = 1; i < bytes.length - 14; i++) {
      const body = bytes.slice(0, -4);
      body[i]! ^= 0x01;
      const forged = withCrc(toHex(body));
      let decoded = false;
      try {
        decoded = decodeSensorFrame(forged).signed;
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
      }
      if (decoded) expect(verifySensorMac(forged, KEY)).toBe(false);
    }
    // a replay of the same bytes verifies: replays are the dedup state's job (docs/bridge.md)
    expect(verifySensorMac(bytes.slice(), KEY)).toBe(true);
  });

  it('must be the last pair and a byte string of 8 bytes', () => {
    const tag = '48 01 02 03 04 05 06 07 08';
    expect(kindOf(() => decodeSensorFrame(withCrc(`A8 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 01 08 ${tag}`)))).toBe('ok');
    expect(kindOf(() => decodeSensorFrame(withCrc(`A8 00 02 01 61 61 02 01 03 00 04 A0 08 ${tag} 05 01 07 01`)))).toBe('malformed');
    expect(kindOf(() => decodeSensorFrame(withCrc('A8 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 01 08 44 01 02 03 04')))).toBe('malformed');
    expect(kindOf(() => decodeSensorFrame(withCrc('A8 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 01 08 58 08 01 02 03 04 05 06 07 08')))).toBe('malformed');
    expect(kindOf(() => decodeSensorFrame(withCrc(`A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 08 ${tag}`)))).toBe('malformed'); // v1: no MAC
    expect(kindOf(() => encodeSensorFrame(EXAMPLE, { key: KEY.subarray(0, 15) }))).toBe('malformed');
    expect(kindOf(() => encodeSensorFrame(EXAMPLE, { key: new Uint8Array(33) }))).toBe('malformed');
  });
});

describe('decodeSensorFrame refuses bad frames with the right kind', () => {
  it.each([
    ['version 3', 'A7 00 03 01 61 61 02 01 03 00 04 A0 05 01 07 01', 'version'],
    ['version 3 with a reshaped map', 'A2 00 03 07 00', 'version'],
    ['version 0', 'A6 00 00 01 61 61 02 01 03 00 04 A0 05 01', 'version'],
    ['version as text', 'A6 00 61 31 01 61 61 02 01 03 00 04 A0 05 01', 'malformed'],
    ['no version', 'A5 01 61 61 02 01 03 00 04 A0 05 01', 'malformed'],
    ['no base', 'A5 00 01 01 61 61 02 01 03 00 04 A0', 'malformed'],
    ['unknown key 7', 'A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 07 00', 'malformed'],
    ['the ack key 6', 'A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 06 00', 'malformed'],
    ['duplicate key', 'A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 02 01', 'malformed'],
    ['text key', 'A6 00 01 61 64 61 61 02 01 03 00 04 A0 05 01', 'malformed'],
    ['indefinite map', 'BF 00 01 01 61 61 02 01 03 00 04 A0 05 01 FF', 'malformed'],
    ['an array', '86 00 01 02 03 04 05', 'malformed'],
    ['bytes after the map', 'A6 00 01 01 61 61 02 01 03 00 04 A0 05 01 00', 'malformed'],
    ['seq 0', 'A6 00 01 01 61 61 02 00 03 00 04 A0 05 01', 'malformed'],
    ['seq 2^32', 'A6 00 01 01 61 61 02 1B 00 00 00 01 00 00 00 00 03 00 04 A0 05 01', 'malformed'],
    ['base above seq', 'A6 00 01 01 61 61 02 01 03 00 04 A0 05 02', 'malformed'],
    ['base 0', 'A6 00 01 01 61 61 02 01 03 00 04 A0 05 00', 'malformed'],
    ['ts 2^53', 'A6 00 01 01 61 61 02 01 03 1B 00 20 00 00 00 00 00 00 04 A0 05 01', 'malformed'],
    ['ts negative', 'A6 00 01 01 61 61 02 01 03 20 04 A0 05 01', 'malformed'],
    ['device with "/"', 'A6 00 01 01 61 2F 02 01 03 00 04 A0 05 01', 'malformed'],
    ['device empty', 'A6 00 01 01 60 02 01 03 00 04 A0 05 01', 'malformed'],
    ['device as bytes', 'A6 00 01 01 41 61 02 01 03 00 04 A0 05 01', 'malformed'],
    ['fields as array', 'A6 00 01 01 61 61 02 01 03 00 04 80 05 01', 'malformed'],
    ['tagged seq', 'A6 00 01 01 61 61 02 C1 01 03 00 04 A0 05 01', 'malformed'],
    ['nesting bomb in an extension', `A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 10 ${'81 '.repeat(20)}00`, 'malformed'],
    ['huge count in an extension', 'A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 10 9B FF FF FF FF FF FF FF FF', 'malformed'],
    ['reserved additional info', 'A6 00 01 01 61 61 02 1C 03 00 04 A0 05 01', 'malformed'],
  ])('%s', (_, cbor, kind) => {
    expect(kindOf(() => decodeSensorFrame(withCrc(cbor)))).toBe(kind);
  });

  it('skips extension keys >= 16', () => {
    const f = decodeSensorFrame(withCrc('A7 00 01 01 61 61 02 01 03 00 04 A0 05 01 10 82 01 A1 61 6B F6'));
    expect(f).toEqual({ deviceId: 'a', boot: 0, seq: 1, base: 1, ts: 0, fields: {}, signed: false });
    const g = decodeSensorFrame(withCrc('A8 00 02 01 61 61 02 01 03 00 04 A0 05 01 07 05 10 82 01 A1 61 6B F6'));
    expect(g).toEqual({ deviceId: 'a', boot: 5, seq: 1, base: 1, ts: 0, fields: {}, signed: false });
  });

  it.each([
    ['duplicate name', 'A2 61 78 01 61 78 02'],
    ['17 fields', `B1 ${Array.from({ length: 17 }, (_, i) => `62 66 ${(0x41 + i).toString(16)} 01`).join(' ')}`],
    ['name with "-"', 'A1 63 61 2D 62 01'],
    ['empty name', 'A1 60 01'],
    ['name of 33 bytes', `A1 78 21 ${'61 '.repeat(33)}01`],
    ['integer 2^53', 'A1 61 78 1B 00 20 00 00 00 00 00 00'],
    ['integer -2^53', 'A1 61 78 3B 00 1F FF FF FF FF FF FF'],
    ['integer -2^64', 'A1 61 78 3B FF FF FF FF FF FF FF FF'],
    ['NaN', 'A1 61 78 FA 7F C0 00 00'],
    ['Infinity', 'A1 61 78 F9 7C 00'],
    ['true', 'A1 61 78 F5'],
    ['null', 'A1 61 78 F6'],
    ['bytes', 'A1 61 78 41 00'],
    ['nested map', 'A1 61 78 A0'],
    ['string of 129 bytes', `A1 61 78 78 81 ${'61 '.repeat(129)}`],
    ['invalid UTF-8', 'A1 61 78 62 C0 AF'],
    ['lone surrogate as UTF-8', 'A1 61 78 63 ED A0 80'],
  ])('field: %s', (_, fields) => {
    expect(kindOf(() => decodeSensorFrame(frameWithFields(fields)))).toBe('malformed');
  });

  it('keeps a byte-order mark in a string value', () => {
    expect(decodeSensorFrame(frameWithFields('A1 61 78 64 EF BB BF 61')).fields['x']).toBe('\uFEFFa');
  });

  it('reports size, truncation and corruption', () => {
    const good = encodeSensorFrame(EXAMPLE);
    expect(kindOf(() => decodeSensorFrame(new Uint8Array(MAX_SENSOR_FRAME_BYTES + 1)))).toBe('oversized');
    expect(kindOf(() => decodeSensorFrame(new Uint8Array(0)))).toBe('truncated');
    for (let n = 0; n < good.length; n++) {
      expect(kindOf(() => decodeSensorFrame(good.subarray(0, n)))).toBe('truncated');
    }
    for (let i = 0; i < good.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        const bad = good.slice();
        bad[i]! ^= 1 << bit;
        expect(['crc', 'truncated']).toContain(kindOf(() => decodeSensorFrame(bad)));
      }
    }
    const flippedPayload = good.slice();
    flippedPayload[5]! ^= 0x01; // a device id byte: shape intact, so plainly a CRC error
    expect(kindOf(() => decodeSensorFrame(flippedPayload))).toBe('crc');
    expect(kindOf(() => decodeSensorFrame('not bytes' as unknown as Uint8Array))).toBe('malformed');
  });
});

describe('hostile input never throws anything but FrameError', () => {
  const onlyFrameErrors = (decode: (b: Uint8Array) => unknown) => (bytes: Uint8Array) => {
    try {
      decode(bytes);
    } catch (e) {
      if (!(e instanceof FrameError)) throw e;
    }
  };
  const validFrame = fc
    .record({
      deviceId: fc.stringMatching(/^[A-Za-z0-9._:-]{1,32}$/),
      seq: fc.integer({ min: 1, max: 0xffffffff }),
      ts: fc.nat(),
      fields: fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 10 })), { maxKeys: 5 }),
    })
    .map((f) => encodeSensorFrame(f));
  /** Mutated CBOR behind a recomputed CRC, so the grammar checks (not the CRC) face the mutation. */
  const recrc = (body: Uint8Array): Uint8Array => withCrc(toHex(body));

  it('random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 600 }), onlyFrameErrors(decodeSensorFrame)), { numRuns: 2000 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 80 }), onlyFrameErrors(decodeAck)), { numRuns: 2000 });
  });

  it('random bytes behind a valid CRC', () => {
    const body = fc.uint8Array({ minLength: 1, maxLength: 120 }).map((b) => {
      b[0] = 0xa0 | (b[0]! & 0x0f); // mostly a map head, to get past the first check
      return b;
    });
    fc.assert(fc.property(body, (b) => onlyFrameErrors(decodeSensorFrame)(recrc(b))), { numRuns: 3000 });
    fc.assert(fc.property(body, (b) => onlyFrameErrors(decodeAck)(recrc(b.subarray(0, 60)))), { numRuns: 2000 });
  });

  it('truncations, bit flips and byte changes of valid frames', () => {
    fc.assert(
      fc.property(validFrame, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 }), (f, i, j, v) => {
        onlyFrameErrors(decodeSensorFrame)(f.subarray(0, i % (f.length + 1)));
        const flipped = f.slice();
        flipped[i % f.length]! ^= 1 << (j % 8);
        expect(kindOf(() => decodeSensorFrame(flipped))).toMatch(/^(crc|truncated)$/);
        const body = f.slice(0, f.length - 4);
        body[i % body.length] = v;
        onlyFrameErrors(decodeSensorFrame)(recrc(body));
        onlyFrameErrors(decodeSensorFrame)(recrc(body.subarray(0, j % (body.length + 1))));
      }),
      { numRuns: 1000 },
    );
  });

  it('COBS decoding and splitting of random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1200 }), (b) => {
        onlyFrameErrors(cobsDecode)(b);
        const s = new CobsSplitter();
        for (const out of s.push(b)) if (!out.ok) expect(out.error).toBeInstanceOf(FrameError);
        expect(s.buffered).toBeLessThan(MAX_SENSOR_COBS_FRAME_BYTES);
      }),
      { numRuns: 1000 },
    );
  });
});
