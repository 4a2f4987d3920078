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
import { createHmac, timingSafeEqual } from 'node:crypto';
import { EdgetableError } from '../model/errors.js';
import {
  MAX_SENSOR_ACK_BYTES,
  MAX_SENSOR_DEVICE_ID_BYTES,
  MAX_SENSOR_FIELDS,
  MAX_SENSOR_FRAME_BYTES,
  MAX_SENSOR_STRING_VALUE_BYTES,
} from '../model/limits.js';

/** The version encoders write; decoders also take LEGACY_SENSOR_FRAME_VERSION. */
export const SENSOR_FRAME_VERSION = 2;
/** Version 1: no boot id, no MAC. Decoded with boot 0 and acknowledged with a version 1 ack. */
export const LEGACY_SENSOR_FRAME_VERSION = 1;
/** Bytes of the truncated HMAC-SHA256 a keyed frame carries. */
export const SENSOR_FRAME_MAC_BYTES = 8;
/** Per-node keys are 16..32 bytes (ETB_MIN_KEY_BYTES..ETB_MAX_KEY_BYTES). */
export const MIN_SENSOR_KEY_BYTES = 16;
export const MAX_SENSOR_KEY_BYTES = 32;

/** Why bytes were refused: the bridge counts these per kind and drops the frame. */
export type FrameErrorKind = 'crc' | 'truncated' | 'oversized' | 'malformed' | 'version';

export class FrameError extends EdgetableError {
  readonly kind: FrameErrorKind;
  constructor(kind: FrameErrorKind, message: string) {
    super(`${kind}: ${message}`);
    this.kind = kind;
  }
}

export type SensorFieldValue = number | string;

/**
 * A decoded reading. seq, base and ts are plain numbers: seq is a uint32 and ts is bounded to
 * 2^53-1 by the format, so no bigint is needed. Field names are safe as JavaScript keys
 * (own properties even for "__proto__").
 */
export type SensorFrame = {
  deviceId: string;
  /** The node's boot id, 1..2^32-1; 0 for a version 1 frame (which has none). */
  boot: number;
  seq: number;
  /** Oldest seq the node still holds: the bridge may treat missing seqs below it as given up. */
  base: number;
  ts: number;
  fields: Record<string, SensorFieldValue>;
  /** True when the frame carries a MAC (check it with verifySensorFrameMac on the raw bytes). */
  signed: boolean;
};

/**
 * The input of encodeSensorFrame: base defaults to seq, boot to 1; boot 0 writes a version 1
 * frame (what a node on the old library sends).
 */
export type SensorFrameInput = Omit<SensorFrame, 'base' | 'boot' | 'signed'> & { base?: number; boot?: number };

/** boot 0 = a version 1 ack (for a version 1 frame). signed: it carries a MAC (verifySensorMac). */
export type SensorAck = { deviceId: string; boot: number; seq: number; signed: boolean };

const KEY_VERSION = 0;
const KEY_DEVICE = 1;
const KEY_SEQ = 2;
const KEY_TS = 3;
const KEY_FIELDS = 4;
const KEY_BASE = 5;
const KEY_ACKED = 6;
const KEY_BOOT = 7;
const KEY_MAC = 8;
/** The MAC pair as it must end a keyed frame's map: 08 48 <8 bytes>. */
const MAC_PAIR_BYTES = 2 + SENSOR_FRAME_MAC_BYTES;
const FIRST_EXTENSION_KEY = 16;
const MAX_MAP_PAIRS = 32;
const MAX_SKIP_DEPTH = 8;
const CRC_BYTES = 4;
const UINT32_MAX = 0xffff_ffff;

const DEVICE_ID = /^[A-Za-z0-9._:-]{1,32}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// ---------------------------------------------------------------------------------- CRC32

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32/IEEE (zlib's crc32): crc32(b) === crc32(b.subarray(k), crc32(b.subarray(0, k))). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = (CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)) >>> 0;
  return (c ^ 0xffffffff) >>> 0;
}

function crcMatches(bytes: Uint8Array): boolean {
  const n = bytes.length - CRC_BYTES;
  const want = ((bytes[n]! << 24) | (bytes[n + 1]! << 16) | (bytes[n + 2]! << 8) | bytes[n + 3]!) >>> 0;
  return crc32(bytes.subarray(0, n)) === want;
}

// ---------------------------------------------------------------------------------- COBS

/** COBS-encodes bytes (no delimiter). Same bytes as etb_cobs_encode: no 01 block after a final full block. */
export function cobsEncode(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + Math.floor(bytes.length / 254) + 1);
  let o = 1;
  let codeAt = 0;
  let code = 1;
  let pending = true;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0) {
      out[codeAt] = code;
      codeAt = o++;
      code = 1;
      continue;
    }
    out[o++] = b;
    if (++code === 0xff) {
      out[codeAt] = code;
      code = 1;
      pending = i + 1 < bytes.length;
      if (pending) codeAt = o++;
    }
  }
  if (pending) out[codeAt] = code;
  return out.slice(0, o);
}

