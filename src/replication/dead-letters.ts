/**
 * The hub's dead-letter table: change records the hub received but could not apply (a batch that
 * fails validation or does not fit the hub table's key schema, a record older than the version
 * horizon that would overwrite an item whose version was collected) or would not (a write refused
 * by a version rule, outside the device's write grants, or stamped too far ahead: reasons
 * `version conflict: `, `unauthorized: `, `clock ahead: `, apply-batch.ts). An ordinary table of the hub
 * store, so it can be scanned, queried and exported like any other:
 *
 *   TableName  edgetable.dead-letters
 *   stream (S, HASH)   "<device>/<incarnation>/<table>/<tableId>/<shard>"
 *   seq    (N, RANGE)  the record's sequence number in that stream
 *   device, incarnation, table, tableId (S), shard (N), reason (S), refusedAt (N, epoch ms),
 *   record (B): the change record's bytes exactly as the device sent them (docs/change-record.md)
 *
 * Writes happen in the txn that moves the stream's applied sequence past the records, so a record
 * is either applied, or kept here, never neither. A device table of this name cannot be merged.
 */
import type { Item } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import type { EngineContext } from '../ops/engine-context.js';
import { OPERATIONS } from '../ops/operations.js';
import type { Table } from '../table/table.js';
import type { WriteSession } from '../table/write-session.js';
import type { StreamId } from './hub-records.js';

export const DEAD_LETTER_TABLE = 'edgetable.dead-letters';

/** The dead-letter table, created on first use. */
export function ensureDeadLetterTable(ctx: EngineContext): Table {
  const found = ctx.catalog.find(DEAD_LETTER_TABLE);
  if (found) return found;
  OPERATIONS.CreateTable(ctx, {
    TableName: DEAD_LETTER_TABLE,
    KeySchema: [
      { AttributeName: 'stream', KeyType: 'HASH' },
      { AttributeName: 'seq', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'stream', AttributeType: 'S' },
      { AttributeName: 'seq', AttributeType: 'N' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
  return ctx.catalog.require(DEAD_LETTER_TABLE);
}

export type DeadLetter = { readonly stream: StreamId; readonly table: string; readonly seq: number; readonly bytes: Uint8Array; readonly reason: string; readonly atMs: number };

/** The dead letter of (stream, seq), read inside the session's txn, or undefined. */
export function readDeadLetter(session: WriteSession, table: Table, stream: StreamId, tableName: string, seq: number): { readonly reason: string; readonly bytes: Uint8Array } | undefined {
  const key = table.keyOf({ stream: { S: streamName(stream, tableName) }, seq: { N: String(seq) } } as Item);
  const found = session.readItem(table, table.partitionOf(key.hash), key)?.item;
  const reason = found?.reason;
  const record = found?.record;
  if (!reason || !('S' in reason) || !record || !('B' in record)) return undefined;
  return { reason: reason.S, bytes: record.B };
}

function streamName(stream: StreamId, tableName: string): string {
  return `${stream.device}/${stream.incarnation}/${tableName}/${stream.tableId}/${stream.shard}`;
}

/** Stores one refused record inside the session's txn. */
export function writeDeadLetter(session: WriteSession, table: Table, d: DeadLetter): void {
  const { device, incarnation, tableId, shard } = d.stream;
  const item: Item = {
    stream: { S: streamName(d.stream, d.table) },
    seq: { N: String(d.seq) },
    device: { S: device },
    incarnation: { S: incarnation },
    table: { S: d.table },
    tableId: { S: tableId },
    shard: { N: String(shard) },
    reason: { S: d.reason.slice(0, 1000) },
    refusedAt: { N: String(d.atMs) },
    record: { B: d.bytes },
  } as Item;
  const key = table.keyOf(item);
  const partition = table.partitionOf(key.hash);
  session.putItem(table, partition, key, item, itemSize(item), session.readState(table, partition, key));
}
