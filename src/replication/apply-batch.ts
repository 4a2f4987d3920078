/**
 * Applies one device batch at a hub, in ONE write txn. The batch's stream is (device,
 * incarnation, tableId, shard) (hub-records.ts): records at or below the stream's persisted
 * applied sequence are skipped (a redelivered batch changes nothing), the rest go through the
 * engine's write path (so hub-side indexes and streams are maintained) subject to
 * last-writer-wins by (HLC, device id, incarnation), and the applied sequence moves to the
 * batch's last record in the same txn. The caller acknowledges only after this returns, i.e.
 * after the commit.
 *
 * Clocks: every record's HLC is merged into the hub store's clock (stream/hlc.ts); the result
 * carries the hub clock, ticked, for the ack. A change record more than `maxDriftMs` ahead of the
 * hub's wall clock is refused (CLOCK_AHEAD): applied by its own clock, it would win every later
 * write of its key until real time caught up with it. Not merged, not applied, kept in the
 * dead-letter table, counted in clockRefused and named in the ack's rejections with the hub's item.
 *
 * Write grants: a record whose partition key `authorize` denies (hub/device-access.ts) is refused
 * (UNAUTHORIZED) the same way, before anything of the hub's is read for it, and named in the ack's
 * rejections without the hub's item. Either refusal leaves the rest of the batch to be applied, and
 * the stream moves past it: the device is told, not stuck.
 *
 * Every record is decoded and checked before anything is applied. A batch with a record the hub
 * cannot apply (malformed, fails DynamoDB's validation, or does not fit the hub table's key
 * schema) is refused whole: nothing of it is applied, its new records go to the dead-letter table
 * (dead-letters.ts) and the stream's applied sequence moves past them, in one txn, so the device
 * can be told to move on (status 'refused') and a redelivery is a duplicate.
 *
 * A device write that loses under last-writer-wins to a version more than `maxDriftMs` ahead of it
 * is answered with the winner (a rejection with reason BEHIND_A_FUTURE_CLOCK, winnerBack below),
 * when the device receives the table too.
 *
 * Version horizon (collect-versions.ts): a record that finds no version record for its key while
 * older than the collected floor is applied when the hub holds no item under the key (it may
 * resurrect an item deleted more than the horizon ago), and otherwise kept in the dead-letter
 * table (the hub cannot tell which write is newer).
 */
import { checkItemKey } from '../model/key-rules.js';
import type { KeyValue } from '../model/attribute-value.js';
import { toWireItem } from '../model/binary.js';
import { validateItem } from '../model/validate-attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { MAX_ITEM_BYTES } from '../model/limits.js';
import type { Store } from '../storage/store.js';
import type { Database } from '../storage/database.js';
import type { WriteTxn } from '../storage/txn.js';
import { decodeStreamRecord, type StreamRecord } from '../stream/change-record.js';
import { compareHlc, HLC_ZERO, mergeHlc, readStoreClock, tickHlc, writeStoreClock, type Hlc } from '../stream/hlc.js';
import { WriteSession } from '../table/write-session.js';
import type { Table } from '../table/table.js';
import { CLOCK_AHEAD, UNAUTHORIZED, type HubBatch, type WriteRejection } from './replica-types.js';
import type { ConflictRule } from './conflict-rule.js';
import { writeDeadLetter } from './dead-letters.js';
import { checkVersion } from './version-check.js';
import { rejectionFor, rejectionOf, unauthorizedRejection, VERSION_CONFLICT, winnerBack } from './batch-rejections.js';
import { compareVersions, readApplied, readVersion, readVersionFloor, writeApplied, writeGap, writeVersion, type GapReport, type StreamId } from './hub-records.js';

export { VERSION_CONFLICT } from './batch-rejections.js';

export class MalformedBatchError extends Error {}

