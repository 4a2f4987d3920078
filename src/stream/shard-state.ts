/**
 * Per-shard and per-table stream records kept in the table's meta database (`t/<table>/meta`),
 * beside the partition statistics, so the write path reaches them through `Table.meta` and they
 * vanish with the table.
 *
 *   shard header   key := 'L' shard:u32be
 *                  value := nextSeq:f64be hlcMs:f64be hlcCounter:u32be pendingBytes:f64be
 *                           ackedSeq:f64be parent:i32be (-1 = none) closed:u8
 *   sync settings  key := 'Y'
 *                  value := JSON SyncSettings
 *
 * nextSeq is the sequence the next record gets (first record: 1). pendingBytes is the sum of the
 * stored sizes of the records with seq > ackedSeq that still exist: appends add, acks and
 * 'drop-oldest' subtract, all in write txns, so LMDB's single writer keeps it exact even with the
 * sync agent in another process. ackedSeq is the device's sync cursor: the highest sequence the
 * hub acknowledged (it lives here, not in `_sync`, because the outbox budget is checked against
 * it in the write path's own txn).
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { HLC_ZERO, type Hlc } from './hlc.js';

export type ShardHeader = {
  nextSeq: number;
  hlc: Hlc;
  pendingBytes: number;
  ackedSeq: number;
  parent: number | undefined;
  closed: boolean;
};

/** Sync settings of one table, written by startSync and read by the write path. */
export type SyncSettings = {
  /** Unacknowledged bytes allowed per shard; 0 = unbounded. */
  readonly outboxBudgetBytes: number;
  readonly whenFull: 'reject' | 'drop-oldest';
  /** Acknowledged records are kept this long for local stream readers; 0 = pruned on ack. */
  readonly retentionMs: number;
  /**
   * Set when the table takes part in two-way sync: every write keeps the item's version record
   * (item-versions.ts) in its txn; a local write's version is (its HLC, `writer`, `incarnation`).
   * A hub's writer is its hub id, a device's its device id.
   */
  readonly versions?: { readonly writer: string; readonly incarnation: string };
  /**
   * Records keep the item each write replaced (old image), so the hub can check the write's base
   * under a version rule (replication/conflict-rule.ts). Absent in settings written before it existed.
   */
  readonly baseImages?: boolean;
};

const HEADER_BYTES = 41;
const SETTINGS_KEY = new Uint8Array([0x59]);

export function shardHeaderKey(shard: number): Uint8Array {
  const key = new Uint8Array(5);
  key[0] = 0x4c;
  new DataView(key.buffer).setUint32(1, shard);
  return key;
}

export function newShardHeader(parent: number | undefined): ShardHeader {
  return { nextSeq: 1, hlc: HLC_ZERO, pendingBytes: 0, ackedSeq: 0, parent, closed: false };
}

export function readShardHeader(txn: ReadTxn, meta: Database, shard: number): ShardHeader | undefined {
  const raw = txn.get(meta, shardHeaderKey(shard));
  if (!raw || raw.length < HEADER_BYTES) return undefined;
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const parent = v.getInt32(36);
  return {
    nextSeq: v.getFloat64(0),
    hlc: { ms: v.getFloat64(8), counter: v.getUint32(16) },
    pendingBytes: v.getFloat64(20),
    ackedSeq: v.getFloat64(28),
    parent: parent < 0 ? undefined : parent,
    closed: raw[40] === 1,
  };
}

export function writeShardHeader(txn: WriteTxn, meta: Database, shard: number, h: ShardHeader): void {
  const value = new Uint8Array(HEADER_BYTES);
  const v = new DataView(value.buffer);
  v.setFloat64(0, h.nextSeq);
  v.setFloat64(8, h.hlc.ms);
  v.setUint32(16, h.hlc.counter);
  v.setFloat64(20, h.pendingBytes);
  v.setFloat64(28, h.ackedSeq);
  v.setInt32(36, h.parent ?? -1);
  value[40] = h.closed ? 1 : 0;
  txn.put(meta, shardHeaderKey(shard), value);
}

/** Shard ids that have a header, ascending. */
export function listShardIds(txn: ReadTxn, meta: Database): number[] {
  const ids: number[] = [];
  for (const { key } of txn.cursor(meta, { start: new Uint8Array([0x4c]), end: new Uint8Array([0x4d]) })) {
    if (key.length === 5) ids.push(new DataView(key.buffer, key.byteOffset, 5).getUint32(1));
  }
  return ids;
}

export function readSyncSettings(txn: ReadTxn, meta: Database): SyncSettings | undefined {
  const raw = txn.get(meta, SETTINGS_KEY);
  return raw ? (JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as SyncSettings) : undefined;
}

/** Marks the table as synced (its writes are logged with new images from then on), or unmarks it. */
export function writeSyncSettings(txn: WriteTxn, meta: Database, settings: SyncSettings | undefined): void {
  if (settings === undefined) txn.delete(meta, SETTINGS_KEY);
  else txn.put(meta, SETTINGS_KEY, Buffer.from(JSON.stringify(settings), 'utf8'));
}

/**
 * Marks a shard closed (its partition split: no record is written under its id again), in the
 * split's txn. A partition that never logged a record has no header and nothing to close.
 */
export function closeShard(txn: WriteTxn, meta: Database, shard: number): void {
  const header = readShardHeader(txn, meta, shard);
  if (header && !header.closed) writeShardHeader(txn, meta, shard, { ...header, closed: true });
}
