/**
 * Moves a shard's sync cursor after the hub acknowledged `seq`, and prunes: in one write txn the
 * header's ackedSeq rises, the stored bytes of the newly acknowledged records leave pendingBytes,
 * and acknowledged records are deleted (at once, or once older than `retentionMs`). Idempotent: an
 * ack at or below the cursor changes nothing. A table that has (or had) a DynamoDB stream keeps
 * its acknowledged records for the Streams API: stream retention deletes them
 * (streams-api/trim-streams.ts), never sooner than retentionMs either.
 *
 * In the same txn, the hub's clock carried by the ack is merged into the store clock (hlc.ts;
 * refused when more than `maxDriftMs` ahead), and a 'refused' ack adds its records to the shard's
 * persisted refusals (sync-refusals.ts): the cursor moves past them either way.
 *
 * acknowledgeShard commits on the calling thread; acknowledgeShardPlan is the same txn for the
 * Replica port, which commits it off the event loop on db.promises' queue (replication/replica.ts,
 * what the sync agent uses on its MQTT path) and resolves once it is durable. The txn may run more
 * than once there; it reads all it decides on from the txn.
 */
import { SYNC_DB, streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { WriteTxn } from '../storage/txn.js';
import type { Table } from '../table/table.js';
import { decodeStreamRecord } from './change-record.js';
import { decodeSequenceKey, encodeSequenceKey } from './sequence-key.js';
import { readShardHeader, writeShardHeader } from './shard-state.js';
import { mergeStoreClock, readStoreClock, type Hlc } from './hlc.js';
import { addRefusal } from './sync-refusals.js';

export type AckEffects = {
  /** The hub's clock to merge into the store clock, and the drift bound (hlc.ts). */
  readonly hubClock?: Hlc;
  readonly maxDriftMs?: number;
  /** Set for a 'refused' ack: the hub kept the records in its dead-letter table. */
  readonly refusedMessage?: string;
};

export type AckOutcome = {
  readonly records: number;
  readonly clockRefused: boolean;
  /** The store clock after the ack (undefined when the store has none yet). */
  readonly clock: Hlc | undefined;
};

/** `records`: the number of records newly acknowledged (gaps count as one). */
export function acknowledgeShard(store: Store, table: Table, shard: number, seq: number, retentionMs: number, nowMs: number, effects: AckEffects = {}): AckOutcome {
  return store.write(acknowledgeShardPlan(store, table, shard, seq, retentionMs, nowMs, effects));
}

/** The ack's txn, for a caller that commits it on its own path (replication/replica.ts). */
export function acknowledgeShardPlan(store: Store, table: Table, shard: number, seq: number, retentionMs: number, nowMs: number, effects: AckEffects): (txn: WriteTxn) => AckOutcome {
  const db = store.database(streamShardDb(table.name, shard));
  const syncDb = store.database(SYNC_DB);
  return (txn) => {
    const clockRefused = effects.hubClock !== undefined && !mergeStoreClock(txn, syncDb, effects.hubClock, nowMs, effects.maxDriftMs ?? Infinity);
    const clock = readStoreClock(txn, syncDb);
    const h = readShardHeader(txn, table.meta, shard);
    if (!h) return { records: 0, clockRefused, clock };
    const upTo = Math.min(seq, h.nextSeq - 1);
    if (upTo <= h.ackedSeq) return { records: 0, clockRefused, clock };
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
    if (effects.refusedMessage !== undefined) addRefusal(txn, syncDb, table.def.TableId, shard, count, effects.refusedMessage, nowMs);
    return { records: count, clockRefused, clock };
  };
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