export type ApplyContext = {
  readonly store: Store;
  readonly syncDb: Database;
  /** The hub table the batch merges into. */
  readonly table: Table;
  readonly deadLetters: Table;
  readonly nowMs: number;
  readonly maxDriftMs: number;
  /** The table's conflict rule (replication/conflict-rule.ts); default last-writer-wins. */
  readonly conflict?: ConflictRule;
  /** Why the device may not write the item of this partition key value; undefined when it may. Default: it may. */
  readonly authorize?: (partitionKey: KeyValue) => string | undefined;
};

export type ApplyResult = {
  readonly status: 'applied' | 'refused';
  /** Why the batch was refused (status 'refused'). */
  readonly reason?: string;
  readonly appliedSeq: number;
  readonly applied: number;
  readonly superseded: number;
  readonly duplicates: number;
  /** Records kept in the dead-letter table by this batch. */
  readonly deadLettered: number;
  /** Record clocks not merged because they were too far ahead of the hub's wall clock (their change records refused). */
  readonly clockRefused: number;
  /** Change records refused for the device's write grants. */
  readonly unauthorized: number;
  readonly gaps: readonly GapReport[];
  /**
   * Writes refused by the table's version rule (kept in the dead-letter table with a reason
   * starting VERSION_CONFLICT), for the device's grants (UNAUTHORIZED) or its clock (CLOCK_AHEAD),
   * and those of redelivered records refused before, for the ack.
   */
  readonly rejections: readonly WriteRejection[];
  /** Records this batch refused under the version rule (redelivered ones not counted again). */
  readonly versionConflicts: number;
  /** The hub's clock after the batch, for the ack. */
  readonly hubClock: Hlc;
};

/** A record decoded and checked; `refusal` is why it is refused alone (its grants or its clock). */
type Checked = { readonly seq: number; readonly bytes: Uint8Array; readonly record: StreamRecord; readonly refusal?: string };

/** Applies the batch in one write txn committed on this thread (durable on return in durability 'sync'). */
export function applyBatch(ctx: ApplyContext, batch: HubBatch): ApplyResult {
  return ctx.store.write(planBatch(ctx, batch));
}

/**
 * The batch's write txn (the Replica commits it on the engine's asynchronous path, replica.ts
 * applyHubBatch): its records checked first (outside any txn), then either the apply or,
 * for a batch the hub cannot apply, the refusal. Repeatable: it reads everything it decides on
 * from the txn.
 */
