/**
 * Partition hash h(pk) (format version 1, frozen: the hub and every partition map rely on it).
 *
 *   h(value) = fingerprint32( tag value-bytes )      ; farmhash Fingerprint32, unsigned 32-bit
 *   tag      = 0x53 ('S') | 0x4E ('N') | 0x42 ('B')  ; the type letter in ASCII
 *   S bytes  = UTF-8 of the string (a lone surrogate as U+FFFD)
 *   N bytes  = ASCII of the canonical decimal string (model/number.ts), e.g. "-21.5"
 *   B bytes  = the raw bytes
 *
 *   stored   = h as 4 bytes big-endian (writeHash), so byte order = numeric order of h
 *
 * Farmhash's fingerprint functions are specified to be stable across platforms and library
 * versions (unlike its hash32), which is why they are used here; the golden tests pin the values.
 * The type tag keeps {S:"1"} and {N:"1"} apart.
 *
 * Implementation: the native farmhash module where it loads, else fingerprint32.ts, a
 * bit-identical TypeScript port (farmhash 5.0.1 has no binary for linux-arm, i.e. 32-bit Raspberry
 * Pi OS). EDGETABLE_FARMHASH=js forces the port; EDGETABLE_FARMHASH=native requires the module.
 */
import { createRequire } from 'node:module';
import type { KeyValue } from '../model/attribute-value.js';
import { fingerprint32 as portableFingerprint32 } from './fingerprint32.js';

export type HashImplementation = 'native' | 'js';

type Fingerprint32 = (bytes: Uint8Array) => number;
type NativeFarmhash = { fingerprint32(bytes: Uint8Array): number };

// farmhash is CommonJS; a require (not a static import) so a missing binary can be caught.
const requireFarmhash = (): NativeFarmhash => createRequire(import.meta.url)('farmhash') as NativeFarmhash;

/**
 * Picks the Fingerprint32 implementation for `setting` (the EDGETABLE_FARMHASH value): native
 * farmhash unless the setting is 'js' or the module does not load here; 'native' makes a missing
 * module an error instead of a fallback. `loadNative` is injectable so tests can play a platform
 * without a binary.
 */
export function loadFingerprint32(
  setting: string | undefined,
  loadNative: () => NativeFarmhash = requireFarmhash,
): { implementation: HashImplementation; fingerprint32: Fingerprint32 } {
  if (setting === 'js') return { implementation: 'js', fingerprint32: portableFingerprint32 };
  if (setting !== undefined && setting !== '' && setting !== 'native') {
    throw new Error(`EDGETABLE_FARMHASH is 'native' or 'js', not ${JSON.stringify(setting)}`);
  }
  try {
    const native = loadNative();
    return { implementation: 'native', fingerprint32: (bytes) => native.fingerprint32(bytes) >>> 0 };
  } catch (e) {
    if (setting === 'native') throw new Error(`EDGETABLE_FARMHASH=native, but the farmhash module does not load on ${process.platform}-${process.arch}`, { cause: e });
    return { implementation: 'js', fingerprint32: portableFingerprint32 };
  }
}

const chosen = loadFingerprint32(process.env['EDGETABLE_FARMHASH']);
const fingerprint32 = chosen.fingerprint32;

/** Which Fingerprint32 this process uses; both give the same hashes. */
export const HASH_IMPLEMENTATION: HashImplementation = chosen.implementation;

const TAG_S = 0x53;
const TAG_N = 0x4e;
const TAG_B = 0x42;

/** Reused input buffer; fingerprint32 reads it synchronously, so sharing is safe. */
let scratch = Buffer.allocUnsafe(4096);

function room(bytes: number): Buffer {
  if (bytes > scratch.length) scratch = Buffer.allocUnsafe(Math.max(bytes, scratch.length * 2));
  return scratch;
}

/** The partition hash of a key value, as an unsigned 32-bit integer. */
/**
 * Hashes of recent short S partition key values. An application reads the same few partition keys
 * over and over (a sensor's id), and a lookup costs less than the UTF-8 copy and the native call.
 * Bounded: at most HASH_CACHE_ENTRIES strings of at most HASH_CACHE_MAX_LENGTH units; emptied when full.
 */
const HASH_CACHE_ENTRIES = 4096;
const HASH_CACHE_MAX_LENGTH = 64;
const stringHashes = new Map<string, number>();

export function partitionHash(value: KeyValue): number {
  if ('S' in value && value.S.length <= HASH_CACHE_MAX_LENGTH) {
    const text = value.S;
    let hash = stringHashes.get(text);
    if (hash === undefined) {
      hash = hashOf(value);
      if (stringHashes.size >= HASH_CACHE_ENTRIES) stringHashes.clear();
      stringHashes.set(text, hash);
    }
    return hash;
  }
  return hashOf(value);
}

function hashOf(value: KeyValue): number {
  let end: number;
  let buf: Buffer;
  if ('S' in value) {
    buf = room(value.S.length * 3 + 1);
    buf[0] = TAG_S;
    end = 1 + buf.write(value.S, 1, 'utf8');
  } else if ('N' in value) {
    buf = room(value.N.length + 1);
    buf[0] = TAG_N;
    end = 1 + buf.write(value.N, 1, 'latin1');
  } else {
    buf = room(value.B.length + 1);
    buf[0] = TAG_B;
    buf.set(value.B, 1);
    end = 1 + value.B.length;
  }
  return fingerprint32(buf.subarray(0, end));
}

/** Writes `hash` as 4 bytes big-endian at `target[start]`; returns `start + 4`. */
export function writeHash(hash: number, target: Uint8Array, start: number): number {
  target[start] = hash >>> 24;
  target[start + 1] = (hash >>> 16) & 0xff;
  target[start + 2] = (hash >>> 8) & 0xff;
  target[start + 3] = hash & 0xff;
  return start + 4;
}

/** Reads a hash written by writeHash. */
export function readHash(buf: Uint8Array, start: number): number {
  return ((buf[start]! << 24) | (buf[start + 1]! << 16) | (buf[start + 2]! << 8) | buf[start + 3]!) >>> 0;
}
