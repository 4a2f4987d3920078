/**
 * Forwarding cursors, one per (endpoint, table, shard), in the hub store's `_forward` database:
 *
 *   key   := endpoint:utf8 0x00 table:utf8 0x00 shard:u32be
 *   value := seq:f64be      ; the last change-log sequence the endpoint acknowledged
 *
 * Written in its own txn only after every record up to `seq` was acknowledged by the endpoint
 * (written, or refused as already newer), so a crash replays at most the batch in flight. The txn
 * commits on the engine's asynchronous path (replica.ts); the forwarder reads the shard again only after
 * it resolved.
 * Keyed by endpoint: pointing the hub at another endpoint forwards the tables again from the start.
 */
import { FORWARD_DB } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { WriteTxn } from '../storage/txn.js';

function cursorKey(endpoint: string, table: string, shard: number): Uint8Array {
  const head = Buffer.from(`${endpoint}\0${table}\0`, 'utf8');
  const key = new Uint8Array(head.length + 4);
  key.set(head, 0);
  new DataView(key.buffer).setUint32(head.length, shard);
  return key;
}

export function readCursor(store: Store, endpoint: string, table: string, shard: number): number {
  const db = store.database(FORWARD_DB);
  return store.read((txn) => {
    const raw = txn.get(db, cursorKey(endpoint, table, shard));
    return raw && raw.length >= 8 ? new DataView(raw.buffer, raw.byteOffset, 8).getFloat64(0) : 0;
  });
}

/** The cursor's txn (the Replica commits it, replica.ts writeCursor; resolves once durable). */
export function writeCursorPlan(store: Store, endpoint: string, table: string, shard: number, seq: number): (txn: WriteTxn) => void {
  const db = store.database(FORWARD_DB);
  const value = new Uint8Array(8);
  new DataView(value.buffer).setFloat64(0, seq);
  return (txn) => txn.put(db, cursorKey(endpoint, table, shard), value);
}