export function planBatch(ctx: ApplyContext, batch: HubBatch): (txn: WriteTxn) => ApplyResult {
  const id: StreamId = { device: batch.deviceId, incarnation: batch.incarnation, tableId: batch.tableId, shard: batch.shard };
  let records: Checked[];
  try {
    records = batch.records.map(({ seq, bytes }) => {
      const record = checkRecord(ctx.table, seq, bytes);
      const refusal = refusalOf(ctx, record);
      return { seq, bytes, record, ...(refusal !== undefined ? { refusal } : {}) };
    });
  } catch (err) {
    if (err instanceof MalformedBatchError) return planRefusal(ctx, batch, err.message);
    throw err;
  }
  const { syncDb, table } = ctx;
  return (txn) => {
    const before = readApplied(txn, syncDb, id);
    const floor = readVersionFloor(txn, syncDb);
    // Merge the device's clocks first, so hub-side change records written below come after them.
    let clock = readStoreClock(txn, syncDb) ?? HLC_ZERO;
    let clockRefused = 0;
    for (const { seq, record, refusal } of records) {
      if (seq <= before || refusal?.startsWith(UNAUTHORIZED)) continue;
      const merged = mergeHlc(clock, record.hlc, ctx.nowMs, ctx.maxDriftMs);
      if (merged === undefined) clockRefused += 1;
      else clock = merged;
    }
    writeStoreClock(txn, syncDb, clock);
    // Observers of the hub's tables (db.observe) see these writes as the device's, origin 'sync'.
    // A write that changes no item here still moves its key's version: logged version-only, so the
    // down direction tells the devices that hold an older one (change-record.ts, flags bit 1).
    const session = new WriteSession(txn, { origin: { origin: 'sync', deviceId: batch.deviceId }, logVersionOnly: true });
    const gaps: GapReport[] = [];
    let applied = 0;
    let superseded = 0;
    let duplicates = 0;
    let deadLettered = 0;
    // Records between the device's cursor and this batch are writes it received from the hub (two-way sync).
    let expected = Math.max(before, batch.after ?? 0) + 1;
    const rejections: WriteRejection[] = [];
    let versionConflicts = 0;
    let unauthorized = 0;
    const rule = ctx.conflict?.strategy === 'version' ? ctx.conflict.attribute : undefined;
    for (const { seq, bytes, record, refusal } of records) {
      if (seq <= before) {
        duplicates += 1;
        // A redelivery whose ack (and its rejections) was lost: tell the device again.
        if (record.kind === 'change') {
          const again = rejectionOf(session, ctx, id, batch.table, seq) ?? (rule === undefined ? winnerBack(session, ctx, batch, seq, record) : undefined);
          if (again) rejections.push(again);
        }
        continue;
      }
      if (record.kind === 'change' && refusal?.startsWith(UNAUTHORIZED)) {
        // Nothing of the hub's is read for it: the ack must not tell what the partition holds.
        writeDeadLetter(session, ctx.deadLetters, { stream: id, table: batch.table, seq, bytes, reason: refusal, atMs: ctx.nowMs });
        rejections.push(unauthorizedRejection(seq, record, refusal));
        unauthorized += 1;
        deadLettered += 1;
      } else if (record.kind === 'gap') {
        gaps.push({ device: batch.deviceId, table: batch.table, shard: batch.shard, firstSeq: record.firstSeq, lastSeq: record.lastSeq, records: record.records, bytes: record.bytes, reason: 'dropped by the device outbox (drop-oldest)' });
      } else {
        if (seq > expected && before > 0) {
          gaps.push({ device: batch.deviceId, table: batch.table, shard: batch.shard, firstSeq: expected, lastSeq: seq - 1, records: seq - expected, bytes: 0, reason: 'sequence jump' });
        }
        const source = record.newImage ?? record.keys;
        const key = table.keyOf(source);
        const version = { hlc: record.hlc, device: batch.deviceId, incarnation: batch.incarnation };
        const current = readVersion(txn, syncDb, table.name, key.bytes);
        const partition = table.partitionOf(key.hash);
        const old = rule !== undefined ? session.readItem(table, partition, key) : session.readState(table, partition, key);
        const versionRefusal = refusal === undefined && rule !== undefined ? checkVersion(rule, record, old?.item) : undefined;
        if (refusal !== undefined) {
          // Its clock: the hub's item and version go back, so the device takes them (restore-rejected.ts).
          writeDeadLetter(session, ctx.deadLetters, { stream: id, table: batch.table, seq, bytes, reason: refusal, atMs: ctx.nowMs });
          rejections.push(rejectionFor(seq, record, rule !== undefined ? old?.item : session.readItem(table, partition, key)?.item, current, refusal));
          deadLettered += 1;
        } else if (versionRefusal !== undefined) {
          writeDeadLetter(session, ctx.deadLetters, { stream: id, table: batch.table, seq, bytes, reason: VERSION_CONFLICT + versionRefusal, atMs: ctx.nowMs });
          rejections.push(rejectionFor(seq, record, old?.item, current, versionRefusal));
          versionConflicts += 1;
          deadLettered += 1;
        } else if (rule === undefined && current && compareVersions(current, version) >= 0) {
          superseded += 1;
          const back = winnerBack(session, ctx, batch, seq, record);
          if (back) rejections.push(back);
        } else if (rule === undefined && !current && old && floor && compareHlc(record.hlc, floor) <= 0) {
          writeDeadLetter(session, ctx.deadLetters, { stream: id, table: batch.table, seq, bytes, reason: "older than the hub's version horizon, and the hub holds an item whose version was collected", atMs: ctx.nowMs });
          deadLettered += 1;
        } else {
          // The hub's change record keeps the write's origin: the down publisher sends it to every
          // other subscribed device with this version, and not back to this one.
          session.receivedVersion = version;
          if (record.eventName === 'REMOVE') {
            if (old) session.deleteItem(table, partition, key, old);
            else session.deleteAbsent(table, partition, key, record.keys);
          } else {
            session.putItem(table, partition, key, record.newImage!, itemSize(record.newImage!), old);
          }
          session.receivedVersion = undefined;
          writeVersion(txn, syncDb, table.name, key.bytes, version);
          applied += 1;
        }
      }
      expected = seq + 1;
    }
    for (const gap of gaps) writeGap(txn, syncDb, id, gap);
    const last = records[records.length - 1]!.seq;
    const appliedSeq = Math.max(before, last);
    if (appliedSeq > before) writeApplied(txn, syncDb, id, appliedSeq);
    session.finish();
    const hubClock = tickClock(txn, syncDb, ctx.nowMs);
    return { status: 'applied' as const, appliedSeq, applied, superseded, duplicates, deadLettered, clockRefused, unauthorized, gaps, rejections, versionConflicts, hubClock };
  };
}

