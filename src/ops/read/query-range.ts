/**
 * Turns an analysed KeyConditionExpression into cursor bounds over base-item key bytes
 * (table/item-key.ts): the partition key fixes the prefix hash + pkPart, the sort-key condition
 * narrows the range of enc(sk) after it. Bounds are inclusive/exclusive exactly as the operators
 * are, over full keys; `orderedWalk` maps them onto stored keys (codec/item-key.ts overflow keys)
 * and yields exactly the records inside them, in full-key order.
 */
import { compareBytes, maxKeyValueBytes, writeKeyValue } from '../../codec/key-bytes.js';
import { KeySlab } from '../../codec/key-slab.js';
import type { KeyValue } from '../../model/attribute-value.js';
import type { KeyRange } from '../../expr/index.js';
import { encodePartitionPrefix, inOverflowRun, PREFIX_BYTES, type EncodedKey } from '../../codec/item-key.js';
import type { Database } from '../../storage/database.js';
import type { CursorOptions } from '../../storage/range-cursor.js';
import type { ReadTxn } from '../../storage/txn.js';

export type KeyBounds = {
  readonly hash: number;
  /** The stored-key prefix of the partition key's entries (its placed prefix in a partition-id table). */
  readonly prefix: Uint8Array;
  /** The partition key's prefix in codec/item-key.ts's layout, which full keys of ExclusiveStartKeys start with. */
  readonly keyPrefix: Uint8Array;
  /** The partition key has no entries (a partition-id table's key without an id): nothing to walk. */
  readonly empty: boolean;
  readonly lower: Uint8Array;
  readonly lowerInclusive: boolean;
  /** undefined = no bound beyond the prefix. */
  readonly upper: Uint8Array;
  readonly upperInclusive: boolean;
};

/** S and B encodings end with the terminator 0x00 0x01; the bytes before it are the value's escaped body. */
const TERMINATOR_BYTES = 2;

/**
 * `place`: the stored prefix of a partition key's entries given its prefix in item-key.ts's layout
 * (Table.storedPrefixIn for a partition-id table's items; undefined: it has none); the identity by
 * default, as for hash-first tables and every index.
 */
export function queryBounds(range: KeyRange, place?: (encoded: EncodedKey) => Uint8Array | undefined): KeyBounds {
  const encoded = encodePartitionPrefix(range.partitionValue);
  const hash = encoded.hash;
  const keyPrefix = offHeap(encoded.bytes, encoded.bytes.length);
  const placed = place === undefined ? keyPrefix : place(encoded);
  const empty = placed === undefined;
  const prefix = placed ?? keyPrefix;
  const bounds = (hash: number, prefix: Uint8Array, lower: Uint8Array, upper: Uint8Array): KeyBounds => ({ hash, prefix, keyPrefix, empty, lower, lowerInclusive: true, upper, upperInclusive: false });
  const sort = range.sort;
  // Index keys continue after the index sort key (the table's keys follow, index-entry.ts), so
  // "sort key = v" is every key starting with at(v): [at(v), after(v)). Encodings are prefix-free,
  // so for a table (nothing follows) this admits exactly at(v).
  if (!sort) return bounds(hash, prefix, prefix, prefixSuccessor(prefix));
  switch (sort.op) {
    case '=':
      return bounds(hash, prefix, at(prefix, sort.value), after(prefix, sort.value));
    case '<':
      return bounds(hash, prefix, prefix, at(prefix, sort.value));
    case '<=':
      return bounds(hash, prefix, prefix, after(prefix, sort.value));
    case '>':
      return bounds(hash, prefix, after(prefix, sort.value), prefixSuccessor(prefix));
    case '>=':
      return bounds(hash, prefix, at(prefix, sort.value), prefixSuccessor(prefix));
    case 'BETWEEN':
      return bounds(hash, prefix, at(prefix, sort.low), after(prefix, sort.high));
    case 'begins_with': {
      const encoded = at(prefix, sort.prefix);
      const body = new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.length - TERMINATOR_BYTES);
      return bounds(hash, prefix, body, prefixSuccessor(body));
    }
  }
}

/**
 * Visits the records of `db` whose full keys lie in `bounds` and, when `start` (an
 * ExclusiveStartKey's full key) is given, strictly after it in the walk's direction, in full-key
 * order (descending when !forward), until `visit` returns false. A record is valid only during its
 * visit. Stored keys order like full keys except inside a run of keys sharing their first
 * PREFIX_BYTES bytes (codec/item-key.ts): the walk widens a bound longer than that prefix to the
 * prefix, buffers each run (copies), drops the run's records outside the exact bounds and sorts the
 * rest by `fullKeyOf(record)`. Keys shorter than the prefix, the common case, pass straight through
 * from the storage walk (ReadTxn.each: no iterator or entry object per record).
 */