/** Decodes one COBS message without its delimiter. Throws FrameError: a 0x00 inside is
 * 'malformed', a block running past the end is 'truncated'. */
export function cobsDecode(encoded: Uint8Array): Uint8Array {
  const out = new Uint8Array(encoded.length);
  let i = 0;
  let o = 0;
  while (i < encoded.length) {
    const code = encoded[i++]!;
    if (code === 0) throw new FrameError('malformed', 'COBS: 0x00 inside a message');
    if (code - 1 > encoded.length - i) throw new FrameError('truncated', 'COBS: block runs past the end');
    for (let k = 1; k < code; k++) {
      const b = encoded[i++]!;
      if (b === 0) throw new FrameError('malformed', 'COBS: 0x00 inside a message');
      out[o++] = b;
    }
    if (code < 0xff && i < encoded.length) out[o++] = 0;
  }
  return out.slice(0, o);
}

/** COBS(bytes) followed by the 0x00 delimiter: what a serial link carries. */
export function cobsFrame(bytes: Uint8Array): Uint8Array {
  const enc = cobsEncode(bytes);
  const out = new Uint8Array(enc.length + 1);
  out.set(enc);
  return out;
}

export type CobsChunk = { ok: true; frame: Uint8Array } | { ok: false; error: FrameError };

/**
 * Turns a serial byte stream into raw messages. Memory is fixed at construction: a message whose
 * encoding outgrows the buffer is reported once as 'oversized' and skipped up to the next 0x00.
 * Empty messages (0x00 0x00, e.g. a node flushing the line after boot) are ignored.
 */
export class CobsSplitter {
  readonly maxMessageBytes: number;
  readonly #buf: Uint8Array;
  #len = 0;
  #discarding = false;

  /** maxMessageBytes bounds the decoded message (default: a frame; MAX_SENSOR_ACK_BYTES for acks). */
  constructor(maxMessageBytes: number = MAX_SENSOR_FRAME_BYTES) {
    if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1) throw new RangeError('maxMessageBytes must be a positive integer');
    this.maxMessageBytes = maxMessageBytes;
    this.#buf = new Uint8Array(maxMessageBytes + Math.floor(maxMessageBytes / 254) + 1);
  }

  /** Bytes of an unfinished message held now. */
  get buffered(): number {
    return this.#len;
  }

  /** Feeds bytes; returns the messages (or errors) completed by them, in stream order. */
  push(chunk: Uint8Array): CobsChunk[] {
    const out: CobsChunk[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b !== 0) {
        if (this.#discarding) continue;
        if (this.#len === this.#buf.length) {
          this.#discarding = true;
          this.#len = 0;
          out.push({ ok: false, error: new FrameError('oversized', `serial message longer than ${this.#buf.length} encoded bytes`) });
          continue;
        }
        this.#buf[this.#len++] = b;
        continue;
      }
      const len = this.#len;
      this.#len = 0;
      if (this.#discarding) {
        this.#discarding = false;
        continue;
      }
      if (len === 0) continue;
      try {
        const frame = cobsDecode(this.#buf.subarray(0, len));
        if (frame.length > this.maxMessageBytes) {
          throw new FrameError('oversized', `message of ${frame.length} bytes exceeds ${this.maxMessageBytes}`);
        }
        out.push({ ok: true, frame });
      } catch (e) {
        out.push({ ok: false, error: e as FrameError });
      }
    }
    return out;
  }

  /** Drops any partial message (e.g. after the serial port reopens). */
  reset(): void {
    this.#len = 0;
    this.#discarding = false;
  }
}

// ---------------------------------------------------------------------------------- CBOR reading

type Head = { major: number; info: number; arg: number; at: number };

const malformed = (message: string): FrameError => new FrameError('malformed', message);

/**
 * Reads the CBOR subset of this format from bytes[pos, end). Arguments above 2^53-1 read as
 * Infinity so every range check refuses them. `onEnd` decides what running out of bytes means.
 */
