/**
 * Sensor frames and acks of the firmware bridge: the TypeScript side of docs/sensor-frame.md
 * (normative) and firmware-bridge/include/edgetable_node.h (the C side). Hand-decoded CBOR, so
 * every limit and every error is ours: a decoder of hostile bytes throws FrameError and nothing
 * else, and never allocates more than its input's size.
 *
 *   frame    = cbor-map crc32                    ; <= 512 bytes (MAX_SENSOR_FRAME_BYTES)
 *   ack      = cbor-map crc32                    ; <= 64 bytes (MAX_SENSOR_ACK_BYTES)
 *   crc32    = 4 bytes, big-endian CRC-32/IEEE of cbor-map
 *   frame map: { 0: 2, 1: device, 2: seq, 3: ts, 4: { name: value, ... }, 5: base, 7: boot [, 8: mac] }
 *   ack map:   { 0: 2, 1: device, 6: acked, 7: boot [, 8: mac] }   ; mac when the node has a key
 *   version 1 (still decoded, and answered in kind): the same maps with 0: 1 and no keys 7, 8
 *   boot     = uint 1..2^32-1 (the node's boot id; 0 stands for "a version 1 frame")
 *   mac      = bytes(8), the map's LAST pair, exactly 08 48 <8 bytes>:
 *              HMAC-SHA256(node key, every byte of the map before this pair)[0..8)
 *   device   = text [A-Za-z0-9._:-]{1,32}        name  = text [A-Za-z_][A-Za-z0-9_]{0,31}
 *   seq      = uint 1..2^32-1                    base  = uint 1..seq (oldest seq the node holds)
 *   ts       = uint ms since the epoch <= 2^53-1 acked = uint 0..2^32-1 (all seq <= acked settled)
 *   value    = int (|v| <= 2^53-1) | float16/32/64 (finite) | text (<= 128 bytes UTF-8)
 *   keys     : unsigned ints; each at most once; unknown keys >= 16 are skipped (extensions),
 *              other unknown keys are malformed. Definite lengths only, no tags in known keys.
 * Encoders write keys in ascending order, shortest heads, and numbers canonically: a safe integer
 * as a CBOR int, else float32 when exact, else float64 - byte-identical to the C library.
 * Serial links carry COBS(frame) 0x00; datagrams (UDP, MQTT payloads) carry the raw frame.
 */
import { MAX_SENSOR_FIELDS, MAX_SENSOR_FRAME_BYTES, MAX_SENSOR_STRING_VALUE_BYTES } from '../model/limits.js';
import { cobsFrame } from './cobs.js';
import { CRC_BYTES, crc32 } from './crc32.js';
import { FrameError, malformed } from './sensor-frame-error.js';
import {
  ACK_KEYS_V1,
  DEVICE_ID,
  FIELD_NAME,
  FRAME_KEYS_V1,
  KEY_ACKED,
  KEY_BASE,
  KEY_BOOT,
  KEY_DEVICE,
  KEY_FIELDS,
  KEY_MAC,
  KEY_SEQ,
  KEY_TS,
  KEY_VERSION,
  LEGACY_SENSOR_FRAME_VERSION,
  MAX_SENSOR_KEY_BYTES,
  MIN_SENSOR_KEY_BYTES,
  SENSOR_FRAME_MAC_BYTES,
  SENSOR_FRAME_VERSION,
  UINT32_MAX,
  frameMac,
  type SensorFrameInput,
} from './sensor-frame-format.js';

// The format's parts live in sibling modules; every name stays importable from here.
export { crc32 } from './crc32.js';
export { CobsSplitter, cobsDecode, cobsEncode, cobsFrame, type CobsChunk } from './cobs.js';
export { FrameError, type FrameErrorKind } from './sensor-frame-error.js';
export {
  LEGACY_SENSOR_FRAME_VERSION,
  MAX_SENSOR_KEY_BYTES,
  MIN_SENSOR_KEY_BYTES,
  SENSOR_FRAME_MAC_BYTES,
  SENSOR_FRAME_VERSION,
  type SensorAck,
  type SensorFieldValue,
  type SensorFrame,
  type SensorFrameInput,
} from './sensor-frame-format.js';
export { decodeAck, decodeSensorFrame, verifySensorMac } from './sensor-frame-decode.js';