export function orderedWalk(
  txn: ReadTxn,
  db: Database,
  bounds: KeyBounds,
  forward: boolean,
  start: Uint8Array | undefined,
  fullKeyOf: (record: Uint8Array) => Uint8Array,
  visit: (record: Uint8Array) => boolean,
): void {
  const { lower, lowerInclusive, upper, upperInclusive } = startingAfter(bounds, forward, start);
  const lowerStored = lower.length > PREFIX_BYTES ? lower.subarray(0, PREFIX_BYTES) : lower;
  const lowerStoredInclusive = lower.length > PREFIX_BYTES ? true : lowerInclusive;
  const upperStored = upper.length > PREFIX_BYTES ? prefixSuccessor(upper.subarray(0, PREFIX_BYTES)) : upper;
  const upperStoredInclusive = upper.length > PREFIX_BYTES ? false : upperInclusive;
  const options: CursorOptions = forward
    ? { start: lowerStored, startExclusive: !lowerStoredInclusive, end: upperStored, endInclusive: upperStoredInclusive }
    : { reverse: true, start: upperStored, startExclusive: !upperStoredInclusive, end: lowerStored, endInclusive: lowerStoredInclusive };
  const inside = (full: Uint8Array): boolean => {
    const l = compareBytes(full, lower);
    if (l < 0 || (l === 0 && !lowerInclusive)) return false;
    const u = compareBytes(full, upper);
    return u < 0 || (u === 0 && upperInclusive);
  };
  let run: { full: Uint8Array; record: Uint8Array }[] = [];
  let runKey: Uint8Array | undefined;
  let more = true;
  txn.each(db, options, (record, key) => {
    if (!inOverflowRun(key)) {
      if (run.length > 0 && !(more = visitRun(run, forward, visit))) return false;
      if (run.length > 0) run = [];
      runKey = undefined;
      return (more = visit(record));
    }
    if (runKey !== undefined && !samePrefix(key, runKey)) {
      if (!(more = visitRun(run, forward, visit))) return false;
      run = [];
    }
    runKey = key;
    const copy = record.slice();
    const full = fullKeyOf(copy);
    if (inside(full)) run.push({ full, record: copy });
    return true;
  });
  if (more && run.length > 0) visitRun(run, forward, visit);
}

/**
 * The storage walk of `bounds` (strictly after `start` when given) where no stored key reaches the
 * overflow prefix (ReadTarget.keysMayOverflow is false): stored keys are the full keys, so the
 * bounds apply as they are and the walk needs no keys (ReadTxn.eachValue).
 */
export function walkOptions(bounds: KeyBounds, forward: boolean, start: Uint8Array | undefined): CursorOptions {
  const { lower, lowerInclusive, upper, upperInclusive } = startingAfter(bounds, forward, start);
  return forward
    ? { start: lower, startExclusive: !lowerInclusive, end: upper, endInclusive: upperInclusive }
    : { reverse: true, start: upper, startExclusive: !upperInclusive, end: lower, endInclusive: lowerInclusive };
}

/** An ExclusiveStartKey inside the range moves the starting bound to just past it; one beyond the far bound leaves an empty walk. */
function startingAfter(bounds: KeyBounds, forward: boolean, start: Uint8Array | undefined) {
  let { lower, lowerInclusive, upper, upperInclusive } = bounds;
  if (start !== undefined && forward && compareBytes(start, lower) >= 0) [lower, lowerInclusive] = [start, false];
  if (start !== undefined && !forward && compareBytes(start, upper) <= 0) [upper, upperInclusive] = [start, false];
  return { lower, lowerInclusive, upper, upperInclusive };
}

/** Visits a run's records in full-key order; false when `visit` stopped the walk. */
function visitRun(run: { full: Uint8Array; record: Uint8Array }[], forward: boolean, visit: (record: Uint8Array) => boolean): boolean {
  run.sort(forward ? (a, b) => compareBytes(a.full, b.full) : (a, b) => compareBytes(b.full, a.full));
  for (const entry of run) if (!visit(entry.record)) return false;
  return true;
}

function samePrefix(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < PREFIX_BYTES; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The full key of `bounds`' layout for `full`, a full key in item-key.ts's layout that starts with
 * `bounds.keyPrefix` (an ExclusiveStartKey inside the query's partition key, or a record's key).
 */
export function placedFullKey(bounds: KeyBounds, full: Uint8Array): Uint8Array {
  if (bounds.prefix === bounds.keyPrefix) return full;
  const out = new Uint8Array(bounds.prefix.length + full.length - bounds.keyPrefix.length);
  out.set(bounds.prefix, 0);
  out.set(full.subarray(bounds.keyPrefix.length), bounds.prefix.length);
  return out;
}

/** Cursor bounds, carved off-heap (codec/key-slab.ts): a Query would otherwise pay a native move per bound it seeks to. */
const bounds = new KeySlab(8192);

/** An off-heap copy of `bytes`' first `length` bytes. */
function offHeap(bytes: Uint8Array, length: number): Uint8Array {
  const into = bounds.with(length);
  const start = bounds.used;
  for (let i = 0; i < length; i++) into[start + i] = bytes[i]!;
  return bounds.carve(start + length);
}

function at(prefix: Uint8Array, value: KeyValue): Uint8Array {
  const into = bounds.with(prefix.length + maxKeyValueBytes(value));
  const start = bounds.used;
  into.set(prefix, start);
  return bounds.carve(writeKeyValue(value, into, start + prefix.length));
}

function after(prefix: Uint8Array, value: KeyValue): Uint8Array {
  return prefixSuccessor(at(prefix, value));
}

/** The smallest byte string greater than every string that starts with `prefix` (a new array, off-heap). */
export function prefixSuccessor(prefix: Uint8Array): Uint8Array {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return offHeap(ALL_FF, ALL_FF.length);
  const out = offHeap(prefix, end);
  out[end - 1]!++;
  return out;
}

const ALL_FF = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]);