/**
 * The txn that refuses a whole batch: keeps its new records in the dead-letter table with `reason`
 * and moves the stream past them. Also the hub's answer to a batch of a table the device may not
 * write at all (hub/batch-handler.ts), which needs no hub table.
 */
export function planRefusal(ctx: Pick<ApplyContext, 'syncDb' | 'deadLetters' | 'nowMs'>, batch: HubBatch, reason: string): (txn: WriteTxn) => ApplyResult {
  const id: StreamId = { device: batch.deviceId, incarnation: batch.incarnation, tableId: batch.tableId, shard: batch.shard };
  return (txn) => {
    const before = readApplied(txn, ctx.syncDb, id);
    const session = new WriteSession(txn);
    let deadLettered = 0;
    let duplicates = 0;
    for (const { seq, bytes } of batch.records) {
      if (seq <= before) {
        duplicates += 1;
        continue;
      }
      writeDeadLetter(session, ctx.deadLetters, { stream: id, table: batch.table, seq, bytes, reason, atMs: ctx.nowMs });
      deadLettered += 1;
    }
    const appliedSeq = Math.max(before, batch.records[batch.records.length - 1]!.seq);
    if (appliedSeq > before) writeApplied(txn, ctx.syncDb, id, appliedSeq);
    session.finish();
    const hubClock = tickClock(txn, ctx.syncDb, ctx.nowMs);
    return { status: 'refused' as const, reason, appliedSeq, applied: 0, superseded: 0, duplicates, deadLettered, clockRefused: 0, unauthorized: 0, gaps: [], rejections: [], versionConflicts: 0, hubClock };
  };
}

/** The ack is an event of the hub: its clock ticks (and is persisted in the batch's txn). */
function tickClock(txn: Parameters<typeof writeStoreClock>[0], syncDb: Database, nowMs: number): Hlc {
  const hlc = tickHlc(readStoreClock(txn, syncDb) ?? HLC_ZERO, nowMs);
  writeStoreClock(txn, syncDb, hlc);
  return hlc;
}

/** Why a change record is refused alone: outside the device's write grants, or its clock too far ahead. */
function refusalOf(ctx: ApplyContext, record: StreamRecord): string | undefined {
  if (record.kind === 'gap') return undefined;
  const denial = ctx.authorize?.((record.newImage ?? record.keys)[ctx.table.keySchema.partitionKey.name] as KeyValue);
  if (denial !== undefined) return UNAUTHORIZED + denial;
  const aheadMs = record.hlc.ms - ctx.nowMs;
  if (aheadMs > ctx.maxDriftMs) return `${CLOCK_AHEAD}the record's clock is ${aheadMs} ms ahead of the hub's, over maxClockDriftMs ${ctx.maxDriftMs}`;
  return undefined;
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
