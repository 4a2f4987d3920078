/**
 * Per-item version records, kept by a hub for every merged table and by a device for every table
 * it receives from a hub (two-way sync, docs/sync.md), in the store's `_sync` database:
 *
 *   version  key := 'v' table 0x00 itemKey     value := ms:f64be counter:u32be device [0x00 incarnation]
 *
 * The version of the write that currently owns the item (or its tombstone): its HLC and the
 * device id and incarnation of the store that made it. Last-writer-wins compares versions by HLC,
 * then device id, then incarnation (byte order), identically on the hub and on every device, so
 * every copy keeps the same winner. Written in the txn of the write itself (change-log-writer.ts
 * for local writes of a versioned table; apply-batch.ts and apply-down.ts for received ones), so a
 * crash never separates an item from its version.
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { compareHlc, type Hlc } from './hlc.js';
import { ITEM_VERSION_PREFIX } from './table-sync-records.js';

export type Version = { readonly hlc: Hlc; readonly device: string; readonly incarnation: string };

export const VERSION_PREFIX = ITEM_VERSION_PREFIX;

/**
 * Default version horizon: 30 days. A hub collects its version records older than this
 * (replication/collect-versions.ts) and prunes its log of records older than this (replication/hub-log.ts); a
 * device collects its tombstones after the same horizon (replication/collect-tombstones.ts).
 */
export const DEFAULT_VERSION_HORIZON_MS = 30 * 24 * 60 * 60 * 1000;

const enc = new TextEncoder();
const dec = new TextDecoder();

export function versionKey(table: string, itemKey: Uint8Array): Uint8Array {
  const head = enc.encode(`${VERSION_PREFIX}${table}\u0000`);
  const key = new Uint8Array(head.length + itemKey.length);
  key.set(head);
  key.set(itemKey, head.length);
  return key;
}

export function decodeVersion(raw: Uint8Array): Version {
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const rest = dec.decode(raw.subarray(12));
  const nul = rest.indexOf('\u0000');
  return { hlc: { ms: v.getFloat64(0), counter: v.getUint32(8) }, device: nul < 0 ? rest : rest.slice(0, nul), incarnation: nul < 0 ? '' : rest.slice(nul + 1) };
}

export function readVersion(txn: ReadTxn, db: Database, table: string, itemKey: Uint8Array): Version | undefined {
  const raw = txn.get(db, versionKey(table, itemKey));
  return raw ? decodeVersion(raw) : undefined;
}

export function writeVersion(txn: WriteTxn, db: Database, table: string, itemKey: Uint8Array, version: Version): void {
  const who = enc.encode(`${version.device}\u0000${version.incarnation}`);
  const value = new Uint8Array(12 + who.length);
  const v = new DataView(value.buffer);
  v.setFloat64(0, version.hlc.ms);
  v.setUint32(8, version.hlc.counter);
  value.set(who, 12);
  txn.put(db, versionKey(table, itemKey), value);
}

export function deleteVersion(txn: WriteTxn, db: Database, table: string, itemKey: Uint8Array): void {
  txn.delete(db, versionKey(table, itemKey));
}

/** Last-writer-wins order: HLC, then device id, then incarnation (byte order): every store picks the same winner. */
export function compareVersions(a: Version, b: Version): number {
  return compareHlc(a.hlc, b.hlc) || compareText(a.device, b.device) || compareText(a.incarnation, b.incarnation);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
