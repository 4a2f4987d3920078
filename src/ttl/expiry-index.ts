/**
 * The expiry index of a table with Time to Live: one entry per item whose TTL attribute is a
 * Number, ordered by expiry, so a sweep reads only what has expired (ttl-sweep.ts) instead of the
 * whole table. Kept in `t/<table>/ttl` (partition/database-names.ts), written in the same txn as
 * the item (table/write-session.ts).
 *
 *   key   := seconds:u64be storedKey(itemKey, 503)   seconds = floor of the TTL value, 0 .. 2^53 - 1
 *   value := (empty) | itemKey                        itemKey when it is over 503 bytes
 *
 * itemKey is the item's key bytes (codec/item-key.ts: hash first; one over 503 bytes is shortened to
 * a prefix and a digest to fit LMDB's 511-byte keys, and then kept whole in the value), so the item's partition is
 * found from the entry whatever splits happened since. Values below 0 or not finite get no entry
 * (they never expire). An entry is a hint: the sweeper re-reads the item and applies
 * ttl/expiry.ts before deleting, and removes entries that no longer match their item.
 *
 * Format version: stores written before the index have TTL settings without `indexed`; the
 * sweeper's first pass over such a table walks it whole, writes every entry, then sets it.
 */
import { storedKey } from '../codec/item-key.js';
import type { AttributeValue, Item } from '../model/attribute-value.js';
import type { Database } from '../storage/database.js';
import type { WriteTxn } from '../storage/txn.js';

const MAX_SECONDS = Number.MAX_SAFE_INTEGER;

/** The index's seconds for a TTL attribute value, or undefined when it gets no entry. */
export function expirySeconds(value: AttributeValue | undefined): number | undefined {
  if (value === undefined || !('N' in value)) return undefined;
  const seconds = Math.floor(Number(value.N));
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(seconds, MAX_SECONDS);
}

const SECONDS_BYTES = 8;
const MAX_ITEM_KEY_BYTES = 511 - SECONDS_BYTES;
const EMPTY = new Uint8Array(0);

export function expiryKey(seconds: number, itemKey: Uint8Array): Uint8Array {
  const part = storedKey(itemKey, MAX_ITEM_KEY_BYTES);
  const key = new Uint8Array(SECONDS_BYTES + part.length);
  new DataView(key.buffer).setBigUint64(0, BigInt(seconds));
  key.set(part, SECONDS_BYTES);
  return key;
}

/** The entry's value: the item key when the entry's key holds only its prefix and digest. */
export function expiryValue(itemKey: Uint8Array): Uint8Array {
  return itemKey.length > MAX_ITEM_KEY_BYTES ? itemKey : EMPTY;
}

/** The first key of entries expiring at `seconds` or later. */
export function expiryBound(seconds: number): Uint8Array {
  return expiryKey(Math.max(0, Math.min(Math.floor(seconds), MAX_SECONDS)), new Uint8Array(0));
}

export function readExpiryKey(key: Uint8Array, value: Uint8Array): { seconds: number; itemKey: Uint8Array } {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  return { seconds: Number(view.getBigUint64(0)), itemKey: value.length > 0 ? Uint8Array.from(value) : key.subarray(SECONDS_BYTES) };
}

/** Moves the entry of `itemKey` from the old item's expiry to the new one's (either may be absent). */
export function updateExpiryEntry(txn: WriteTxn, db: Database, attribute: string, itemKey: Uint8Array, oldItem: Item | undefined, newItem: Item | undefined): void {
  const before = expirySeconds(oldItem?.[attribute]);
  const after = expirySeconds(newItem?.[attribute]);
  if (before === after) return;
  if (before !== undefined) txn.delete(db, expiryKey(before, itemKey));
  if (after !== undefined) txn.put(db, expiryKey(after, itemKey), expiryValue(itemKey));
}
