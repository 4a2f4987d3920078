/**
 * Applies one down message's records at a device, in ONE write txn, by last-writer-wins: a record
 * whose version (HLC, device id, incarnation) is not newer than the item's version record
 * (stream/item-versions.ts; local writes keep theirs too) is skipped; the others go through the
 * engine's write path, so indexes, the item's version record and the change log (for db.observe
 * and local Streams readers) are written in the same txn. Their change records carry the write's
 * origin, so the sync agent never sends them back up (change-log-writer.ts).
 *
 * Each record's HLC is merged into the store clock (bounded by maxDriftMs, as acks are), so the
 * device's next local write comes after what it received. A base page also marks its keys for the
 * sweep at "base done" (down-records.ts), and its first page records the store clock then.
 */
import { checkItemKey } from '../model/key-rules.js';
import { itemSize } from '../model/item-size.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { HLC_ZERO, mergeHlc, readStoreClock, writeStoreClock } from '../stream/hlc.js';
import { compareVersions, readVersion, writeVersion } from '../stream/item-versions.js';
import { WriteSession } from '../table/write-session.js';
import type { Table } from '../table/table.js';
import type { DownEntry } from './down-messages.js';
import { readDeviceBase, writeDeviceBase, writeMark } from './down-records.js';

export type DownApplyContext = {
  readonly store: Store;
  readonly syncDb: Database;
  readonly table: Table;
  readonly nowMs: number;
  readonly maxDriftMs: number;
};

export type DownApplyResult = { readonly applied: number; readonly superseded: number; readonly clockRefused: number };

export function applyDown(ctx: DownApplyContext, entries: readonly DownEntry[], baseId?: string): DownApplyResult {
  const { store, syncDb, table } = ctx;
  for (const e of entries) checkItemKey(e.keys, table.keySchema);
  return store.write((txn) => {
    const before = readStoreClock(txn, syncDb) ?? HLC_ZERO;
    if (baseId !== undefined && readDeviceBase(txn, syncDb, table.name)?.id !== baseId) {
      writeDeviceBase(txn, syncDb, table.name, { id: baseId, startClock: before });
    }
    let clock = before;
    let clockRefused = 0;
    for (const e of entries) {
      const merged = mergeHlc(clock, e.version.hlc, ctx.nowMs, ctx.maxDriftMs);
      if (merged === undefined) clockRefused += 1;
      else clock = merged;
    }
    if (clock !== before) writeStoreClock(txn, syncDb, clock);
    const session = new WriteSession(txn);
    let applied = 0;
    let superseded = 0;
    for (const e of entries) {
      const key = table.keyOf(e.keys);
      if (baseId !== undefined) writeMark(txn, syncDb, table.name, key.bytes, baseId);
      const current = readVersion(txn, syncDb, table.name, key.bytes);
      if (current && compareVersions(current, e.version) >= 0) {
        superseded += 1;
        continue;
      }
      const partition = table.partitionOf(key.hash);
      const old = session.readState(table, partition, key);
      session.origin = e.version;
      if (e.remove) {
        if (old) session.deleteItem(table, partition, key, old);
      } else {
        session.putItem(table, partition, key, e.image!, itemSize(e.image!), old);
      }
      session.origin = undefined;
      writeVersion(txn, syncDb, table.name, key.bytes, e.version);
      applied += 1;
    }
    session.finish();
    return { applied, superseded, clockRefused };
  });
}
