/**
 * Storage keys of base items:
 *
 *   key    := stored(full)
 *   full   := hash:u32be pkPart [enc(sk)]
 *   pkPart := 0x01 enc(pk)                  when enc(pk) is at most INLINE_PK_BYTES long
 *           | 0x02 sha256(enc(pk))[0..20]   otherwise
 *   hash   := codec/partition-hash.ts fingerprint of the partition key value
 *   enc    := codec/key-bytes.ts order-preserving, prefix-free value encoding
 *   stored(f) := f                                       when f is at most 511 bytes
 *              | f[0..PREFIX_BYTES] sha256(f)[0..16]     otherwise (an overflow key)
 *
 * Because the hash comes first, one partition key's items are contiguous and sorted by sort key,
 * and a partition (a hash range) is one contiguous key range. LMDB keys are at most 511 bytes, while
 * DynamoDB allows 2,048-byte partition keys and 1,024-byte sort keys (whose encoding may reach
 * 2,050 bytes): long partition keys are replaced by a digest, which is safe because DynamoDB
 * defines no order across partition keys, only within one, and the item itself still carries the
 * full key. A full key longer than 511 bytes keeps its first PREFIX_BYTES (495) bytes followed by a
 * digest of the whole. Memcmp order of stored keys then equals the order of full keys except among
 * keys at least PREFIX_BYTES long that share their first PREFIX_BYTES bytes (a "run"): such keys are
 * contiguous in LMDB, and ordered readers (Query, ops/read/query-range.ts) read the whole run and sort it
 * by the full keys, which they recompute from the records (every record carries its key attributes).
 * Keys of at most 511 bytes are stored exactly as before overflow keys existed, so older stores read
 * unchanged.
 */
import { createHash } from 'node:crypto';
import { encodeKeyValue, keyValueEnd, maxKeyValueBytes, writeKeyValue, type KeyType } from './key-bytes.js';
import { partitionHash, readHash, writeHash } from './partition-hash.js';
import { KeySlab } from './key-slab.js';
import type { Item, KeyValue } from '../model/attribute-value.js';
import type { PrimaryKeySchema } from '../model/key-schema.js';
import { MAX_STORED_KEY_BYTES } from '../model/limits.js';

export const HASH_BYTES = 4;
const INLINE_PK_BYTES = 128;
const INLINE_TAG = 0x01;
const DIGEST_TAG = 0x02;
const DIGEST_BYTES = 20;
const OVERFLOW_DIGEST_BYTES = 16;
/** Bytes of the full key an overflow key keeps; stored keys this long or longer may need a re-sort. */
export const PREFIX_BYTES = MAX_STORED_KEY_BYTES - OVERFLOW_DIGEST_BYTES;

/**
 * A key in this layout (the item's identity: sync records, the expiry index and index entries name
 * items by it). `pkEnd`: where the partition key part ends in `bytes` (the sort key's encoding
 * follows), when the encoder knew it; `full`: the untruncated key when `bytes` is an overflow key.
 * A table of the partition-id layout stores its items under placedKey(...) of this key instead.
 */
export type EncodedKey = { readonly hash: number; readonly bytes: Uint8Array; readonly pkEnd?: number; readonly full?: Uint8Array };

/** Storage key bytes for an item or key whose key attributes were already validated against `schema`. */
export function encodeItemKey(item: Item, schema: PrimaryKeySchema): EncodedKey {
  const full = encodeFullItemKey(item, schema);
  return full.bytes.length <= MAX_STORED_KEY_BYTES ? full : { hash: full.hash, bytes: storedKey(full.bytes), pkEnd: full.pkEnd, full: full.bytes };
}

/** The full (untruncated) key bytes, whose memcmp order is DynamoDB's order within a partition key. */
export function encodeFullItemKey(item: Item, schema: PrimaryKeySchema): EncodedKey {
  const pk = item[schema.partitionKey.name] as KeyValue;
  if (!schema.sortKey) return encodeFullKey(pk, undefined);
  const sk = item[schema.sortKey.name] as KeyValue;
  // A missing sort key is the caller's bug: encodeKeyValue throws on it, as before.
  return encodeFullKey(pk, sk ?? encodeKeyValue(sk));
}

/** Storage key bytes of validated key values (`sk` when the schema has a sort key). */
export function encodeKeyValues(pk: KeyValue, sk: KeyValue | undefined): EncodedKey {
  const full = encodeFullKey(pk, sk);
  return full.bytes.length <= MAX_STORED_KEY_BYTES ? full : { hash: full.hash, bytes: storedKey(full.bytes), pkEnd: full.pkEnd, full: full.bytes };
}

