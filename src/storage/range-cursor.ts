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
import type { ValueReader } from './text-values.js';
import { toStorageError } from './storage-error.js';

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
    try {
      return this.step();
    } catch (err) {
      throw toStorageError(err, 'cursor step'); // a damaged page: MDB_PAGE_NOTFOUND, MDB_CORRUPTED
    }
  }

  private step(): IteratorResult<Entry, undefined> {
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
 * The range walk without an iterator: `visit` gets each value (valid only during the call) and its
 * key (a fresh copy: node-lmdb copies every key it returns), and returns false to stop. No result
 * or Entry objects per step, and the end bound is compared in JavaScript (a native Buffer.compare
 * costs more than the loop on keys this short). The caller opens and closes the cursor.
 */
export function walkRange<T>(cursor: LmdbCursor, reader: ValueReader<T>, options: CursorOptions, visit: (value: Uint8Array, key: Uint8Array) => boolean): void {
  const reverse = options.reverse === true;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  for (let key = seekStart(cursor, options); key !== null && remaining > 0; key = reverse ? cursor.goToPrev() : cursor.goToNext()) {
    if (pastEnd(key, options)) return;
    remaining -= 1;
    if (!visit(reader.bytes(reader.current(cursor)), key)) return;
  }
}

/**
 * The range walk for databases whose values are distinct (no two entries hold the same bytes) and
 * whose keys are at least 4 bytes long, giving values only. node-lmdb copies every key it returns
 * into a new Buffer (twice per step: the step and the value read each return one), and a native
 * Buffer costs more than the rest of the step; a cursor opened with openHeadCursor (lmdb-binding.ts)
 * returns each key's first 4 bytes as a number instead, so its step allocates only the value. That
 * cursor can only seek to 4-byte keys, the edges of a block of keys sharing their first 4 bytes (in
 * item databases, a partition key's items, as those bytes are its hash). So the byte-key cursor
 * `keyed` seeks the exact start, and the head cursor from `openHeads()` finds that entry by its
 * value among the first ALIGN_WITHIN entries from its block's edge (the start of a latest-N Query
 * is the edge itself); when it is deeper, `keyed` walks the rest of the start's block and the head
 * cursor takes over at the next block, a 4-byte seek. The head cursor sees no keys, so the end
 * bound becomes a position read beforehand with `keyed`: the entry just past the end (the fence),
 * recognised by its 4-byte head and, when that matches, by its value, which no other entry
 * shares. Values are read and compared through `reader` (Buffers, or strings for text values,
 * text-values.ts). The caller closes both cursors.
 */
export function walkValues<T>(keyed: LmdbCursor, openHeads: () => LmdbCursor<number>, reader: ValueReader<T>, options: CursorOptions, visit: (value: Uint8Array) => boolean): void {
  const reverse = options.reverse === true;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  // In reverse, the seek reads the entry after the start (unless it stops on the start itself):
  // when that entry is in another block, or there is none, the start ends its block, where the
  // head cursor's seek lands exactly (the start of a latest-N Query). No value to compare then.
  let key: Buffer | null;
  let startEndsBlock = false;
  if (reverse && options.start !== undefined) {
    const after = keyed.goToRange(options.start); // first key >= start
    if (after === null) {
      key = keyed.goToLast();
      startEndsBlock = true;
    } else {
      const order = compareKeys(after, options.start);
      key = order > 0 || (order === 0 && options.startExclusive === true) ? keyed.goToPrev() : after;
      startEndsBlock = key !== after && key !== null && after.length >= 4 && key.length >= 4 && !sameHead(after, key);
    }
  } else key = seekStart(keyed, options);
  if (key === null || remaining <= 0 || pastEnd(key, options)) return;
  const heads = openHeads();
  let head: number | null;
  // When aligned, the start's value is already read (and in range: no fence check needed).
  let pending: T | null;
  if (startEndsBlock) {
    head = blockEdge(heads, key, reverse);
    pending = reader.current(heads);
  } else {
    const startValue = reader.current(keyed);
    head = alignOnStart(heads, reader, key, startValue, reverse);
    pending = head === null ? null : startValue;
  }
  if (head === null) {
    const block = key;
    for (; key !== null && remaining > 0; key = reverse ? keyed.goToPrev() : keyed.goToNext()) {
      if (pastEnd(key, options)) return;
      if (!sameHead(key, block)) break;
      remaining -= 1;
      if (!visit(reader.bytes(reader.current(keyed)))) return;
    }
    if (key === null || remaining <= 0 || pastEnd(key, options)) return;
    head = blockEdge(heads, key, reverse);
  }
  const fenceKey = options.end === undefined ? null : fenceOf(keyed, options.end, options.endInclusive === true, reverse);
  const fenceHead = fenceKey === null ? -1 : headNumber(fenceKey);
  // Read only when the walk reaches the fence's block (`keyed` stays on the fence): a walk ended
  // by its limit first, as a latest-N Query usually is, never copies it.
  let fence: T | null = null;
  for (; head !== null; head = reverse ? heads.goToPrev() : heads.goToNext()) {
    let value = pending;
    pending = null;
    if (value === null) {
      value = reader.current(heads);
      if (head === fenceHead && reader.same(value, (fence ??= reader.current(keyed)))) return;
    }
    if (!visit(reader.bytes(value)) || --remaining <= 0) return;
  }
}

/** Entries of a block the head cursor reads looking for the start before leaving the block to `keyed`. */
const ALIGN_WITHIN = 16;

/** Puts `heads` on the entry holding `value` (key `key`) if it is among the first ALIGN_WITHIN from its block's edge. */
function alignOnStart<T>(heads: LmdbCursor<number>, reader: ValueReader<T>, key: Uint8Array, value: T, reverse: boolean): number | null {
  let head = blockEdge(heads, key, reverse);
  for (let i = 0; head !== null && i < ALIGN_WITHIN; i++) {
    if (reader.same(reader.current(heads), value)) return head;
    head = reverse ? heads.goToPrev() : heads.goToNext();
  }
  return null;
}

/** Positions `heads` on the first entry of `key`'s block in the walk's direction (its first key going forward, its last in reverse). */
function blockEdge(heads: LmdbCursor<number>, key: Uint8Array, reverse: boolean): number | null {
  if (!reverse) return heads.goToRange(headNumber(key));
  const next = nextHead(key);
  return next === null || heads.goToRange(next) === null ? heads.goToLast() : heads.goToPrev();
}

/** Positions `cursor` on the first entry beyond the end bound in the walk's direction; its key, or null. */
function fenceOf(cursor: LmdbCursor, end: Uint8Array, endInclusive: boolean, reverse: boolean): Buffer | null {
  const key = cursor.goToRange(end); // first key >= end
  if (!reverse) return key !== null && endInclusive && compareKeys(key, end) === 0 ? cursor.goToNext() : key;
  if (key === null) return cursor.goToLast();
  return !endInclusive && compareKeys(key, end) === 0 ? key : cursor.goToPrev();
}

function sameHead(a: Uint8Array, b: Uint8Array): boolean {
  return a.length < 4 || b.length < 4 || (a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3]);
}

/** Scratch for the native-order number of 4 key bytes, as node-lmdb reads them. */
const headScratch = new Uint8Array(4);
const headView = new Uint32Array(headScratch.buffer);

/** The number a head cursor returns for a key starting with these bytes, and seeks to for those 4 bytes. */
function headNumber(key: Uint8Array): number {
  headScratch.set(key.subarray(0, 4));
  return headView[0]!;
}

/** The seek number of the 4 bytes following `key`'s first 4 in byte order, or null after 0xffffffff. */
function nextHead(key: Uint8Array): number | null {
  const big = ((key[0]! << 24) | (key[1]! << 16) | (key[2]! << 8) | key[3]!) >>> 0;
  if (big === 0xffffffff) return null;
  const n = big + 1;
  headScratch[0] = n >>> 24;
  headScratch[1] = (n >>> 16) & 0xff;
  headScratch[2] = (n >>> 8) & 0xff;
  headScratch[3] = n & 0xff;
  return headView[0]!;
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
