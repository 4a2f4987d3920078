/**
 * Brings a store's records to text values, so its item and index databases are read without a
 * native Buffer per record (storage/text-values.ts; Query, Scan and GetItem spend about a third
 * less per item that way).
 *
 * Records written before store format 3 have no text trailer (codec/item-record.ts). On a writable
 * open, every such record of every table is rewritten with one, in bounded write txns, and then
 * the store is marked (Store.markTextValues): from that commit on, reads take the text path.
 *
 * Order, so no record without a trailer can appear after its database was walked: the store
 * format is raised to 3 first, in its own commit, which stops builds before it from writing (they
 * re-check the format at their next write, store-format.ts); builds from this one on write
 * trailers only. Each step is idempotent (a record's head says whether it has its trailer), so a
 * crash or a second process doing the same leaves nothing half done: the next open resumes.
 * Until the marker commits, reads take the Buffer path, which reads both forms.
 */
import { hasTextTrailer, withTextTrailer } from '../codec/item-record.js';
import type { Database } from '../storage/database.js';
import { TEXT_VALUES_STORE_FORMAT } from '../storage/store-format.js';
import type { Store } from '../storage/store.js';
import type { Table } from './table.js';

/** Records looked at per write txn: bounds each commit's dirty pages and the writer lock's hold. */
const STEP_RECORDS = 2_000;

export interface TextRecordsMigration {
  /** Records rewritten with a trailer. */
  readonly rewritten: number;
  /** Records looked at. */
  readonly scanned: number;
}

/**
 * Rewrites every record of `tables` without a text trailer, then marks the store; nothing when
 * the store is read-only or already marked. Throws what a write throws (a full disk): the store
 * then stays as readable as before, and the next open goes on.
 */
export function migrateToTextRecords(store: Store, tables: readonly Table[]): TextRecordsMigration {
  if (store.readOnly || store.hasTextValuesMarker) return { rewritten: 0, scanned: 0 };
  if (store.format < TEXT_VALUES_STORE_FORMAT) store.write((txn) => store.raiseFormat(txn, TEXT_VALUES_STORE_FORMAT));
  let rewritten = 0;
  let scanned = 0;
  for (const db of tables.flatMap(recordDatabases)) {
    if (!store.hasDatabase(db.name)) continue;
    let after: Uint8Array | undefined;
    for (let more = true; more; ) {
      more = store.write((txn) => {
        const legacy: { key: Uint8Array; record: Uint8Array }[] = [];
        let seen = 0;
        txn.each(db, after === undefined ? {} : { start: after, startExclusive: true }, (record, key) => {
          after = key;
          seen += 1;
          // withTextTrailer copies: the visited bytes are valid only during this call.
          if (!hasTextTrailer(record)) legacy.push({ key, record: withTextTrailer(record) });
          return seen < STEP_RECORDS;
        });
        for (const { key, record } of legacy) txn.put(db, key, record);
        scanned += seen;
        rewritten += legacy.length;
        return seen === STEP_RECORDS;
      });
    }
  }
  store.write((txn) => store.markTextValues(txn));
  return { rewritten, scanned };
}

/** Every database of `table` that holds records: partitions (a split's children too), LSIs, GSIs. */
function recordDatabases(table: Table): Database[] {
  const partitions = table.split ? [...table.partitions, table.split.left, table.split.right] : table.partitions;
  const dbs = partitions.flatMap((p) => [p.db, ...p.localIndexes.values()]);
  for (const gsi of table.globalIndexes) dbs.push(...gsi.partitions.map((p) => p.db));
  return [...new Set(dbs)];
}
