/**
 * The sensor frame format's shared vocabulary: versions, map keys, limits, the decoded shapes and
 * the MAC. The grammar itself is at the top of sensor-frame.ts, which writes the format.
 */
import { createHmac } from 'node:crypto';

/** The version encoders write; decoders also take LEGACY_SENSOR_FRAME_VERSION. */
export const SENSOR_FRAME_VERSION = 2;
/** Version 1: no boot id, no MAC. Decoded with boot 0 and acknowledged with a version 1 ack. */
export const LEGACY_SENSOR_FRAME_VERSION = 1;
/** Bytes of the truncated HMAC-SHA256 a keyed frame carries. */
export const SENSOR_FRAME_MAC_BYTES = 8;
/** Per-node keys are 16..32 bytes (ETB_MIN_KEY_BYTES..ETB_MAX_KEY_BYTES). */
export const MIN_SENSOR_KEY_BYTES = 16;
export const MAX_SENSOR_KEY_BYTES = 32;

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

export const KEY_VERSION = 0;
export const KEY_DEVICE = 1;
export const KEY_SEQ = 2;
export const KEY_TS = 3;
export const KEY_FIELDS = 4;
export const KEY_BASE = 5;
export const KEY_ACKED = 6;
export const KEY_BOOT = 7;
export const KEY_MAC = 8;
/** The MAC pair as it must end a keyed frame's map: 08 48 <8 bytes>. */
export const MAC_PAIR_BYTES = 2 + SENSOR_FRAME_MAC_BYTES;
export const FIRST_EXTENSION_KEY = 16;
export const MAX_MAP_PAIRS = 32;
export const MAX_SKIP_DEPTH = 8;
export const UINT32_MAX = 0xffff_ffff;

export const DEVICE_ID = /^[A-Za-z0-9._:-]{1,32}$/;
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;

/** Per version: the keys a message must have, and those it may have. */
export type MessageKeys = Record<number, { required: readonly number[]; optional: readonly number[] }>;

export const FRAME_KEYS_V1 = [KEY_VERSION, KEY_DEVICE, KEY_SEQ, KEY_TS, KEY_FIELDS, KEY_BASE] as const;
export const FRAME_KEYS: MessageKeys = {
  [LEGACY_SENSOR_FRAME_VERSION]: { required: FRAME_KEYS_V1, optional: [] },
  [SENSOR_FRAME_VERSION]: { required: [...FRAME_KEYS_V1, KEY_BOOT], optional: [KEY_MAC] },
};
export const ACK_KEYS_V1 = [KEY_VERSION, KEY_DEVICE, KEY_ACKED] as const;
export const ACK_KEYS: MessageKeys = {
  [LEGACY_SENSOR_FRAME_VERSION]: { required: ACK_KEYS_V1, optional: [] },
  [SENSOR_FRAME_VERSION]: { required: [...ACK_KEYS_V1, KEY_BOOT], optional: [KEY_MAC] },
};

export function frameMac(key: Uint8Array, covered: Uint8Array): Uint8Array {
  return createHmac('sha256', key).update(covered).digest().subarray(0, SENSOR_FRAME_MAC_BYTES);
}
