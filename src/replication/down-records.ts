/**
 * What a device keeps in its `_sync` database for the down direction (besides the item version
 * records, stream/item-versions.ts, and the state of their collection, collect-tombstones.ts):
 *
 *   base  key := 'D' table                  value := JSON DeviceBase
 *         the base read in progress: its id, and the store clock when its first page arrived;
 *         once swept, the same with done: the base read last completed, so that its base-done or a
 *         page of it delivered again (the device crashed before the hub had its ack) changes
 *         nothing, instead of sweeping a table whose marks are gone
 *   mark  key := 'm' table 0x00 itemKey      value := baseId (utf8)
 *         the keys a base read's pages held; at "base done" the items of the subscribed
 *         partitions without this base's mark are dropped (sweep-base.ts), and the marks go
 *
 * Written in the txns that apply the pages, so a crash resumes the base read where the hub's
 * durable progress is (pages apply idempotently).
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { Hlc } from '../stream/hlc.js';
import { BASE_MARK_PREFIX, DEVICE_BASE_PREFIX } from '../stream/table-sync-records.js';

export type DeviceBase = { readonly id: string; readonly startClock: Hlc; readonly done?: true };

/** Whether `base` (the table's record) says base read `baseId` was completed here. */
export function isBaseDone(base: DeviceBase | undefined, baseId: string): boolean {
  return base !== undefined && base.id === baseId && base.done === true;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function baseKey(table: string): Uint8Array {
  return enc.encode(`${DEVICE_BASE_PREFIX}${table}`);
}

export function readDeviceBase(txn: ReadTxn, db: Database, table: string): DeviceBase | undefined {
  const raw = txn.get(db, baseKey(table));
  return raw ? (JSON.parse(dec.decode(raw)) as DeviceBase) : undefined;
}

export function writeDeviceBase(txn: WriteTxn, db: Database, table: string, base: DeviceBase | undefined): void {
  if (base === undefined) txn.delete(db, baseKey(table));
  else txn.put(db, baseKey(table), enc.encode(JSON.stringify(base)));
}

export function markPrefix(table: string): Uint8Array {
  return enc.encode(`${BASE_MARK_PREFIX}${table}\u0000`);
}

export function markKey(table: string, itemKey: Uint8Array): Uint8Array {
  const head = markPrefix(table);
  const key = new Uint8Array(head.length + itemKey.length);
  key.set(head);
  key.set(itemKey, head.length);
  return key;
}

export function writeMark(txn: WriteTxn, db: Database, table: string, itemKey: Uint8Array, baseId: string): void {
  txn.put(db, markKey(table, itemKey), enc.encode(baseId));
}

export function readMark(txn: ReadTxn, db: Database, table: string, itemKey: Uint8Array): string | undefined {
  const raw = txn.get(db, markKey(table, itemKey));
  return raw ? dec.decode(raw) : undefined;
}
