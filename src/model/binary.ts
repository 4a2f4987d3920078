/**
 * Binary values on the wire: strict base64 in, base64 out, and the internal -> wire conversion
 * of whole values and items.
 *
 * Decoding follows DynamoDB's (Coral's) rules: the text length must be a multiple of 4, only the
 * standard alphabet `A-Z a-z 0-9 + /` with at most two trailing `=`, and unused low bits of the
 * last character must be zero (so every byte string has exactly one accepted encoding). Errors
 * are SerializationException with the service's texts (dynalite's captures; "dectected" sic).
 */
import type { AttributeValue, Item, WireItemOutput, WireValueOutput } from './attribute-value.js';
import { SerializationException } from './errors.js';
import { setOwn } from './set-own.js';

const BAD_CHARACTER_MESSAGE = 'Invalid last non-pad Base64 character dectected';

/** Base64 alphabet value per char code; -1 = not in the alphabet. */
const DECODE = new Int8Array(128).fill(-1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
const PAD = 0x3d;

function sextet(s: string, i: number): number {
  const c = s.charCodeAt(i);
  const v = c < 128 ? (DECODE[c] as number) : -1;
  if (v < 0) throw new SerializationException(BAD_CHARACTER_MESSAGE);
  return v;
}

/**
 * Decodes strict base64 into a new Uint8Array (not a pooled Buffer, so the bytes can be kept).
 * @throws SerializationException
 */
export function decodeBase64(s: string): Uint8Array {
  const len = s.length;
  if (len % 4 !== 0) {
    throw new SerializationException(`Base64 encoded length is expected a multiple of 4 bytes but found: ${len}`);
  }
  if (len === 0) return new Uint8Array(0);
  const pad = s.charCodeAt(len - 1) === PAD ? (s.charCodeAt(len - 2) === PAD ? 2 : 1) : 0;
  const out = new Uint8Array((len / 4) * 3 - pad);
  const fullEnd = pad === 0 ? len : len - 4;
  let o = 0;
  for (let i = 0; i < fullEnd; i += 4) {
    const n = (sextet(s, i) << 18) | (sextet(s, i + 1) << 12) | (sextet(s, i + 2) << 6) | sextet(s, i + 3);
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  if (pad === 2) {
    const a = sextet(s, len - 4);
    const b = sextet(s, len - 3);
    if ((b & 0x0f) !== 0) throw new SerializationException(BAD_CHARACTER_MESSAGE);
    out[o] = (a << 2) | (b >> 4);
  } else if (pad === 1) {
    const a = sextet(s, len - 4);
    const b = sextet(s, len - 3);
    const c = sextet(s, len - 2);
    if ((c & 0x03) !== 0) throw new SerializationException(BAD_CHARACTER_MESSAGE);
    out[o++] = (a << 2) | (b >> 4);
    out[o] = ((b & 0x0f) << 4) | (c >> 2);
  }
  return out;
}

/** Standard base64 with padding. */
export function encodeBase64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/**
 * Internal value -> wire value. Binary becomes base64; everything else is shared by reference
 * with the input (no copy unless a binary value sits somewhere inside), so callers must treat the
 * result as read-only.
 */
export function toWireValue(v: AttributeValue): WireValueOutput {
  if ('B' in v) return { B: encodeBase64(v.B) };
  if ('BS' in v) return { BS: v.BS.map(encodeBase64) };
  if ('M' in v) {
    const m = toWireMap(v.M);
    return m === v.M ? (v as WireValueOutput) : { M: m };
  }
  if ('L' in v) {
    const list = v.L;
    let copy: WireValueOutput[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const element = list[i] as AttributeValue;
      const wire = toWireValue(element);
      if (copy === undefined && wire !== element) copy = list.slice(0, i) as WireValueOutput[];
      if (copy !== undefined) copy.push(wire);
    }
    return copy === undefined ? (v as WireValueOutput) : { L: copy };
  }
  return v as WireValueOutput;
}

/** Internal item -> wire item, with the same sharing rules as `toWireValue`. */
export function toWireItem(item: Item): WireItemOutput {
  return toWireMap(item);
}

function toWireMap(map: { readonly [name: string]: AttributeValue }): WireItemOutput {
  let copy: WireItemOutput | undefined;
  for (const name in map) {
    const value = map[name] as AttributeValue;
    const wire = toWireValue(value);
    if (copy === undefined && wire !== value) {
      copy = {};
      for (const earlier in map) {
        if (earlier === name) break;
        setOwn(copy, earlier, map[earlier] as WireValueOutput);
      }
    }
    if (copy !== undefined) setOwn(copy, name, wire);
  }
  return copy ?? (map as WireItemOutput);
}