/** Reused by encodeFullKey for keys too long for the slab; every key with an inline partition key part fits. */
const SCRATCH = new Uint8Array(HASH_BYTES + 1 + 2 * (2048 * 3 + 2));

/** Keys carved off-heap (key-slab.ts); a key whose worst case exceeds SLAB_MAX_KEY takes the scratch and is copied out. */
const SLAB_BYTES = 8192;
const SLAB_MAX_KEY = 1024;
const keys = new KeySlab(SLAB_BYTES);

function encodeFullKey(pk: KeyValue, sk: KeyValue | undefined): EncodedKey {
  // The common case in one pass: hash, tag and both values written once, into the slab (or,
  // for a long worst case, the scratch, copied out).
  const room = HASH_BYTES + 1 + maxKeyValueBytes(pk) + (sk === undefined ? 0 : maxKeyValueBytes(sk));
  const inSlab = room <= SLAB_MAX_KEY;
  const into = inSlab ? keys.with(room) : SCRATCH;
  const start = inSlab ? keys.used : 0;
  const pkEnd = inSlab || room <= SCRATCH.length ? writeKeyValue(pk, into, start + HASH_BYTES + 1) : Infinity;
  if (pkEnd - start - HASH_BYTES - 1 <= INLINE_PK_BYTES) {
    const hash = partitionHash(pk);
    writeHash(hash, into, start);
    into[start + HASH_BYTES] = INLINE_TAG;
    const end = sk === undefined ? pkEnd : writeKeyValue(sk, into, pkEnd);
    if (!inSlab) return { hash, bytes: SCRATCH.slice(0, end), pkEnd };
    return { hash, bytes: keys.carve(end), pkEnd: pkEnd - start };
  }
  const prefix = encodePartitionPrefix(pk);
  if (!sk) return prefix;
  const skBytes = encodeKeyValue(sk);
  const bytes = new Uint8Array(prefix.bytes.length + skBytes.length);
  bytes.set(prefix.bytes, 0);
  bytes.set(skBytes, prefix.bytes.length);
  return { hash: prefix.hash, bytes, pkEnd: prefix.bytes.length };
}

/** The scratch of encodeLookupKey: off-heap (more than 64 bytes), as node-lmdb wants keys. */
const LOOKUP = new Uint8Array(SLAB_MAX_KEY);
/** Views of LOOKUP's first bytes, one per slot of lengths (length mod 64). */
const lookupViews: (Uint8Array | null)[] = new Array<Uint8Array | null>(64).fill(null);

/**
 * encodeKeyValues for a key used once and at once (a point read): the same hash and bytes, but
 * the bytes are a view of a reused scratch, valid until the next call, handed out in the same
 * view object for a length seen before (~35 ns less than a new view, and no slab space). Keys
 * the scratch cannot hold whole (a digested partition key, an overflow key, a long worst case)
 * are made by encodeKeyValues.
 */
export function encodeLookupKey(pk: KeyValue, sk: KeyValue | undefined): EncodedKey {
  const room = HASH_BYTES + 1 + maxKeyValueBytes(pk) + (sk === undefined ? 0 : maxKeyValueBytes(sk));
  if (room > LOOKUP.length) return encodeKeyValues(pk, sk);
  const pkEnd = writeKeyValue(pk, LOOKUP, HASH_BYTES + 1);
  if (pkEnd - HASH_BYTES - 1 > INLINE_PK_BYTES) return encodeKeyValues(pk, sk);
  const end = sk === undefined ? pkEnd : writeKeyValue(sk, LOOKUP, pkEnd);
  if (end > MAX_STORED_KEY_BYTES) return encodeKeyValues(pk, sk);
  const hash = partitionHash(pk);
  writeHash(hash, LOOKUP, 0);
  LOOKUP[HASH_BYTES] = INLINE_TAG;
  const slot = end & (lookupViews.length - 1);
  let bytes = lookupViews[slot] ?? null;
  if (bytes === null || bytes.length !== end) lookupViews[slot] = bytes = new Uint8Array(LOOKUP.buffer, 0, end);
  return { hash, bytes, pkEnd };
}

/**
 * The LMDB key of a full key: itself when it is at most `max` bytes, else its first
 * `max` - 16 bytes and a digest of the whole (max = 511 for item and index keys).
 */
export function storedKey(full: Uint8Array, max = MAX_STORED_KEY_BYTES): Uint8Array {
  if (full.length <= max) return full;
  const out = new Uint8Array(max);
  out.set(full.subarray(0, max - OVERFLOW_DIGEST_BYTES), 0);
  out.set(createHash('sha256').update(full).digest().subarray(0, OVERFLOW_DIGEST_BYTES), max - OVERFLOW_DIGEST_BYTES);
  return out;
}

