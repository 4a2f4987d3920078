/**
 * The rejections a hub's ack names (sync/protocol/sync-batch.ts `rejections`) for the writes of a
 * device batch it did not apply (apply-batch.ts): refused under the table's version rule, for the
 * device's write grants, or for a clock too far ahead; or lost to a version so far ahead that the
 * device must be sent the winner. Read inside the batch's txn.
 */
import type { Item } from '../model/attribute-value.js';
import { decodeStreamRecord, type ChangeRecord } from '../stream/change-record.js';
import type { Database } from '../storage/database.js';
import type { Table } from '../table/table.js';
import type { WriteSession } from '../table/write-session.js';
import { readDeadLetter } from './dead-letters.js';
import { readVersion, type StreamId, type Version } from './hub-records.js';
import { BEHIND_A_FUTURE_CLOCK, CLOCK_AHEAD, UNAUTHORIZED, type HubBatch, type WriteRejection } from './replica-types.js';

/** How the dead-letter reason of a write refused by the version rule begins (the ack's reason omits it). */
export const VERSION_CONFLICT = 'version conflict: ';

export type RejectionContext = {
  readonly syncDb: Database;
  readonly table: Table;
  readonly deadLetters: Table;
  readonly maxDriftMs: number;
};

export function rejectionFor(seq: number, record: ChangeRecord, hubItem: Item | undefined, hubVersion: Version | undefined, reason: string): WriteRejection {
  return { seq, keys: record.keys, ...(record.newImage ? { item: record.newImage } : {}), ...(hubItem ? { hubItem } : {}), reason, ...(hubVersion ? { hubVersion } : {}) };
}

/** A write refused for the device's write grants: named without anything of the hub's (a partition the device may not read). */
export function unauthorizedRejection(seq: number, record: ChangeRecord, reason: string): WriteRejection {
  return rejectionFor(seq, record, undefined, undefined, reason);
}

/**
 * The rejection of an already applied sequence, when the hub refused it under the version rule,
 * for the device's grants or for its clock (from the dead-letter table), so a redelivery whose ack
 * was lost is told again.
 */
export function rejectionOf(session: WriteSession, ctx: RejectionContext, id: StreamId, tableName: string, seq: number): WriteRejection | undefined {
  const letter = readDeadLetter(session, ctx.deadLetters, id, tableName, seq);
  if (!letter) return undefined;
  const versionRule = letter.reason.startsWith(VERSION_CONFLICT);
  if (!versionRule && !letter.reason.startsWith(UNAUTHORIZED) && !letter.reason.startsWith(CLOCK_AHEAD)) return undefined;
  const record = decodeStreamRecord(letter.bytes);
  if (record.kind !== 'change') return undefined;
  if (letter.reason.startsWith(UNAUTHORIZED)) return unauthorizedRejection(seq, record, letter.reason);
  const { table } = ctx;
  const key = table.keyOf(record.newImage ?? record.keys);
  const hubItem = session.readItem(table, table.partitionOf(key.hash), key)?.item;
  const hubVersion = readVersion(session.txn, ctx.syncDb, table.name, key.bytes);
  return rejectionFor(seq, record, hubItem, hubVersion, versionRule ? letter.reason.slice(VERSION_CONFLICT.length) : letter.reason);
}

/**
 * The hub's item and version for a device's write that lost under last-writer-wins to a version
 * more than maxDriftMs ahead of it, when the device receives the table too (its batches name
 * `after`): it had most likely received that version and refused its clock, and would otherwise
 * keep its losing copy (sync-batch.ts BEHIND_A_FUTURE_CLOCK). Ordinary concurrent writes are
 * never this far apart, and their winner reaches the device down as usual.
 */
export function winnerBack(session: WriteSession, ctx: RejectionContext, batch: HubBatch, seq: number, record: ChangeRecord): WriteRejection | undefined {
  if (batch.after === undefined) return undefined;
  const { table, syncDb } = ctx;
  const key = table.keyOf(record.newImage ?? record.keys);
  const current = readVersion(session.txn, syncDb, table.name, key.bytes);
  if (!current || current.hlc.ms - record.hlc.ms <= ctx.maxDriftMs) return undefined;
  const hubItem = session.readItem(table, table.partitionOf(key.hash), key)?.item;
  return rejectionFor(seq, record, hubItem, current, `${BEHIND_A_FUTURE_CLOCK}${current.hlc.ms - record.hlc.ms} ms`);
}
