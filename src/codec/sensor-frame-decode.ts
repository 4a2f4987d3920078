/** Decoding of raw sensor frames and acks, and MAC verification (the grammar: sensor-frame.ts). */
import { timingSafeEqual } from 'node:crypto';
import {
  MAX_SENSOR_ACK_BYTES,
  MAX_SENSOR_DEVICE_ID_BYTES,
  MAX_SENSOR_FIELDS,
  MAX_SENSOR_FRAME_BYTES,
  MAX_SENSOR_STRING_VALUE_BYTES,
} from '../model/limits.js';
import { CborReader } from './sensor-frame-cbor-reader.js';
import { CRC_BYTES, crcMatches } from './crc32.js';
import { FrameError, malformed } from './sensor-frame-error.js';
import {
  ACK_KEYS,
  DEVICE_ID,
  FIELD_NAME,
  FIRST_EXTENSION_KEY,
  FRAME_KEYS,
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
  MAX_MAP_PAIRS,
  SENSOR_FRAME_MAC_BYTES,
  UINT32_MAX,
  frameMac,
  type MessageKeys,
  type SensorAck,
  type SensorFieldValue,
  type SensorFrame,
} from './sensor-frame-format.js';

/**
 * Size, CRC, then the outer map's shape. Returns each known key's value offset after checking
 * the version, so a future version with other keys is reported as 'version', not 'malformed'.
 */
type Opened = { body: Uint8Array; at: Map<number, number>; end: number; version: number; lastKey: number | undefined };

function openMessage(bytes: unknown, maxBytes: number, keysByVersion: MessageKeys, what: string): Opened {
  if (!(bytes instanceof Uint8Array)) throw malformed(`${what} must be a Uint8Array`);
  if (bytes.length > maxBytes) throw new FrameError('oversized', `${what} of ${bytes.length} bytes exceeds ${maxBytes}`);
  if (bytes.length < 1 + CRC_BYTES) throw new FrameError('truncated', `${what} of ${bytes.length} bytes is too short`);
  const end = bytes.length - CRC_BYTES;
  if (!crcMatches(bytes)) {
    // Tell a cut-off message from a corrupted one: does the CBOR run past the end?
    const probe = new CborReader(bytes, bytes.length, 0, () => new FrameError('truncated', `${what} ends inside its CBOR map`));
    try {
      probe.skip();
    } catch (e) {
      if (e instanceof FrameError && e.kind === 'truncated') throw e;
    }
    if (probe.pos > end) throw new FrameError('truncated', `${what} ends before its CRC`);
    throw new FrameError('crc', `${what} CRC32 mismatch`);
  }
  const r = new CborReader(bytes, end);
  const map = r.head();
  if (map.major !== 5) throw malformed(`${what} is not a CBOR map`);
  if (map.arg > MAX_MAP_PAIRS) throw malformed(`${what} map has more than ${MAX_MAP_PAIRS} pairs`);
  const at = new Map<number, number>();
  let lastKey: number | undefined;
  for (let k = 0; k < map.arg; k++) {
    const key = r.head();
    if (key.major !== 0) throw malformed(`${what} map key is not an unsigned integer`);
    if (at.has(key.arg)) throw malformed(`${what} map key ${key.arg} appears twice`);
    at.set(key.arg, r.pos);
    lastKey = key.arg;
    r.skip(1);
  }
  if (r.pos !== end) throw malformed(`${what} has ${end - r.pos} bytes after its CBOR map`);
  const v = at.get(KEY_VERSION);
  if (v === undefined) throw malformed(`${what} has no version (key 0)`);
  const version = new CborReader(bytes, end, v).uint('version', 0, Infinity);
  const keys = keysByVersion[version];
  if (!keys) throw new FrameError('version', `${what} version ${version}; this decoder speaks ${Object.keys(keysByVersion).join(' and ')}`);
  for (const key of at.keys()) {
    if (key < FIRST_EXTENSION_KEY && !keys.required.includes(key) && !keys.optional.includes(key)) throw malformed(`${what} has unknown key ${key}`);
  }
  for (const key of keys.required) if (!at.has(key)) throw malformed(`${what} lacks key ${key}`);
  return { body: bytes, at, end, version, lastKey };
}

function readerAt(m: Opened, key: number): CborReader {
  return new CborReader(m.body, m.end, m.at.get(key));
}

function readDeviceId(r: CborReader): string {
  const id = r.text('device id', MAX_SENSOR_DEVICE_ID_BYTES);
  if (!DEVICE_ID.test(id)) throw malformed(`device id ${JSON.stringify(id)} is not [A-Za-z0-9._:-]{1,32}`);
  return id;
}