/**
 * Whether a stored key may be out of full-key order with its neighbours sharing its first
 * PREFIX_BYTES bytes (it is an overflow key or a key as long as one's prefix).
 */
export function inOverflowRun(stored: Uint8Array): boolean {
  return stored.length >= PREFIX_BYTES;
}

/** Prefix shared by every item of one partition key: hash + pkPart. */
export function encodePartitionPrefix(pk: KeyValue): EncodedKey {
  const hash = partitionHash(pk);
  const pkBytes = encodeKeyValue(pk);
  const inline = pkBytes.length <= INLINE_PK_BYTES;
  const part = inline ? pkBytes : createHash('sha256').update(pkBytes).digest().subarray(0, DIGEST_BYTES);
  const bytes = new Uint8Array(HASH_BYTES + 1 + part.length);
  writeHash(hash, bytes, 0);
  bytes[HASH_BYTES] = inline ? INLINE_TAG : DIGEST_TAG;
  bytes.set(part, HASH_BYTES + 1);
  return { hash, bytes, pkEnd: bytes.length };
}

/** The 4-byte big-endian encoding of a hash, used as a cursor bound. */
export function hashBound(hash: number): Uint8Array {
  const b = new Uint8Array(HASH_BYTES);
  writeHash(hash, b, 0);
  return b;
}

export { readHash };

/**
 * Where the partition key part of a key of this layout ends (the offset of its sort key's
 * encoding): the encoder's `pkEnd`, else read from the bytes (`pkType`: the partition key's type).
 */
export function partitionKeyEnd(key: EncodedKey, pkType: KeyType): number {
  if (key.pkEnd !== undefined) return key.pkEnd;
  const bytes = key.bytes;
  return bytes[HASH_BYTES] === DIGEST_TAG ? HASH_BYTES + 1 + DIGEST_BYTES : keyValueEnd(pkType, bytes, HASH_BYTES + 1);
}

/**
 * The partition-id layout (table format 3, table/partition-ids.ts): a table with a sort key stores
 * each item under
 *
 *   placed := stored(id:u32be enc(sk))
 *
 * where `id` is the partition key's number in its table's dictionary, handed out in the order
 * partition keys are first written. Neighbouring ids are partition keys written together (a
 * device polling its sensors), so a batch of their readings touches neighbouring pages, and the
 * 4-byte head is still unique per partition key, as the range walk's head cursor needs
 * (storage/range-cursor.ts). `key` is the item's key in this module's layout; `pkEnd` its
 * partitionKeyEnd. The result is carved from the key slab (the caller owns it).
 */
export function placedKey(id: number, key: EncodedKey, pkEnd: number): Uint8Array {
  const source = key.full ?? key.bytes;
  const length = HASH_BYTES + source.length - pkEnd;
  if (length > SLAB_MAX_KEY) {
    const out = new Uint8Array(length);
    writeHash(id, out, 0);
    out.set(source.subarray(pkEnd), HASH_BYTES);
    return storedKey(out);
  }
  const into = keys.with(length);
  const start = keys.used;
  writeHash(id, into, start);
  for (let i = pkEnd, j = start + HASH_BYTES; i < source.length; i++, j++) into[j] = source[i]!;
  const out = keys.carve(start + length);
  return length <= MAX_STORED_KEY_BYTES ? out : storedKey(out);
}

/** The 4-byte key prefix of every item of partition id `id` (partition-id layout), off-heap. */
export function placedPrefix(id: number): Uint8Array {
  writeHash(id, keys.with(HASH_BYTES), keys.used);
  return keys.carve(keys.used + HASH_BYTES);
}

/**
 * The key of this layout of an item stored under `placed` (not an overflow key) whose partition
 * key is (`hash`, `pkPart`): hash, partition key part, then the placed key's sort key bytes.
 */
export function identityFromPlaced(hash: number, pkPart: Uint8Array, placed: Uint8Array): EncodedKey {
  const full = new Uint8Array(HASH_BYTES + pkPart.length + placed.length - HASH_BYTES);
  writeHash(hash, full, 0);
  full.set(pkPart, HASH_BYTES);
  full.set(placed.subarray(HASH_BYTES), HASH_BYTES + pkPart.length);
  const pkEnd = HASH_BYTES + pkPart.length;
  return full.length <= MAX_STORED_KEY_BYTES ? { hash, bytes: full, pkEnd } : { hash, bytes: storedKey(full), pkEnd, full };
}
