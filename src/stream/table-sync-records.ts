/**
 * The records a store's `_sync` database keeps under a table's name (not its TableId), and their
 * removal with the table. Everything else of a table lives in its own sub-databases, which
 * DeleteTable drops; these would outlive it, and a table re-created under the same name would
 * inherit them: last-writer-wins would compare the new table's writes with the versions of items
 * the old one held (refusing older ones), a base read would resume with the old one's marks.
 * DynamoDB's re-created table starts empty and knows nothing of its predecessor, so DeleteTable
 * removes them in its own txn (ops/control/delete-table.ts).
 *
 *   'v' table 0x00 itemKey                  item version (item-versions.ts)
 *   'm' table 0x00 itemKey                  a base read's mark (replication/down-records.ts)
 *   'G' table                               tombstone collection state (replication/collect-tombstones.ts)
 *   'D' table                               a device's base read in progress (replication/down-records.ts)
 *   'E' table                               a device's request to re-read the table (replication/rebase-marks.ts)
 *   'd' device 0x00 incarnation 0x00 table  a hub's down state per device (replication/down-state.ts)
 *
 * Records keyed by TableId (refusals, a hub's applied sequences) belong to one incarnation of the
 * table already and stay.
 */
import type { Database } from '../storage/database.js';
import type { WriteTxn } from '../storage/txn.js';

export const ITEM_VERSION_PREFIX = 'v';
export const BASE_MARK_PREFIX = 'm';
export const TOMBSTONE_GC_PREFIX = 'G';
export const DEVICE_BASE_PREFIX = 'D';
export const DOWN_STATE_PREFIX = 'd';
export const REBASE_MARK_PREFIX = 'E';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Keys deleted per cursor walk: the walk stops before deleting, and starts again after them. */
const CHUNK = 4096;

/** Removes every `_sync` record kept under `table`'s name; returns how many went. */
export function dropTableSyncRecords(txn: WriteTxn, syncDb: Database, table: string): number {
  let dropped = 0;
  for (const prefix of [ITEM_VERSION_PREFIX, BASE_MARK_PREFIX]) dropped += dropRange(txn, syncDb, enc.encode(`${prefix}${table}\u0000`), () => true);
  for (const prefix of [TOMBSTONE_GC_PREFIX, DEVICE_BASE_PREFIX, REBASE_MARK_PREFIX]) if (txn.delete(syncDb, enc.encode(`${prefix}${table}`))) dropped += 1;
  dropped += dropRange(txn, syncDb, enc.encode(DOWN_STATE_PREFIX), (key) => downStateTable(key) === table);
  return dropped;
}

/** Deletes the keys starting with `prefix` that `select` accepts. */
function dropRange(txn: WriteTxn, db: Database, prefix: Uint8Array, select: (key: Uint8Array) => boolean): number {
  const end = Uint8Array.from(prefix);
  end[end.length - 1] = end[end.length - 1]! + 1;
  let dropped = 0;
  let from: { start: Uint8Array; startExclusive?: boolean } = { start: prefix };
  for (;;) {
    const chosen: Uint8Array[] = [];
    let last: Uint8Array | undefined;
    let seen = 0;
    for (const { key } of txn.cursor(db, { ...from, end, limit: CHUNK })) {
      seen += 1;
      last = Uint8Array.prototype.slice.call(key); // a copy: the key is a view of the map, gone after a delete
      if (select(last)) chosen.push(last);
    }
    for (const key of chosen) if (txn.delete(db, key)) dropped += 1;
    if (seen < CHUNK || last === undefined) return dropped;
    from = { start: last, startExclusive: true };
  }
}

/** The table a down-state key ('d' device 0x00 incarnation 0x00 table) is of: what follows its last 0x00. */
export function downStateTable(key: Uint8Array): string {
  const text = dec.decode(key);
  return text.slice(text.lastIndexOf('\u0000') + 1);
}
