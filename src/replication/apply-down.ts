/**
 * Applies one down message's records at a device, in ONE write txn, by last-writer-wins: a record
 * whose version (HLC, device id, incarnation) is not newer than the item's version record
 * (stream/item-versions.ts; local writes keep theirs too) is skipped, except a put of the same
 * version whose item is missing (it puts back what a salvage lost); the others go through the
 * engine's write path, so indexes, the item's version record and the change log (for db.observe
 * and local Streams readers) are written in the same txn. Their change records carry the write's
 * origin, so the sync agent never sends them back up (change-log-writer.ts).
 *
 * Each record's HLC is merged into the store clock (bounded by maxDriftMs, as acks are), so the
 * device's next local write comes after what it received. A base page also marks its keys for the
 * sweep at "base done" (down-records.ts); its first page records the store clock then and marks
 * the device's own writes still in its outbox.
 */
import { checkItemKey } from '../model/key-rules.js';
import { itemSize } from '../model/item-size.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { HLC_ZERO, mergeHlc, readStoreClock, writeStoreClock } from '../stream/hlc.js';
import { compareVersions, readVersion, writeVersion } from '../stream/item-versions.js';
import { implicitBaseVersion } from '../replication/base-read.js';
import { WriteSession } from '../table/write-session.js';
import type { Table } from '../table/table.js';
import type { DownEntry } from './replica-types.js';
import { isBaseDone, readDeviceBase, writeDeviceBase, writeMark } from './down-records.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { encodeSequenceKey } from '../stream/sequence-key.js';
import { shardDatabase } from '../stream/shard-database.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import type { WriteTxn } from '../storage/txn.js';

export type DownApplyContext = {
  readonly store: Store;
  readonly syncDb: Database;
  readonly table: Table;
  readonly nowMs: number;
  readonly maxDriftMs: number;
};

export type DownApplyResult = { readonly applied: number; readonly superseded: number; readonly clockRefused: number };

export function applyDown(ctx: DownApplyContext, entries: readonly DownEntry[], baseId?: string): DownApplyResult {
  return ctx.store.write(planDown(ctx, entries, baseId));
}

/**
 * The message's txn (keys checked first); repeatable, as writeAsync may re-run it. The Replica
 * commits it on the engine's asynchronous path (replica.ts applyDown): the down agent
 * acknowledges the message once that resolves, i.e. once its records are durable.
 */
export function planDown(ctx: DownApplyContext, entries: readonly DownEntry[], baseId?: string): (txn: WriteTxn) => DownApplyResult {
  const { syncDb, table } = ctx;
  for (const e of entries) checkItemKey(e.keys, table.keySchema);
  return (txn) => {
    const before = readStoreClock(txn, syncDb) ?? HLC_ZERO;
    const base = baseId !== undefined ? readDeviceBase(txn, syncDb, table.name) : undefined;
    // A page of a base read completed here, delivered again: it would only leave marks behind.
    if (baseId !== undefined && isBaseDone(base, baseId)) return { applied: 0, superseded: entries.length, clockRefused: 0 };
    if (baseId !== undefined && base?.id !== baseId) {
      writeDeviceBase(txn, syncDb, table.name, { id: baseId, startClock: before });
      markPending(txn, syncDb, table, baseId);
    }
    let clock = before;
    let clockRefused = 0;
    for (const e of entries) {
      const merged = mergeHlc(clock, e.version.hlc, ctx.nowMs, ctx.maxDriftMs);
      if (merged === undefined) clockRefused += 1;
      else clock = merged;
    }
    if (clock !== before) writeStoreClock(txn, syncDb, clock);
    // Observers (db.observe) see each write as the one of the device that made it ('hub' for the
    // hub's own): one session per run of entries from one writer, in order, in this txn.
    let session: WriteSession | undefined;
    let writer: string | undefined;
    let applied = 0;
    let superseded = 0;
    const implicit = implicitBaseVersion(txn, table);
    for (const e of entries) {
      const key = table.keyOf(e.keys);
      if (baseId !== undefined) writeMark(txn, syncDb, table.name, key.bytes, baseId);
      // An item the table held when its base read began and nobody wrote since has no version
      // record: it has the version its base record gives it at the hub (replication/base-read.ts).
      const current = readVersion(txn, syncDb, table.name, key.bytes) ?? (implicit && table.recordIn(txn, table.partitionOf(key.hash).db, key) ? implicit : undefined);
      const order = current ? compareVersions(current, e.version) : -1;
      // The same version of a put, while no item is stored: the version record outlived its item
      // (a salvaged store lost the item's page, not the version's). A version names one write, and
      // a put's version is never a delete's, so this is no tombstone: the record puts the item back.
      if (order > 0 || (order === 0 && (e.remove || table.recordIn(txn, table.partitionOf(key.hash).db, key) !== undefined))) {
        superseded += 1;
        continue;
      }
      if (!session || writer !== e.version.device) {
        session?.finish();
        writer = e.version.device;
        session = new WriteSession(txn, { origin: { origin: 'sync', deviceId: writer } });
      }
      const partition = table.partitionOf(key.hash);
      const old = session.readState(table, partition, key);
      session.receivedVersion = e.version;
      if (e.remove) {
        if (old) session.deleteItem(table, partition, key, old);
      } else {
        session.putItem(table, partition, key, e.image!, itemSize(e.image!), old);
      }
      session.receivedVersion = undefined;
      writeVersion(txn, syncDb, table.name, key.bytes, e.version);
      applied += 1;
    }
    session?.finish();
    return { applied, superseded, clockRefused };
  };
}

/**
 * A base read starts: the device's own writes still in its outbox are marked as if the base held
 * them, so the sweep keeps them whether or not the hub applies them before or after reading their
 * page (those it applies after come back down once, down-state.ts echoFrom).
 */
function markPending(txn: WriteTxn, syncDb: Database, table: Table, baseId: string): void {
  for (const shard of listShardIds(txn, table.meta)) {
    const header = readShardHeader(txn, table.meta, shard)!;
    for (const { value } of txn.cursor(shardDatabase(table, shard), { start: encodeSequenceKey(header.ackedSeq + 1) })) {
      const r = decodeStreamRecord(value);
      if (r.kind === 'change' && !r.origin) writeMark(txn, syncDb, table.name, table.keyOf(r.keys).bytes, baseId);
    }
  }
}