class CborReader {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly end: number,
    pos = 0,
    readonly onEnd: () => FrameError = () => malformed('CBOR item runs past the end'),
  ) {
    this.pos = pos;
  }

  #need(n: number): void {
    if (this.end - this.pos < n) throw this.onEnd();
  }

  head(): Head {
    this.#need(1);
    const at = this.pos;
    const ib = this.bytes[this.pos++]!;
    const major = ib >> 5;
    const info = ib & 0x1f;
    if (info < 24) return { major, info, arg: info, at };
    if (info > 27) throw malformed(info === 31 ? 'indefinite-length CBOR item' : 'reserved CBOR additional info');
    const n = 1 << (info - 24);
    this.#need(n);
    let arg = 0;
    if (n === 8) {
      const hi = this.#u32(this.pos);
      const lo = this.#u32(this.pos + 4);
      arg = hi > 0x1fffff ? Infinity : hi * 2 ** 32 + lo;
    } else {
      for (let k = 0; k < n; k++) arg = arg * 256 + this.bytes[this.pos + k]!;
    }
    this.pos += n;
    return { major, info, arg, at };
  }

  #u32(p: number): number {
    const b = this.bytes;
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }

  /** The payload of a byte or text string whose head was just read. */
  payload(h: Head): Uint8Array {
    if (h.arg > this.end - this.pos) throw this.onEnd();
    const out = this.bytes.subarray(this.pos, this.pos + h.arg);
    this.pos += h.arg;
    return out;
  }

  /** Skips one well-formed item. Each item takes >= 1 byte, so hostile counts end with the input. */
  skip(depth = 0): void {
    if (depth > MAX_SKIP_DEPTH) throw malformed('CBOR nested too deeply');
    const h = this.head();
    switch (h.major) {
      case 2:
      case 3:
        this.payload(h);
        return;
      case 4:
      case 5: {
        const items = h.major === 5 ? h.arg * 2 : h.arg;
        for (let k = 0; k < items; k++) this.skip(depth + 1);
        return;
      }
      case 6:
        this.skip(depth + 1);
        return;
      default:
        return; // 0, 1, 7: the head was the whole item
    }
  }

  /** A number item: int or float16/32/64. */
  number(what: string): number {
    const h = this.head();
    if (h.major === 0) return h.arg;
    if (h.major === 1) return h.arg === Infinity ? -Infinity : -1 - h.arg;
    if (h.major === 7 && h.info >= 25 && h.info <= 27) {
      const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + h.at + 1, 1 << (h.info - 24));
      if (h.info === 25) return float16(view.getUint16(0));
      return h.info === 26 ? view.getFloat32(0) : view.getFloat64(0);
    }
    throw malformed(`${what} is not a number`);
  }

  uint(what: string, min: number, max: number): number {
    const h = this.head();
    if (h.major !== 0) throw malformed(`${what} is not an unsigned integer`);
    if (h.arg < min || h.arg > max) throw malformed(`${what} ${h.arg} outside ${min}..${max}`);
    return h.arg;
  }

  text(what: string, maxBytes: number): string {
    const h = this.head();
    if (h.major !== 3) throw malformed(`${what} is not a text string`);
    if (h.arg > maxBytes) throw malformed(`${what} longer than ${maxBytes} bytes`);
    try {
      return utf8Decoder.decode(this.payload(h));
    } catch (e) {
      if (e instanceof FrameError) throw e;
      throw malformed(`${what} is not valid UTF-8`);
    }
  }
}

function float16(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1024 + frac) * 2 ** (exp - 25);
}

/**
 * Size, CRC, then the outer map's shape. Returns each known key's value offset after checking
 * the version, so a future version with other keys is reported as 'version', not 'malformed'.
 */
type Opened = { body: Uint8Array; at: Map<number, number>; end: number; version: number; lastKey: number | undefined };

/** Per version: the keys a message must have, and those it may have. */
type MessageKeys = Record<number, { required: readonly number[]; optional: readonly number[] }>;

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

const FRAME_KEYS_V1 = [KEY_VERSION, KEY_DEVICE, KEY_SEQ, KEY_TS, KEY_FIELDS, KEY_BASE] as const;
const FRAME_KEYS: MessageKeys = {
  [LEGACY_SENSOR_FRAME_VERSION]: { required: FRAME_KEYS_V1, optional: [] },
  [SENSOR_FRAME_VERSION]: { required: [...FRAME_KEYS_V1, KEY_BOOT], optional: [KEY_MAC] },
};
const ACK_KEYS_V1 = [KEY_VERSION, KEY_DEVICE, KEY_ACKED] as const;
const ACK_KEYS: MessageKeys = {
  [LEGACY_SENSOR_FRAME_VERSION]: { required: ACK_KEYS_V1, optional: [] },
  [SENSOR_FRAME_VERSION]: { required: [...ACK_KEYS_V1, KEY_BOOT], optional: [KEY_MAC] },
};

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

function frameMac(key: Uint8Array, covered: Uint8Array): Uint8Array {
  return createHmac('sha256', key).update(covered).digest().subarray(0, SENSOR_FRAME_MAC_BYTES);
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
