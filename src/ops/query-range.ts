/**
 * Turns an analysed KeyConditionExpression into cursor bounds over base-item key bytes
 * (table/item-key.ts): the partition key fixes the prefix hash + pkPart, the sort-key condition
 * narrows the range of enc(sk) after it. Bounds are inclusive/exclusive exactly as the operators
 * are, so the cursor never reads an item the condition excludes.
 */
import { encodeKeyValue } from '../codec/key-bytes.js';
import type { KeyValue } from '../model/attribute-value.js';
import type { KeyRange } from '../expr/index.js';
import { encodePartitionPrefix } from '../codec/item-key.js';

export type KeyBounds = {
  readonly hash: number;
  readonly prefix: Uint8Array;
  readonly lower: Uint8Array;
  readonly lowerInclusive: boolean;
  /** undefined = no bound beyond the prefix. */
  readonly upper: Uint8Array;
  readonly upperInclusive: boolean;
};

/** S and B encodings end with the terminator 0x00 0x01; the bytes before it are the value's escaped body. */
const TERMINATOR_BYTES = 2;

export function queryBounds(range: KeyRange): KeyBounds {
  const { hash, bytes: prefix } = encodePartitionPrefix(range.partitionValue);
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
      const encoded = encodeKeyValue(sort.prefix);
      const body = concat(prefix, encoded.subarray(0, encoded.length - TERMINATOR_BYTES));
      return bounds(hash, prefix, body, prefixSuccessor(body));
    }
  }
}

/** Every bound is [lower, upper): the operators above map onto it exactly. */
function bounds(hash: number, prefix: Uint8Array, lower: Uint8Array, upper: Uint8Array): KeyBounds {
  return { hash, prefix, lower, lowerInclusive: true, upper, upperInclusive: false };
}

function at(prefix: Uint8Array, value: KeyValue): Uint8Array {
  return concat(prefix, encodeKeyValue(value));
}

function after(prefix: Uint8Array, value: KeyValue): Uint8Array {
  return prefixSuccessor(at(prefix, value));
}

/** The smallest byte string greater than every string that starts with `prefix`. */
export function prefixSuccessor(prefix: Uint8Array): Uint8Array {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff]);
  const out = prefix.slice(0, end);
  out[end - 1]!++;
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
