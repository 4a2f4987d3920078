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
  const afterPrefix = prefixSuccessor(prefix);
  const at = (v: KeyValue) => concat(prefix, encodeKeyValue(v));
  // Index keys continue after the index sort key (the table's keys follow, index-entry.ts), so
  // "sort key = v" is every key starting with at(v): [at(v), after(v)). Encodings are prefix-free,
  // so for a table (nothing follows) this admits exactly at(v), as before.
  const after = (v: KeyValue) => prefixSuccessor(at(v));
  const base = { hash, prefix };
  const sort = range.sort;
  if (!sort) return { ...base, lower: prefix, lowerInclusive: true, upper: afterPrefix, upperInclusive: false };
  switch (sort.op) {
    case '=':
      return { ...base, lower: at(sort.value), lowerInclusive: true, upper: after(sort.value), upperInclusive: false };
    case '<':
      return { ...base, lower: prefix, lowerInclusive: true, upper: at(sort.value), upperInclusive: false };
    case '<=':
      return { ...base, lower: prefix, lowerInclusive: true, upper: after(sort.value), upperInclusive: false };
    case '>':
      return { ...base, lower: after(sort.value), lowerInclusive: true, upper: afterPrefix, upperInclusive: false };
    case '>=':
      return { ...base, lower: at(sort.value), lowerInclusive: true, upper: afterPrefix, upperInclusive: false };
    case 'BETWEEN':
      return { ...base, lower: at(sort.low), lowerInclusive: true, upper: after(sort.high), upperInclusive: false };
    case 'begins_with': {
      const encoded = encodeKeyValue(sort.prefix);
      const body = concat(prefix, encoded.subarray(0, encoded.length - TERMINATOR_BYTES));
      return { ...base, lower: body, lowerInclusive: true, upper: prefixSuccessor(body), upperInclusive: false };
    }
  }
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