/** Whether the message has a MAC pair, after checking its form: the last pair, 08 48 <8 bytes>. */
function hasMac(m: Opened, what: string): boolean {
  const macAt = m.at.get(KEY_MAC);
  if (macAt === undefined) return false;
  if (m.lastKey !== KEY_MAC) throw malformed(`the MAC (key 8) is not the last pair of the ${what}`);
  if (m.end - macAt !== 1 + SENSOR_FRAME_MAC_BYTES || m.body[macAt] !== 0x40 + SENSOR_FRAME_MAC_BYTES) {
    throw malformed(`the MAC (key 8) is not a byte string of ${SENSOR_FRAME_MAC_BYTES} bytes`);
  }
  return true;
}

/**
 * Decodes one raw frame (a datagram, or a CobsSplitter message), version 2 or 1. Checks, in
 * order: size ('oversized'), CRC ('crc', or 'truncated' when the bytes end inside the CBOR),
 * version ('version'), then the grammar ('malformed'). Throws nothing but FrameError. A MAC is
 * checked for form only (last pair, 8 bytes): verifySensorFrameMac checks it against a key.
 */
export function decodeSensorFrame(bytes: Uint8Array): SensorFrame {
  const m = openMessage(bytes, MAX_SENSOR_FRAME_BYTES, FRAME_KEYS, 'frame');
  const deviceId = readDeviceId(readerAt(m, KEY_DEVICE));
  const boot = m.version === LEGACY_SENSOR_FRAME_VERSION ? 0 : readerAt(m, KEY_BOOT).uint('boot', 1, UINT32_MAX);
  const signed = hasMac(m, 'frame');
  const seq = readerAt(m, KEY_SEQ).uint('seq', 1, UINT32_MAX);
  const ts = readerAt(m, KEY_TS).uint('ts', 0, Number.MAX_SAFE_INTEGER);
  const base = readerAt(m, KEY_BASE).uint('base', 1, seq);
  const r = readerAt(m, KEY_FIELDS);
  const h = r.head();
  if (h.major !== 5) throw malformed('fields is not a CBOR map');
  if (h.arg > MAX_SENSOR_FIELDS) throw malformed(`more than ${MAX_SENSOR_FIELDS} fields`);
  const fields: Record<string, SensorFieldValue> = {};
  for (let k = 0; k < h.arg; k++) {
    const name = r.text('field name', 32);
    if (!FIELD_NAME.test(name)) throw malformed(`field name ${JSON.stringify(name)} is not [A-Za-z_][A-Za-z0-9_]{0,31}`);
    if (Object.prototype.hasOwnProperty.call(fields, name)) throw malformed(`field ${name} appears twice`);
    Object.defineProperty(fields, name, { value: readValue(r, name), enumerable: true, writable: true, configurable: true });
  }
  return { deviceId, boot, seq, base, ts, fields, signed };
}

/**
 * True when the raw frame or ack (as decodeSensorFrame / decodeAck took it) carries a MAC made
 * with `key`. The MAC covers every map byte before its pair: the message minus its last
 * MAC_PAIR_BYTES + CRC bytes. Constant-time compare. False for a message without a MAC.
 */
export function verifySensorMac(bytes: Uint8Array, key: Uint8Array): boolean {
  const end = bytes.length - CRC_BYTES;
  const macAt = end - SENSOR_FRAME_MAC_BYTES;
  if (macAt - 2 < 1 || bytes[macAt - 2] !== KEY_MAC || bytes[macAt - 1] !== 0x40 + SENSOR_FRAME_MAC_BYTES) return false;
  const want = frameMac(key, bytes.subarray(0, macAt - 2));
  return timingSafeEqual(want, bytes.subarray(macAt, end));
}

function readValue(r: CborReader, name: string): SensorFieldValue {
  const start = r.pos;
  const h = r.head();
  r.pos = start;
  if (h.major === 3) return r.text(`field ${name}`, MAX_SENSOR_STRING_VALUE_BYTES);
  const v = r.number(`field ${name}`);
  if (h.major !== 7 && !Number.isSafeInteger(v)) throw malformed(`field ${name} integer outside ±(2^53-1)`);
  if (!Number.isFinite(v)) throw malformed(`field ${name} is not finite`);
  return v;
}

/** Decodes one raw ack (the C side does this in etb_ack_decode). Throws nothing but FrameError. */
export function decodeAck(bytes: Uint8Array): SensorAck {
  const m = openMessage(bytes, MAX_SENSOR_ACK_BYTES, ACK_KEYS, 'ack');
  return {
    deviceId: readDeviceId(readerAt(m, KEY_DEVICE)),
    boot: m.version === LEGACY_SENSOR_FRAME_VERSION ? 0 : readerAt(m, KEY_BOOT).uint('boot', 1, UINT32_MAX),
    seq: readerAt(m, KEY_ACKED).uint('acked', 0, UINT32_MAX),
    signed: hasMac(m, 'ack'),
  };
}
