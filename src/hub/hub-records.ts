/**
 * What a hub keeps in its store's `_sync` database besides the tables it merges into:
 *
 *   applied  key := 'a' device 0x00 table 0x00 shard:u32be     value := seq:f64be
 *            the highest sequence of that device's shard committed here (idempotency)
 *   version  key := 'v' hubTable 0x00 itemKey                  value := ms:f64be counter:u32be device
 *            the HLC and device of the write that currently owns the item (or its tombstone),
 *            for last-writer-wins; tombstones are kept so an older put cannot resurrect a delete
 *   gap      key := 'g' device 0x00 table 0x00 shard:u32be lastSeq:f64be   value := JSON GapReport
 *
 * Everything is written in the txn that applies the batch it comes from.
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { compareHlc, type Hlc } from '../stream/hlc.js';

export type Version = { readonly hlc: Hlc; readonly device: string };

export type GapReport = {
  readonly device: string;
  readonly table: string;
  readonly shard: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly records: number;
  readonly bytes: number;
  readonly reason: 'dropped by the device outbox (drop-oldest)' | 'sequence jump';
};

const enc = new TextEncoder();
const dec = new TextDecoder();

function shardKey(prefix: string, device: string, table: string, shard: number, extra = 0): Uint8Array {
  const head = enc.encode(`${prefix}${device}\u0000${table}\u0000`);
  const key = new Uint8Array(head.length + 4 + extra);
  key.set(head);
  new DataView(key.buffer).setUint32(head.length, shard);
  return key;
}

export function readApplied(txn: ReadTxn, db: Database, device: string, table: string, shard: number): number {
  const raw = txn.get(db, shardKey('a', device, table, shard));
  return raw ? new DataView(raw.buffer, raw.byteOffset, 8).getFloat64(0) : 0;
}

export function writeApplied(txn: WriteTxn, db: Database, device: string, table: string, shard: number, seq: number): void {
  const value = new Uint8Array(8);
  new DataView(value.buffer).setFloat64(0, seq);
  txn.put(db, shardKey('a', device, table, shard), value);
}

function versionKey(hubTable: string, itemKey: Uint8Array): Uint8Array {
  const head = enc.encode(`v${hubTable}\u0000`);
  const key = new Uint8Array(head.length + itemKey.length);
  key.set(head);
  key.set(itemKey, head.length);
  return key;
}

export function readVersion(txn: ReadTxn, db: Database, hubTable: string, itemKey: Uint8Array): Version | undefined {
  const raw = txn.get(db, versionKey(hubTable, itemKey));
  if (!raw) return undefined;
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return { hlc: { ms: v.getFloat64(0), counter: v.getUint32(8) }, device: dec.decode(raw.subarray(12)) };
}

export function writeVersion(txn: WriteTxn, db: Database, hubTable: string, itemKey: Uint8Array, version: Version): void {
  const device = enc.encode(version.device);
  const value = new Uint8Array(12 + device.length);
  const v = new DataView(value.buffer);
  v.setFloat64(0, version.hlc.ms);
  v.setUint32(8, version.hlc.counter);
  value.set(device, 12);
  txn.put(db, versionKey(hubTable, itemKey), value);
}

/** Last-writer-wins order: HLC, then device id (byte order) so every hub picks the same winner. */
export function compareVersions(a: Version, b: Version): number {
  return compareHlc(a.hlc, b.hlc) || (a.device < b.device ? -1 : a.device > b.device ? 1 : 0);
}

export function writeGap(txn: WriteTxn, db: Database, gap: GapReport): void {
  const key = shardKey('g', gap.device, gap.table, gap.shard, 8);
  new DataView(key.buffer).setFloat64(key.length - 8, gap.lastSeq);
  txn.put(db, key, enc.encode(JSON.stringify(gap)));
}

export function readGaps(txn: ReadTxn, db: Database): GapReport[] {
  const out: GapReport[] = [];
  for (const { value } of txn.cursor(db, { start: enc.encode('g'), end: enc.encode('h') })) out.push(JSON.parse(dec.decode(value)) as GapReport);
  return out;
}
