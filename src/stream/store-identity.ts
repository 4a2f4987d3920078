/**
 * The store's incarnation: who this store is to a hub, beside the device id an operator gives it.
 *
 *   incarnation  key := 'I' (in `_sync`)    value := 36 ASCII bytes, a random UUID (RFC 4122 v4)
 *
 * Contract (issue 17's two-way sync builds on it):
 * - Created by the first open of a store that can write (ensureStoreIdentity, called by `open()`
 *   and by every sync agent and hub), in its own write txn that re-reads first, so concurrent
 *   first opens of one folder agree on one id. It never changes afterwards.
 * - A wiped, re-flashed or re-created store folder has no record, so it gets a NEW incarnation:
 *   to a hub, its change records are a new stream (docs/sync.md, "Re-provisioning a device"),
 *   never duplicates of the old store's records that happen to carry the same sequence numbers.
 * - Copying a store folder copies its incarnation: two live copies under one device id are one
 *   stream to a hub and must not both sync (docs/sync.md).
 */
import { randomUUID } from 'node:crypto';
import { SYNC_DB } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn } from '../storage/txn.js';

const INCARNATION_KEY = new Uint8Array([0x49]); // 'I'
const decoder = new TextDecoder();

export function readIncarnation(txn: ReadTxn, syncDb: Database): string | undefined {
  const raw = txn.get(syncDb, INCARNATION_KEY);
  return raw ? decoder.decode(raw) : undefined;
}

/** The store's incarnation, created (and committed) now if it has none. */
export function ensureStoreIdentity(store: Store): string {
  if (store.hasDatabase(SYNC_DB)) {
    const syncDb = store.database(SYNC_DB);
    const found = store.read((txn) => readIncarnation(txn, syncDb));
    if (found !== undefined) return found;
  }
  return store.write((txn) => {
    const syncDb = store.database(SYNC_DB);
    const found = readIncarnation(txn, syncDb);
    if (found !== undefined) return found;
    const id = randomUUID();
    txn.put(syncDb, INCARNATION_KEY, Buffer.from(id, 'ascii'));
    return id;
  });
}

/** The incarnation of a store that may be read-only: undefined when it never had one. */
export function peekStoreIdentity(store: Store): string | undefined {
  if (!store.hasDatabase(SYNC_DB)) return undefined;
  const syncDb = store.database(SYNC_DB);
  return store.read((txn) => readIncarnation(txn, syncDb));
}
