/**
 * Applies one device batch at a hub, in ONE write txn: records at or below the persisted applied
 * sequence of (device, table, shard) are skipped (a redelivered batch changes nothing), the rest
 * go through the engine's write path (so hub-side indexes and streams are maintained) subject to
 * last-writer-wins by (HLC, device id), and the applied sequence moves to the batch's last record
 * in the same txn. The caller acknowledges only after this returns, i.e. after the commit.
 *
 * Every record is decoded and checked before the txn starts: a malformed batch throws
 * MalformedBatchError and changes nothing.
 */
import { checkItemKey } from '../model/key-rules.js';
import { toWireItem } from '../model/binary.js';
import { validateItem } from '../model/validate-attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { MAX_ITEM_BYTES } from '../model/limits.js';
import type { Store } from '../storage/store.js';
import type { Database } from '../storage/database.js';
import { decodeStreamRecord, type StreamRecord } from '../stream/change-record.js';
import { WriteSession } from '../table/write-session.js';
import type { Table } from '../table/table.js';
import type { SyncBatch } from '../sync/sync-batch.js';
import { compareVersions, readApplied, readVersion, writeApplied, writeGap, writeVersion, type GapReport } from './hub-records.js';

export class MalformedBatchError extends Error {}

export type ApplyResult = { readonly appliedSeq: number; readonly applied: number; readonly superseded: number; readonly duplicates: number; readonly gaps: readonly GapReport[] };

export function applyBatch(store: Store, syncDb: Database, table: Table, batch: SyncBatch): ApplyResult {
  const records = batch.records.map(({ seq, bytes }) => ({ seq, record: checkRecord(table, seq, bytes) }));
  return store.write((txn) => {
    const before = readApplied(txn, syncDb, batch.deviceId, batch.table, batch.shard);
    const session = new WriteSession(txn);
    const gaps: GapReport[] = [];
    let applied = 0;
    let superseded = 0;
    let duplicates = 0;
    let expected = before + 1;
    for (const { seq, record } of records) {
      if (seq <= before) {
        duplicates += 1;
        continue;
      }
      if (record.kind === 'gap') {
        gaps.push({ device: batch.deviceId, table: batch.table, shard: batch.shard, firstSeq: record.firstSeq, lastSeq: record.lastSeq, records: record.records, bytes: record.bytes, reason: 'dropped by the device outbox (drop-oldest)' });
      } else {
        if (seq > expected && before > 0) {
          gaps.push({ device: batch.deviceId, table: batch.table, shard: batch.shard, firstSeq: expected, lastSeq: seq - 1, records: seq - expected, bytes: 0, reason: 'sequence jump' });
        }
        const source = record.newImage ?? record.keys;
        const key = table.keyOf(source);
        const version = { hlc: record.hlc, device: batch.deviceId };
        const current = readVersion(txn, syncDb, table.name, key.bytes);
        if (current && compareVersions(current, version) >= 0) {
          superseded += 1;
        } else {
          const partition = table.partitionOf(key.hash);
          const old = session.readState(table, partition, key);
          if (record.eventName === 'REMOVE') {
            if (old) session.deleteItem(table, partition, key, old);
          } else {
            session.putItem(table, partition, key, record.newImage!, itemSize(record.newImage!), old);
          }
          writeVersion(txn, syncDb, table.name, key.bytes, version);
          applied += 1;
        }
      }
      expected = seq + 1;
    }
    for (const gap of gaps) writeGap(txn, syncDb, gap);
    const last = records[records.length - 1]!.seq;
    const appliedSeq = Math.max(before, last);
    if (appliedSeq > before) writeApplied(txn, syncDb, batch.deviceId, batch.table, batch.shard, appliedSeq);
    session.finish();
    return { appliedSeq, applied, superseded, duplicates, gaps };
  });
}

function checkRecord(table: Table, seq: number, bytes: Uint8Array): StreamRecord {
  let record: StreamRecord;
  try {
    record = decodeStreamRecord(bytes);
  } catch (err) {
    throw new MalformedBatchError(`record ${seq}: ${(err as Error).message}`);
  }
  if (record.kind === 'gap') return record;
  try {
    checkItemKey(record.keys, table.keySchema);
    if (record.eventName !== 'REMOVE') {
      if (!record.newImage) throw new Error('an INSERT or MODIFY record without its new image (sync needs NEW_IMAGE)');
      // A device is not trusted to have obeyed DynamoDB's rules: the image goes through the same
      // validation as a PutItem's Item (numbers, sets, nesting, names), then the key and size rules.
      validateItem(toWireItem(record.newImage));
      checkItemKey(record.newImage, table.keySchema);
      if (itemSize(record.newImage) > MAX_ITEM_BYTES) throw new Error('item larger than 400 KB');
    }
  } catch (err) {
    throw new MalformedBatchError(`record ${seq}: ${(err as Error).message}`);
  }
  return record;
}
