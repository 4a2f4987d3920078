/**
 * Stream retention: deletes change records older than the retention (DynamoDB: 24 hours) from
 * the shards of every table that has or had a stream, one write txn per table. What sync still
 * needs stays: on a synced table only records the hub acknowledged (seq <= ackedSeq) are
 * deleted, and not before sync's own retentionMs. While a table has a stream, the sync agent's
 * acknowledgement leaves deletion to this trimmer (stream/acknowledge-shard.ts). The streams of
 * deleted tables are trimmed by the same retention, and dropped once it has passed since the
 * delete (stream/ended-streams.ts).
 */
import { streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { trimEndedStreams } from '../stream/ended-streams.js';
import { encodeSequenceKey, decodeSequenceKey } from '../stream/sequence-key.js';
import { listShardIds, readShardHeader, readSyncSettings, writeShardHeader } from '../stream/shard-state.js';
import type { ReadTxn } from '../storage/txn.js';
import type { Catalog } from '../table/catalog.js';
import type { Table } from '../table/table.js';

export const DEFAULT_STREAM_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Records deleted per table per pass at most, so a pass never holds the writer long. */
const MAX_TRIMMED_PER_TABLE = 10_000;

/** Returns the number of records deleted. */
export function trimStreams(store: Store, catalog: Catalog, nowMs: number, retentionMs = DEFAULT_STREAM_RETENTION_MS): number {
  let total = 0;
  for (const table of catalog.all()) {
    if (table.def.LatestStreamLabel === undefined) continue;
    // A read first, so a pass with nothing to trim costs no write txn (no fsync).
    if (!store.read((txn) => hasTrimmable(store, txn, table, nowMs, retentionMs))) continue;
    total += store.write((txn) => {
      const sync = readSyncSettings(txn, table.meta);
      const keepMs = Math.max(retentionMs, sync?.retentionMs ?? 0);
      let deleted = 0;
      for (const shard of listShardIds(txn, table.meta)) {
        const header = readShardHeader(txn, table.meta, shard)!;
        const name = streamShardDb(table.name, shard);
        if (!store.hasDatabase(name)) continue;
        const db = store.database(name);
        const doomed: { key: Uint8Array; pending: number }[] = [];
        const end = sync ? { end: encodeSequenceKey(header.ackedSeq), endInclusive: true } : {};
        for (const { key, value } of txn.cursor(db, end)) {
          if (deleted + doomed.length >= MAX_TRIMMED_PER_TABLE || nowMs - decodeStreamRecord(value).timeMs < keepMs) break;
          doomed.push({ key: Uint8Array.prototype.slice.call(key), pending: decodeSequenceKey(key) > header.ackedSeq ? value.length : 0 });
        }
        if (doomed.length === 0) continue;
        for (const d of doomed) {
          txn.delete(db, d.key);
          header.pendingBytes = Math.max(0, header.pendingBytes - d.pending);
        }
        writeShardHeader(txn, table.meta, shard, header);
        deleted += doomed.length;
      }
      return deleted;
    });
  }
  return total + trimEndedStreams(store, nowMs, retentionMs);
}

/** Whether the oldest record of some shard is due (looking only at each shard's first record). */
function hasTrimmable(store: Store, txn: ReadTxn, table: Table, nowMs: number, retentionMs: number): boolean {
  const sync = readSyncSettings(txn, table.meta);
  const keepMs = Math.max(retentionMs, sync?.retentionMs ?? 0);
  return listShardIds(txn, table.meta).some((shard) => {
    const name = streamShardDb(table.name, shard);
    const first = store.hasDatabase(name) ? txn.first(store.database(name)) : undefined;
    if (!first) return false;
    if (sync && decodeSequenceKey(first.key) > readShardHeader(txn, table.meta, shard)!.ackedSeq) return false;
    return nowMs - decodeStreamRecord(first.value).timeMs >= keepMs;
  });
}