const utf8Encoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// ---------------------------------------------------------------------------------- CBOR writing

class CborWriter {
  readonly #out: number[] = [];

  head(major: number, arg: number): this {
    const m = major << 5;
    if (arg < 24) this.#out.push(m | arg);
    else if (arg <= 0xff) this.#out.push(m | 24, arg);
    else if (arg <= 0xffff) this.#out.push(m | 25, arg >> 8, arg & 0xff);
    else if (arg <= UINT32_MAX) this.#out.push(m | 26, ...u32(arg));
    else this.#out.push(m | 27, ...u32(Math.floor(arg / 2 ** 32)), ...u32(arg % 2 ** 32));
    return this;
  }

  text(s: string): this {
    const b = utf8Encoder.encode(s);
    this.head(3, b.length);
    for (const x of b) this.#out.push(x);
    return this;
  }

  /** The canonical number encoding shared with etb_frame_add_double. */
  number(v: number): this {
    if (Number.isSafeInteger(v)) return v >= 0 ? this.head(0, v) : this.head(1, -1 - v);
    const single = Math.fround(v) === v;
    const view = new DataView(new ArrayBuffer(single ? 4 : 8));
    if (single) view.setFloat32(0, v);
    else view.setFloat64(0, v);
    this.#out.push(single ? 0xfa : 0xfb, ...new Uint8Array(view.buffer));
    return this;
  }

