/**
 * Storage keys of base items:
 *
 *   key    := hash:u32be pkPart [enc(sk)]
 *   pkPart := 0x01 enc(pk)                  when enc(pk) is at most INLINE_PK_BYTES long
 *           | 0x02 sha256(enc(pk))[0..20]   otherwise
 *   hash   := codec/partition-hash.ts fingerprint of the partition key value
 *   enc    := codec/key-bytes.ts order-preserving, prefix-free value encoding
 *
 * Because the hash comes first, one partition key's items are contiguous and sorted by sort key,
 * and a partition (a hash range) is one contiguous key range. LMDB keys are at most 511 bytes, while
 * DynamoDB allows 2,048-byte partition keys: long partition keys are replaced by a digest. That is
 * safe because DynamoDB defines no order across partition keys, only within one, and the item
 * itself still carries the full key. The sort key must stay verbatim to keep its order, so a
 * composite key longer than 511 bytes is refused (edgetable's one key-size limit below DynamoDB's).
 */
import { createHash } from 'node:crypto';
import { encodeKeyValue } from './key-bytes.js';
import { partitionHash, readHash, writeHash } from './partition-hash.js';
import type { Item, KeyValue } from '../model/attribute-value.js';
import { ValidationException } from '../model/errors.js';
import type { PrimaryKeySchema } from '../model/key-schema.js';
import { MAX_STORED_KEY_BYTES } from '../model/limits.js';

export const HASH_BYTES = 4;
const INLINE_PK_BYTES = 128;
const INLINE_TAG = 0x01;
const DIGEST_TAG = 0x02;
const DIGEST_BYTES = 20;

export type EncodedKey = { readonly hash: number; readonly bytes: Uint8Array };

/** Key bytes for an item or key whose key attributes were already validated against `schema`. */
export function encodeItemKey(item: Item, schema: PrimaryKeySchema): EncodedKey {
  const prefix = encodePartitionPrefix(item[schema.partitionKey.name] as KeyValue);
  if (!schema.sortKey) return prefix;
  const sk = encodeKeyValue(item[schema.sortKey.name] as KeyValue);
  const bytes = new Uint8Array(prefix.bytes.length + sk.length);
  bytes.set(prefix.bytes, 0);
  bytes.set(sk, prefix.bytes.length);
  checkStoredKeyLength(bytes.length);
  return { hash: prefix.hash, bytes };
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
  return { hash, bytes };
}

export function checkStoredKeyLength(length: number): void {
  if (length > MAX_STORED_KEY_BYTES) {
    throw new ValidationException(
      `One or more parameter values were invalid: the encoded key is ${length} bytes; edgetable stores keys of at most ${MAX_STORED_KEY_BYTES} bytes, so sort key values must be shorter (DynamoDB allows 1024 bytes)`,
    );
  }
}

/** The 4-byte big-endian encoding of a hash, used as a cursor bound. */
export function hashBound(hash: number): Uint8Array {
  const b = new Uint8Array(HASH_BYTES);
  writeHash(hash, b, 0);
  return b;
}

export { readHash };
