/**
 * The sensor frame's framing (src/codec/sensor-frame.ts): acks, CRC32 and COBS, and the COBS
 * splitter of a serial stream.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CobsSplitter,
  cobsDecode,
  cobsEncode,
  cobsFrame,
  crc32,
  decodeAck,
  decodeSensorFrame,
  encodeAck,
  encodeAckCobs,
  encodeSensorFrame,
  encodeSensorFrameCobs,
  verifySensorMac,
} from '../../src/codec/sensor-frame.js';
import { EXAMPLE, KEY, hex, kindOf, toHex, withCrc } from './sensor-frame-fixtures.js';

describe('acks', () => {
  it('writes the documented bytes (same as firmware-bridge/test/ack-test.c)', () => {
    expect(toHex(encodeAck('n1', 255, 3))).toBe('A4 00 02 01 62 6E 31 06 18 FF 07 03 E7 F7 B0 40');
    expect(decodeAck(encodeAck('n1', 255, 3))).toEqual({ deviceId: 'n1', boot: 3, seq: 255, signed: false });
    expect(decodeAck(encodeAck('x'.repeat(32), 0xffffffff, 0xffffffff))).toEqual({ deviceId: 'x'.repeat(32), boot: 0xffffffff, seq: 0xffffffff, signed: false });
    expect(encodeAck('x'.repeat(32), 0xffffffff, 0xffffffff)).toHaveLength(54);
    // a version 1 frame (boot 0) is answered with a version 1 ack
    expect(toHex(encodeAck('n1', 255, 0))).toBe('A3 00 01 01 62 6E 31 06 18 FF 4B 05 21 51');
    expect(decodeAck(encodeAck('n1', 255, 0))).toEqual({ deviceId: 'n1', boot: 0, seq: 255, signed: false });
    expect(decodeAck(encodeAck('n1', 0)).seq).toBe(0);
    expect(cobsDecode(encodeAckCobs('n1', 9).subarray(0, -1))).toEqual(encodeAck('n1', 9));
  });

  it('signs acks for keyed nodes: the MAC pair ends the map (same bytes as ack-test.c)', () => {
    const signed = encodeAck('n1', 255, 3, KEY);
    expect(toHex(signed)).toBe('A5 00 02 01 62 6E 31 06 18 FF 07 03 08 48 9B 93 15 F8 99 CA FD 7C 44 0C FC 47');
    expect(decodeAck(signed)).toEqual({ deviceId: 'n1', boot: 3, seq: 255, signed: true });
    expect(verifySensorMac(signed, KEY)).toBe(true);
    expect(verifySensorMac(signed, KEY.map((b) => b ^ 1))).toBe(false);
    expect(verifySensorMac(encodeAck('n1', 255, 3), KEY)).toBe(false);
    expect(encodeAck('x'.repeat(32), 0xffffffff, 0xffffffff, KEY)).toHaveLength(64); // MAX_SENSOR_ACK_BYTES exactly
    expect(kindOf(() => encodeAck('n1', 1, 0, KEY))).toBe('malformed'); // a version 1 ack has no MAC
    expect(kindOf(() => decodeAck(withCrc('A5 00 02 08 48 01 02 03 04 05 06 07 08 01 61 61 06 05 07 01')))).toBe('malformed'); // not last
  });

  it('refuses bad acks', () => {
    expect(kindOf(() => encodeAck('n 1', 1))).toBe('malformed');
    expect(kindOf(() => encodeAck('n1', -1))).toBe('malformed');
    expect(kindOf(() => encodeAck('n1', 2 ** 32))).toBe('malformed');
    expect(kindOf(() => decodeAck(withCrc('A4 00 03 01 61 61 06 05 07 01')))).toBe('version');
    expect(kindOf(() => decodeAck(withCrc('A3 00 02 01 61 61 06 05')))).toBe('malformed'); // v2 without boot
    expect(kindOf(() => decodeAck(withCrc('A3 00 01 01 61 61 02 05')))).toBe('malformed'); // a frame key
    expect(kindOf(() => decodeAck(withCrc('A4 00 01 01 61 61 06 05 07 01')))).toBe('malformed'); // v1 with a boot
    expect(kindOf(() => decodeAck(encodeSensorFrame({ ...EXAMPLE, fields: { s: 'v'.repeat(40) } })))).toBe('oversized');
    expect(kindOf(() => decodeAck(encodeSensorFrame({ deviceId: 'a', seq: 1, ts: 0, fields: {} })))).toBe('malformed');
    expect(decodeAck(withCrc('A3 06 05 01 61 61 00 01'))).toEqual({ deviceId: 'a', boot: 0, seq: 5, signed: false });
    expect(decodeAck(withCrc('A4 07 09 06 05 01 61 61 00 02'))).toEqual({ deviceId: 'a', boot: 9, seq: 5, signed: false });
    const good = encodeAck('node-7', 123456);
    for (let n = 0; n < good.length; n++) expect(kindOf(() => decodeAck(good.subarray(0, n)))).toBe('truncated');
  });
});

describe('CRC32 and COBS', () => {
  it('computes the catalogue CRC32 values', () => {
    const ascii = (s: string) => new TextEncoder().encode(s);
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926);
    expect(crc32(ascii('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(new Uint8Array(32))).toBe(0x190a55ad);
    expect(crc32(ascii('56789'), crc32(ascii('1234')))).toBe(0xcbf43926);
  });

  const seq = (from: number, n: number) => Array.from({ length: n }, (_, i) => ((from + i) & 0xff).toString(16)).join(' ');
  it.each([
    ['', '01'],
    ['00', '01 01'],
    ['00 00', '01 01 01'],
    ['00 11 00', '01 02 11 01'],
    ['11 22 00 33', '03 11 22 02 33'],
    ['11 22 33 44', '05 11 22 33 44'],
    ['11 00 00 00', '02 11 01 01 01'],
    [seq(1, 254), `FF ${seq(1, 254)}`],
    [`00 ${seq(1, 254)}`, `01 FF ${seq(1, 254)}`],
    [seq(1, 255), `FF ${seq(1, 254)} 02 FF`],
    [`${seq(2, 254)} 00`, `FF ${seq(2, 254)} 01 01`],
    [`${seq(3, 253)} 00 01`, `FE ${seq(3, 253)} 02 01`],
  ])('COBS %#', (raw, enc) => {
    expect(toHex(cobsEncode(hex(raw)))).toBe(toHex(hex(enc)));
    expect(toHex(cobsDecode(hex(enc)))).toBe(toHex(hex(raw)));
  });

  it('accepts the long form with a final 01 block and rejects broken COBS', () => {
    expect(cobsDecode(hex(`FF ${seq(1, 254)} 01`))).toEqual(hex(seq(1, 254)));
    expect(kindOf(() => cobsDecode(hex('05 11 22')))).toBe('truncated');
    expect(kindOf(() => cobsDecode(hex('03 11 00 22')))).toBe('malformed');
  });

  it('round-trips any bytes, including zero-heavy runs and long non-zero runs', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 700 }),
      fc.uint8Array({ maxLength: 700, max: 1 }),
      fc.tuple(fc.integer({ min: 250, max: 520 }), fc.nat(3)).map(([n, z]) => Uint8Array.from({ length: n }, (_, i) => (z && i % (250 + z) === 0 ? 0 : 1 + (i % 255)))),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        const enc = cobsEncode(b);
        expect(enc.includes(0)).toBe(false);
        expect(enc.length).toBeLessThanOrEqual(b.length + Math.floor(b.length / 254) + 1);
        expect(cobsDecode(enc)).toEqual(b);
      }),
      { numRuns: 500 },
    );
  });
});

describe('CobsSplitter', () => {
  it('splits a stream cut at arbitrary points back into its messages', () => {
    const msgs = fc.array(fc.uint8Array({ minLength: 1, maxLength: 520 }), { maxLength: 6 });
    fc.assert(
      fc.property(msgs, fc.array(fc.nat(4000), { maxLength: 8 }), (ms, cuts) => {
        const stream = Uint8Array.from(ms.flatMap((m) => [0, ...cobsFrame(m)]));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const s = new CobsSplitter(520);
        const got: Uint8Array[] = [];
        let at = 0;
        for (const p of [...points, stream.length]) {
          for (const out of s.push(stream.subarray(at, p))) {
            if (!out.ok) throw out.error;
            got.push(out.frame);
          }
          at = p;
        }
        expect(got).toEqual(ms);
        expect(s.buffered).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('drops an over-long message once, keeps its memory bounded, and recovers', () => {
    const s = new CobsSplitter();
    const frame = encodeSensorFrameCobs(EXAMPLE);
    const noise = new Uint8Array(100_000).fill(0x55);
    const out = [...s.push(noise), ...s.push(noise)];
    expect(out.map((o) => (o.ok ? 'frame' : o.error.kind))).toEqual(['oversized']);
    expect(s.buffered).toBe(0);
    const after = [...s.push(Uint8Array.of(0)), ...s.push(frame)];
    expect(after).toHaveLength(1);
    expect(after[0]!.ok && decodeSensorFrame(after[0]!.frame)).toEqual(EXAMPLE);
  });

  it('reports a decoded message over the limit as oversized and broken COBS as truncated', () => {
    const s = new CobsSplitter(8);
    const out = s.push(Uint8Array.of(...cobsFrame(new Uint8Array(9).fill(0)), 0x05, 0x11, 0x00, ...cobsFrame(Uint8Array.of(1, 2))));
    expect(out.map((o) => (o.ok ? toHex(o.frame) : o.error.kind))).toEqual(['oversized', 'truncated', '01 02']);
  });

  it('ignores empty messages and keeps partial ones across pushes until reset', () => {
    const s = new CobsSplitter();
    expect(s.push(Uint8Array.of(0, 0, 0))).toEqual([]);
    expect(s.push(Uint8Array.of(0x03, 0x11))).toEqual([]);
    expect(s.buffered).toBe(2);
    s.reset();
    expect(s.push(Uint8Array.of(0x02, 0x22, 0x00))).toEqual([{ ok: true, frame: Uint8Array.of(0x22) }]);
  });
});
