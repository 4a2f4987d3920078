/** COBS framing of the serial link (same bytes as the C library's etb_cobs_*). */
import { MAX_SENSOR_FRAME_BYTES } from '../model/limits.js';
import { FrameError } from './sensor-frame-error.js';

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
