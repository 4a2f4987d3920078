/**
 * Text values: reading a value without a native Buffer.
 *
 * node-lmdb returns a value either as a Buffer (a native allocation with its own backing store:
 * ~0.6 µs of a ~0.9 µs cursor step on item-sized values) or as a JS string made from the value's
 * bytes read as UTF-16 (~0.2 µs), which it only accepts for values of even length whose last
 * 16-bit unit is zero (the terminator it drops). A database whose every value has that shape (a
 * "text value") is read as strings, and each string is written back into one reused scratch
 * Buffer (Buffer#write 'utf16le': a memcpy of the string's units), which gives the value's exact
 * bytes, terminator included: JS strings hold any 16-bit units (lone surrogates too) and V8 keeps
 * one-byte strings' units as they were. On a little-endian host only: node-lmdb reads the units
 * in native order and Buffer writes them little-endian.
 *
 * Which databases hold only text values is the caller's declaration (Store.database's
 * `textValues`) plus the store's text-values marker (store.ts), written once every value of every
 * such database is a text value (table/text-records.ts migrates older stores); until then they
 * are read as Buffers.
 */
import { endianness } from 'node:os';
import type { LmdbCursor } from './lmdb-binding.js';

/** Whether this host reads text values back byte for byte (see above). */
export const TEXT_READS_SUPPORTED = endianness() === 'LE';

/** Whether `value` has the shape LMDB's string read accepts: even length, ending in a zero 16-bit unit. */
export function isTextValue(value: Uint8Array): boolean {
  const n = value.length;
  return n >= 2 && (n & 1) === 0 && value[n - 1] === 0 && value[n - 2] === 0;
}

/**
 * The value under a cursor as a range walk reads it (range-cursor.ts): `T` is what the walk keeps
 * and compares (a start or fence value), `bytes` what it hands to its visitor.
 */
export interface ValueReader<T> {
  current(cursor: LmdbCursor<Buffer> | LmdbCursor<number>): T;
  same(a: T, b: T): boolean;
  /** The value's bytes, valid until the next read through the same reader. */
  bytes(value: T): Uint8Array;
}

const EMPTY = new Uint8Array(0);

export const BINARY_VALUES: ValueReader<Uint8Array> = {
  current: (cursor) => cursor.getCurrentBinary() ?? EMPTY,
  same: sameBytes,
  bytes: (value) => value,
};

/** The scratch a reader keeps: records are rarely larger, and a few readers are pooled per store. */
const KEPT_SCRATCH_BYTES = 64 * 1024;

/** Views of the scratch kept per reader, by length (see bytes). */
const VIEW_SLOTS = 64;

/** Reads text values through one scratch Buffer: each value's bytes are valid until the next. */
export class TextValues implements ValueReader<string> {
  private scratch = Buffer.allocUnsafeSlow(16 * 1024);
  /**
   * Views of the scratch's first bytes, one per slot of lengths (slot = length / 2 mod
   * VIEW_SLOTS): a value of a length read before is handed out in the same view object (~35 ns
   * less than a new Uint8Array on an existing buffer, per get and per item of a walk). The bytes
   * it shows are the same either way: every view of this reader shows the scratch, which the
   * next read overwrites.
   */
  private views: (Uint8Array | null)[] = new Array<Uint8Array | null>(VIEW_SLOTS).fill(null);

  current(cursor: LmdbCursor<Buffer> | LmdbCursor<number>): string {
    return cursor.getCurrentString() ?? '';
  }

  same(a: string, b: string): boolean {
    return a === b;
  }

  bytes(text: string): Uint8Array {
    const length = 2 * text.length + 2;
    let scratch = this.scratch;
    if (length > scratch.length) {
      // A larger value (items reach 400 KB) gets a buffer of its own rather than a kept scratch.
      if (length > KEPT_SCRATCH_BYTES) scratch = Buffer.allocUnsafeSlow(length);
      else {
        this.scratch = scratch = Buffer.allocUnsafeSlow(KEPT_SCRATCH_BYTES);
        this.views.fill(null);
      }
    }
    scratch.write(text, 0, 'utf16le');
    scratch[length - 2] = 0;
    scratch[length - 1] = 0;
    // A plain Uint8Array, not a Buffer: a caller's slice() then copies (Buffer#slice is a view).
    if (scratch !== this.scratch) return new Uint8Array(scratch.buffer, scratch.byteOffset, length);
    const slot = (length >> 1) & (VIEW_SLOTS - 1);
    let view = this.views[slot] ?? null;
    if (view === null || view.length !== length) this.views[slot] = view = new Uint8Array(scratch.buffer, scratch.byteOffset, length);
    return view;
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
