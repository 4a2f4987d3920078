/**
 * Moves a shard's sync cursor after the hub acknowledged `seq`, and prunes: in one write txn the
 * header's ackedSeq rises, the stored bytes of the newly acknowledged records leave pendingBytes,
 * and acknowledged records are deleted (at once, or once older than `retentionMs`). Idempotent: an
 * ack at or below the cursor changes nothing. A table that has (or had) a DynamoDB stream keeps
 * its acknowledged records for the Streams API: stream retention deletes them
 * (streams-api/trim-streams.ts), never sooner than retentionMs either.
 */
import { streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { Table } from '../table/table.js';
import { decodeStreamRecord } from './change-record.js';
import { decodeSequenceKey, encodeSequenceKey } from './sequence-key.js';
import { readShardHeader, writeShardHeader } from './shard-state.js';

/** Returns the number of records newly acknowledged (gaps count as one). */
export function acknowledgeShard(store: Store, table: Table, shard: number, seq: number, retentionMs: number, nowMs: number): number {
  const db = store.database(streamShardDb(table.name, shard));
  return store.write((txn) => {
    const h = readShardHeader(txn, table.meta, shard);
    if (!h) return 0;
    const upTo = Math.min(seq, h.nextSeq - 1);
    if (upTo <= h.ackedSeq) return 0;
    let count = 0;
    let bytes = 0;
    for (const { value } of txn.cursor(db, { start: encodeSequenceKey(h.ackedSeq + 1), end: encodeSequenceKey(upTo), endInclusive: true })) {
      count += 1;
      bytes += value.length;
    }
    h.ackedSeq = upTo;
    h.pendingBytes = Math.max(0, h.pendingBytes - bytes);
    const doomed: Uint8Array[] = [];
    const streamed = table.def.LatestStreamLabel !== undefined;
    for (const { key, value } of streamed ? [] : txn.cursor(db, { end: encodeSequenceKey(upTo), endInclusive: true })) {
      if (retentionMs > 0 && nowMs - decodeStreamRecord(value).timeMs < retentionMs) break;
      doomed.push(key);
    }
    for (const key of doomed) txn.delete(db, key);
    writeShardHeader(txn, table.meta, shard, h);
    return count;
  });
}

/** Time of the first record after the cursor, or undefined when the shard is caught up. */
export function oldestUnackedTimeMs(store: Store, table: Table, shard: number, ackedSeq: number): number | undefined {
  const name = streamShardDb(table.name, shard);
  if (!store.hasDatabase(name)) return undefined;
  const db = store.database(name);
  return store.read((txn) => {
    for (const { key, value } of txn.cursor(db, { start: encodeSequenceKey(ackedSeq + 1), limit: 1 })) {
      void decodeSequenceKey(key);
      return decodeStreamRecord(value).timeMs;
    }
    return undefined;
  });
}
