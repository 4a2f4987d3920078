/**
 * Marks tables as synced (shard-state.ts SyncSettings). The first time a table is marked, every
 * item it already holds is logged as an INSERT in the same txn, so the hub receives the whole
 * table and not only the changes made after sync was configured. Later calls only update the
 * settings. Runs inside one write txn per table.
 *
 * A hub's own tables use it (hub-log.ts, the forwarder): their log feeds readers on the same
 * store. A device's sync agent does not: its tables' items go up as a paged base read
 * (replication/base-read.ts), never copied into the outbox.
 */
import type { EncodedKey } from '../codec/item-key.js';
import { decodeItem } from '../codec/item-value.js';
import type { Store } from '../storage/store.js';
import { recordBody, recordItemSize } from '../codec/item-record.js';
import type { Table } from '../table/table.js';
import type { Item } from '../model/attribute-value.js';
import { ChangeLogWriter } from './change-log-writer.js';
import { readSyncSettings, writeSyncSettings, type SyncSettings } from './shard-state.js';

const PAGE = 512;

/** Returns the number of existing items logged (0 unless this is the table's first enable). */
export function enableSync(store: Store, table: Table, settings: SyncSettings): number {
  return store.write((txn) => {
    const before = readSyncSettings(txn, table.meta);
    writeSyncSettings(txn, table.meta, settings);
    if (before !== undefined) return 0;
    const log = new ChangeLogWriter(txn);
    log.enforceBudget = false;
    log.snapshot = true;
    let logged = 0;
    for (const partition of table.partitions) {
      let after: Uint8Array | undefined;
      for (;;) {
        const page: { key: Uint8Array; encoded: EncodedKey; item: Item; size: number }[] = [];
        for (const { key, value } of txn.cursor(partition.db, { ...(after ? { start: after, startExclusive: true } : {}), limit: PAGE })) {
          page.push({ key, encoded: table.keyOfStored(txn, key, value), item: decodeItem(recordBody(value), 0, table.names), size: recordItemSize(value) });
        }
        for (const e of page) log.beforePut(table, partition, e.encoded, e.item, e.size, undefined);
        logged += page.length;
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.key;
      }
    }
    log.flush(false);
    return logged;
  });
}
