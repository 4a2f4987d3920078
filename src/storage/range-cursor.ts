/**
 * Ordered iteration over one database inside a txn. Keys compare as unsigned bytes (memcmp, then
 * length), LMDB's default order.
 *
 * Range contract (`start` is where the walk begins, `end` where it stops, in either direction):
 * - forward:  keys k with start <= k (start < k if startExclusive), and k < end (k <= end if
 *             endInclusive), ascending.
 * - reverse:  keys k with k <= start (k < start if startExclusive), and k > end (k >= end if
 *             endInclusive), descending.
 * Omitted bounds are open. `limit` caps the number of entries yielded.
 *
 * Lifetime contract: each Entry's `value` is valid only until the iterator advances or ends, or the
 * txn makes another storage call (today it is a copy, see txn.ts, but callers must not rely on
 * that). `key` is a fresh copy that stays valid. The cursor closes when iteration ends, on `break`
 * (return()), or at the end of the txn, whichever comes first.
 */
import type { LmdbCursor, LmdbEnv } from './lmdb-binding.js';

export interface Entry {
  key: Uint8Array;
  value: Uint8Array;
}

export interface CursorOptions {
  /** Where the walk begins: the lower bound going forward, the upper bound in reverse. */
  start?: Uint8Array;
  startExclusive?: boolean;
  /** Where the walk stops: the upper bound going forward, the lower bound in reverse. Exclusive by default. */
  end?: Uint8Array;
  endInclusive?: boolean;
  reverse?: boolean;
  /** At most this many entries. */
  limit?: number;
}

const EMPTY = new Uint8Array(0);
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

export class RangeIterator implements IterableIterator<Entry> {
  private cursor: LmdbCursor | null;
  private started = false;
  private remaining: number;

  constructor(
    private readonly env: LmdbEnv,
    cursor: LmdbCursor,
    private readonly options: CursorOptions,
    private readonly onClose: (iterator: RangeIterator) => void,
  ) {
    this.cursor = cursor;
    this.remaining = options.limit ?? Number.POSITIVE_INFINITY;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<Entry, undefined> {
    const cursor = this.cursor;
    if (cursor === null) return DONE;
    let key: Buffer | null;
    if (this.started) {
      key = this.options.reverse === true ? cursor.goToPrev() : cursor.goToNext();
    } else {
      this.started = true;
      key = this.seek(cursor);
    }
    if (key === null || this.pastEnd(key) || this.remaining <= 0) {
      this.close();
      return DONE;
    }
    this.remaining -= 1;
    // A copy: see txn.ts for why copying beats node-lmdb's zero-copy views on item-sized values.
    const value = cursor.getCurrentBinary();
    return { done: false, value: { key, value: value ?? EMPTY } };
  }

  return(): IteratorResult<Entry, undefined> {
    this.close();
    return DONE;
  }

  /** Idempotent; called by the txn at its end for cursors the caller abandoned. */
  close(): void {
    const cursor = this.cursor;
    if (cursor === null) return;
    this.cursor = null;
    cursor.close();
    this.onClose(this);
  }


  private seek(cursor: LmdbCursor): Buffer | null {
    return seekStart(cursor, this.options);
  }

  private pastEnd(key: Uint8Array): boolean {
    return pastEnd(key, this.options);
  }
}

/**
 * The range walk without an iterator: `visit` gets each value (valid only during the call) and
 * returns false to stop. No result or Entry objects per step, and the end bound is compared in
 * JavaScript (a native Buffer.compare costs more than the loop on keys this short). Query and Scan
 * walk this way; the caller opens and closes the cursor.
 */
export function walkRange(cursor: LmdbCursor, options: CursorOptions, visit: (value: Uint8Array) => boolean): void {
  const reverse = options.reverse === true;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  for (let key = seekStart(cursor, options); key !== null && remaining > 0; key = reverse ? cursor.goToPrev() : cursor.goToNext()) {
    if (pastEnd(key, options)) return;
    remaining -= 1;
    if (!visit(cursor.getCurrentBinary() ?? EMPTY)) return;
  }
}

function seekStart(cursor: LmdbCursor, options: CursorOptions): Buffer | null {
  const { start, startExclusive = false, reverse = false } = options;
  if (start === undefined) return reverse ? cursor.goToLast() : cursor.goToFirst();
  let key = cursor.goToRange(start); // first key >= start
  if (!reverse) {
    if (key !== null && startExclusive && compareKeys(key, start) === 0) key = cursor.goToNext();
    return key;
  }
  if (key === null) return cursor.goToLast();
  const order = compareKeys(key, start);
  return order > 0 || (order === 0 && startExclusive) ? cursor.goToPrev() : key;
}

function pastEnd(key: Uint8Array, options: CursorOptions): boolean {
  const end = options.end;
  if (end === undefined) return false;
  const order = compareKeys(key, end);
  if (options.reverse === true) return options.endInclusive === true ? order < 0 : order <= 0;
  return options.endInclusive === true ? order > 0 : order >= 0;
}

/** memcmp then length, as LMDB orders keys; negative, zero or positive. */
export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
