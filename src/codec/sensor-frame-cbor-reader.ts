/** The bounded CBOR reader the sensor frame and ack decoders share. */
import { FrameError, malformed } from './sensor-frame-error.js';
import { MAX_SKIP_DEPTH } from './sensor-frame-format.js';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type Head = { major: number; info: number; arg: number; at: number };

/**
 * Reads the CBOR subset of this format from bytes[pos, end). Arguments above 2^53-1 read as
 * Infinity so every range check refuses them. `onEnd` decides what running out of bytes means.
 */
export class CborReader {
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
