/**
 * Shared by the sensor-frame tests (sensor-frame.test.ts, sensor-frame-framing.test.ts): hex
 * helpers, a CRC for hand-written CBOR, the kind of a FrameError, the MAC key and the worked
 * example frame.
 */
import { FrameError, crc32, type SensorFrame } from '../../src/codec/sensor-frame.js';

export const hex = (s: string): Uint8Array => Uint8Array.from(s.split(/\s+/).filter(Boolean).map((b) => parseInt(b, 16)));
export const toHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).toUpperCase().padStart(2, '0')).join(' ');

/** Appends the CRC to hand-written CBOR, so a test reaches the checks behind the CRC. */
export function withCrc(cborHex: string): Uint8Array {
  const body = hex(cborHex);
  const c = crc32(body);
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, c);
  return out;
}

export function kindOf(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    if (e instanceof FrameError) return e.kind;
    return `non-FrameError: ${String(e)}`;
  }
}
/** The MAC key of the worked examples: bytes 00 01 .. 0F. */
export const KEY = Uint8Array.from({ length: 16 }, (_, i) => i);
export const EXAMPLE: SensorFrame = {
  deviceId: 'n1',
  boot: 1,
  signed: false,
  seq: 7,
  base: 5,
  ts: 1_700_000_000_000,
  fields: { t: 21.5, h: -3, s: 'ok', big: 100000, pi: Math.PI },
};
