/**
 * What the hub refused of a device's shard (sync-batch.ts status 'refused'), persisted on the
 * device so `edgetable sync status` in another process shows it too:
 *
 *   refusal  key := 'R' tableId 0x00 shard:u32be (in `_sync`)   value := JSON ShardRefusals
 *
 * Keyed by TableId, so a re-created table starts with none. Written in the txn that moves the
 * shard's cursor past the refused records (acknowledge-shard.ts).
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';

export type ShardRefusals = {
  /** Batches the hub refused, and their records (kept in the hub's dead-letter table). */
  readonly batches: number;
  readonly records: number;
  readonly lastMessage: string;
  /** Epoch ms of the last refusal. */
  readonly lastAtMs: number;
};

const enc = new TextEncoder();
const dec = new TextDecoder();

function refusalKey(tableId: string, shard: number): Uint8Array {
  const head = enc.encode(`R${tableId}\u0000`);
  const key = new Uint8Array(head.length + 4);
  key.set(head);
  new DataView(key.buffer).setUint32(head.length, shard);
  return key;
}

export function readRefusals(txn: ReadTxn, syncDb: Database, tableId: string, shard: number): ShardRefusals | undefined {
  const raw = txn.get(syncDb, refusalKey(tableId, shard));
  return raw ? (JSON.parse(dec.decode(raw)) as ShardRefusals) : undefined;
}

export function addRefusal(txn: WriteTxn, syncDb: Database, tableId: string, shard: number, records: number, message: string, nowMs: number): void {
  const before = readRefusals(txn, syncDb, tableId, shard);
  const next: ShardRefusals = { batches: (before?.batches ?? 0) + 1, records: (before?.records ?? 0) + records, lastMessage: message, lastAtMs: nowMs };
  txn.put(syncDb, refusalKey(tableId, shard), enc.encode(JSON.stringify(next)));
}
