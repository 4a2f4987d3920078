/**
 * A deliberately small CBOR (RFC 8949) writer and reader for the envelopes of stream/ and sync/:
 * change records, sync batches and acks. Items inside them are already CBOR (codec/item-value.ts)
 * and travel as embedded CBOR (tag 24 around a byte string), so this module never walks an item.
 *
 * Supported data items, definite lengths only:
 *   uint (major 0, up to 2^53 - 1) | text (major 3) | bytes (major 2) | array (major 4)
 *   | tag(24) bytes | false | true | null
 * Anything else makes the reader throw CborError. Negative integers, floats and maps are not part
 * of any envelope; leaving them out keeps the C side's decoder just as small.
 *
 * Why not cbor-x (the project's CBOR library; issue 13.10), measured with cbor-x 1.6.8 and kept
 * as the independent oracle in test/codec/cbor-envelope.test.ts instead:
 * - Types do not survive its encoder: a JS number of 2^32 or more (every HLC ms, timeMs, large
 *   sequences) is written as a float64, not the uint the grammars above require; only a BigInt
 *   becomes a uint, and then always in 9 bytes (0x1b), never in the shortest form, so stored
 *   records would change size and bytes with the encoder (the outbox budget counts stored bytes,
 *   and records travel "byte for byte as stored"). Its reader returns every 64-bit uint as a
 *   BigInt, so both directions would need a conversion walk.
 * - Its reader accepts what the grammars refuse (any tag, floats, maps, its record extension) and
 *   recurses without a depth bound (100,000 nested arrays end in a RangeError from the stack),
 *   so a hub would still need this file's shape checks after it, on hostile input.
 * - Nothing to gain: an envelope is a handful of heads around embedded items, which are already
 *   the item codec's bytes (codec/item-value.ts), which is where decimals and binary live.
 * The tests prove both directions interoperate with cbor-x (plain CBOR, types intact).
 */

export const TAG_EMBEDDED_CBOR = 24;

/** Bytes that are an encoded CBOR data item; written as tag 24 around a byte string. */
export class Embedded {
  constructor(readonly bytes: Uint8Array) {}
}

export type CborValue = number | string | Uint8Array | Embedded | boolean | null | readonly CborValue[];

export class CborError extends Error {}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeCbor(value: CborValue): Uint8Array {
  const w = new Writer();
  w.value(value);
  return w.finish();
}

/** Decodes exactly one data item filling `bytes`. Byte strings are views of `bytes` (no copy). */
export function decodeCbor(bytes: Uint8Array): CborValue {
  const r = new Reader(bytes);
  const value = r.value(0);
  if (r.pos !== bytes.length) throw new CborError(`trailing bytes after CBOR item at ${r.pos}`);
  return value;
}

class Writer {
  private buf = new Uint8Array(256);
  private pos = 0;

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  value(v: CborValue): void {
    if (v === null) return this.byte(0xf6);
    if (v === true) return this.byte(0xf5);
    if (v === false) return this.byte(0xf4);
    if (typeof v === 'number') return this.head(0, v);
    if (typeof v === 'string') {
      const b = encoder.encode(v);
      this.head(3, b.length);
      return this.raw(b);
    }
    if (v instanceof Uint8Array) {
      this.head(2, v.length);
      return this.raw(v);
    }
    if (v instanceof Embedded) {
      this.head(6, TAG_EMBEDDED_CBOR);
      this.head(2, v.bytes.length);
      return this.raw(v.bytes);
    }
    this.head(4, v.length);
    for (const x of v) this.value(x);
  }

  private head(major: number, n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new CborError(`not an unsigned safe integer: ${n}`);
    const m = major << 5;
    if (n < 24) return this.byte(m | n);
    if (n < 0x100) {
      this.byte(m | 24);
      return this.byte(n);
    }
    if (n < 0x10000) {
      this.ensure(3);
      this.buf[this.pos++] = m | 25;
      this.buf[this.pos++] = n >>> 8;
      this.buf[this.pos++] = n & 0xff;
      return;
    }
    if (n < 0x1_0000_0000) {
      this.ensure(5);
      this.buf[this.pos++] = m | 26;
      new DataView(this.buf.buffer).setUint32(this.pos, n);
      this.pos += 4;
      return;
    }
    this.ensure(9);
    this.buf[this.pos++] = m | 27;
    const view = new DataView(this.buf.buffer);
    view.setUint32(this.pos, Math.floor(n / 0x1_0000_0000));
    view.setUint32(this.pos + 4, n >>> 0);
    this.pos += 8;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  private raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
}

const MAX_DEPTH = 16;

class Reader {
  pos = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  value(depth: number): CborValue {
    if (depth > MAX_DEPTH) throw new CborError('CBOR nested too deeply');
    const ib = this.take(1)[0]!;
    const major = ib >> 5;
    const info = ib & 0x1f;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      throw new CborError(`unsupported simple value or float 0x${ib.toString(16)}`);
    }
    const n = this.argument(info);
    switch (major) {
      case 0:
        return n;
      case 2:
        return this.take(n);
      case 3:
        try {
          return decoder.decode(this.take(n));
        } catch {
          throw new CborError('invalid UTF-8 in CBOR text');
        }
      case 4: {
        if (n > this.bytes.length - this.pos) throw new CborError('CBOR array longer than its input');
        const out: CborValue[] = [];
        for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
        return out;
      }
      case 6: {
        if (n !== TAG_EMBEDDED_CBOR) throw new CborError(`unsupported CBOR tag ${n}`);
        const inner = this.take(1)[0]!;
        if (inner >> 5 !== 2) throw new CborError('tag 24 must wrap a byte string');
        return new Embedded(this.take(this.argument(inner & 0x1f)));
      }
      default:
        throw new CborError(`unsupported CBOR major type ${major}`);
    }
  }

  private argument(info: number): number {
    if (info < 24) return info;
    if (info === 24) return this.take(1)[0]!;
    if (info === 25) return this.read(2, () => this.view.getUint16(this.pos - 2));
    if (info === 26) return this.read(4, () => this.view.getUint32(this.pos - 4));
    if (info === 27) {
      const n = this.read(8, () => this.view.getUint32(this.pos - 8) * 0x1_0000_0000 + this.view.getUint32(this.pos - 4));
      if (!Number.isSafeInteger(n)) throw new CborError('CBOR integer beyond 2^53');
      return n;
    }
    throw new CborError(`unsupported CBOR length encoding ${info}`);
  }

  private read(n: number, get: () => number): number {
    this.take(n);
    return get();
  }

  private take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new CborError('CBOR input truncated');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}