  /** Appends the MAC pair (key 8) over the bytes so far. */
  mac(key: Uint8Array): this {
    const tag = frameMac(key, Uint8Array.from(this.#out));
    this.head(0, KEY_MAC).head(2, SENSOR_FRAME_MAC_BYTES);
    for (const x of tag) this.#out.push(x);
    return this;
  }

  /** The bytes so far followed by their CRC32. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.#out.length + CRC_BYTES);
    out.set(this.#out);
    const c = crc32(out.subarray(0, this.#out.length));
    out.set(u32(c), this.#out.length);
    return out;
  }
}

function u32(v: number): number[] {
  return [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
}

function checkDeviceId(deviceId: unknown): string {
  if (typeof deviceId !== 'string' || !DEVICE_ID.test(deviceId)) throw malformed(`device id ${JSON.stringify(deviceId)} is not [A-Za-z0-9._:-]{1,32}`);
  return deviceId;
}

function checkKey(key: Uint8Array | undefined, boot: number): void {
  if (key !== undefined && (boot === 0 || !(key instanceof Uint8Array) || key.length < MIN_SENSOR_KEY_BYTES || key.length > MAX_SENSOR_KEY_BYTES)) {
    throw malformed(`a MAC needs boot >= 1 and a key of ${MIN_SENSOR_KEY_BYTES}..${MAX_SENSOR_KEY_BYTES} bytes`);
  }
}

function checkUint(v: unknown, what: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw malformed(`${what} must be an integer in ${min}..${max}`);
  return v;
}

/**
 * Encodes a raw frame exactly as the C library would (for tests, simulated nodes and tools);
 * with `key` (16..32 bytes) it carries the MAC. boot 0 writes a version 1 frame (no MAC possible).
 * Refuses what the grammar forbids with FrameError ('malformed', or 'oversized' past 512 bytes).
 */
export function encodeSensorFrame(frame: SensorFrameInput, options: { key?: Uint8Array } = {}): Uint8Array {
  const seq = checkUint(frame.seq, 'seq', 1, UINT32_MAX);
  const base = checkUint(frame.base ?? frame.seq, 'base', 1, seq);
  const boot = checkUint(frame.boot ?? 1, 'boot', 0, UINT32_MAX);
  const { key } = options;
  checkKey(key, boot);
  const names = Object.keys(frame.fields);
  if (names.length > MAX_SENSOR_FIELDS) throw malformed(`more than ${MAX_SENSOR_FIELDS} fields`);
  const pairs = FRAME_KEYS_V1.length + (boot === 0 ? 0 : 1) + (key ? 1 : 0);
  const w = new CborWriter()
    .head(5, pairs)
    .head(0, KEY_VERSION).head(0, boot === 0 ? LEGACY_SENSOR_FRAME_VERSION : SENSOR_FRAME_VERSION)
    .head(0, KEY_DEVICE).text(checkDeviceId(frame.deviceId))
    .head(0, KEY_SEQ).head(0, seq)
    .head(0, KEY_TS).head(0, checkUint(frame.ts, 'ts', 0, Number.MAX_SAFE_INTEGER))
    .head(0, KEY_FIELDS).head(5, names.length);
  for (const name of names) {
    if (!FIELD_NAME.test(name)) throw malformed(`field name ${JSON.stringify(name)} is not [A-Za-z_][A-Za-z0-9_]{0,31}`);
    const v = frame.fields[name];
    w.text(name);
    if (typeof v === 'string') {
      if (utf8Encoder.encode(v).length > MAX_SENSOR_STRING_VALUE_BYTES) throw malformed(`field ${name} longer than ${MAX_SENSOR_STRING_VALUE_BYTES} bytes`);
      if (LONE_SURROGATE.test(v)) throw malformed(`field ${name} has a lone surrogate`);
      w.text(v);
    } else if (typeof v === 'number' && Number.isFinite(v)) {
      w.number(v);
    } else {
      throw malformed(`field ${name} must be a finite number or a string`);
    }
  }
  w.head(0, KEY_BASE).head(0, base);
  if (boot !== 0) w.head(0, KEY_BOOT).head(0, boot);
  if (key) w.mac(key);
  const out = w.finish();
  if (out.length > MAX_SENSOR_FRAME_BYTES) throw new FrameError('oversized', `frame of ${out.length} bytes exceeds ${MAX_SENSOR_FRAME_BYTES}`);
  return out;
}

/** COBS(frame) 0x00, for a serial link. */
export function encodeSensorFrameCobs(frame: SensorFrameInput, options: { key?: Uint8Array } = {}): Uint8Array {
  return cobsFrame(encodeSensorFrame(frame, options));
}

/**
 * The bridge's ack: every seq <= `seq` of `deviceId`'s boot `boot` is settled (durable, or below
 * a base the node sent), so the node frees them. Raw bytes for a datagram; seq 0 = nothing yet.
 * boot 0 answers a version 1 frame with a version 1 ack (no boot). With `key` (the node's, 16..32
 * bytes; not for boot 0) the ack carries a MAC, without which a keyed node frees nothing.
 */
export function encodeAck(deviceId: string, seq: number, boot = 1, key?: Uint8Array): Uint8Array {
  const b = checkUint(boot, 'boot', 0, UINT32_MAX);
  checkKey(key, b);
  const w = new CborWriter()
    .head(5, ACK_KEYS_V1.length + (b === 0 ? 0 : 1) + (key ? 1 : 0))
    .head(0, KEY_VERSION).head(0, b === 0 ? LEGACY_SENSOR_FRAME_VERSION : SENSOR_FRAME_VERSION)
    .head(0, KEY_DEVICE).text(checkDeviceId(deviceId))
    .head(0, KEY_ACKED).head(0, checkUint(seq, 'acked seq', 0, UINT32_MAX));
  if (b !== 0) w.head(0, KEY_BOOT).head(0, b);
  if (key) w.mac(key);
  return w.finish();
}

/** COBS(ack) 0x00, for a serial link. */
export function encodeAckCobs(deviceId: string, seq: number, boot = 1, key?: Uint8Array): Uint8Array {
  return cobsFrame(encodeAck(deviceId, seq, boot, key));
}
