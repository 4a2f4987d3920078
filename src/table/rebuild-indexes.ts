/**
 * Rebuilding what a table derives from its base items, from the items alone: its LSI and GSI
 * entries, its item collection sizes (tables with LSIs) and its expiry index (tables with TTL).
 * For a store whose derived records cannot be trusted to agree with its items: a salvaged copy of
 * a damaged store (cli/commands/salvage.ts) lost some base items and some index entries, each
 * where its own pages were damaged, so an index may name items that are gone and miss items that
 * are there.
 *
 * Every derived database of the table is cleared first (entries of lost items go with it), then
 * each base item is indexed again (index-item.ts, the rule the write path maintains indexes by),
 * in bounded write txns of `batchItems` items. Afterwards `verify` (verify-indexes.ts) finds no
 * difference. For a store nobody else writes: a write between two steps would keep the indexes
 * right (it maintains them itself, and indexing an item again is an overwrite), but its item
 * collection would be counted twice. No change records are written: the items did not change.
 *
 * A GSI still backfilling (CREATING) is rebuilt too, with its status and cursor left as they are:
 * the backfill then re-indexes items already indexed, which is an idempotent overwrite.
 */
import { decodeItem } from '../codec/item-value.js';
import { recordBody, recordItemSize } from '../codec/item-record.js';
import type { SecondaryIndex } from '../indexes/secondary-index.js';
import type { KeyValue } from '../model/attribute-value.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { expirySeconds, updateExpiryEntry } from '../ttl/expiry-index.js';
import { indexItem } from './index-item.js';
import { clearCollectionBytes, readCollectionBytes, writeCollectionBytes } from './item-collections.js';
import type { Partition, Table } from './table.js';

export const REBUILD_BATCH_ITEMS = 1000;

export type RebuiltIndex = { readonly IndexName: string; readonly Entries: number };

export type TableRebuild = {
  readonly TableName: string;
  /** Base items read (and indexed). */
  readonly Items: number;
  /** Base items whose record could not be decoded (their attribute names lost): kept, but in no index. */
  readonly Undecodable: number;
  readonly Indexes: readonly RebuiltIndex[];
  /** Item collections counted (tables with LSIs). */
  readonly Collections: number;
  /** Expiry index entries written (tables with TTL). */
  readonly ExpiryEntries: number;
};

export function rebuildTableIndexes(store: Store, table: Table, batchItems = REBUILD_BATCH_ITEMS): TableRebuild {
  const indexes: SecondaryIndex[] = [...table.def.LocalSecondaryIndexes, ...table.def.GlobalSecondaryIndexes];
  const ttl = table.def.TimeToLive?.AttributeName;
  const hasLocal = table.def.LocalSecondaryIndexes.length > 0;
  // A split in progress (partition-split.ts) copies items and their LSI entries into its children:
  // each child's LSIs are rebuilt from the items it holds; GSIs, collections and expiry entries
  // from the table's own partitions only, which hold every item.
  const children = table.split ? [table.split.left, table.split.right] : [];
  store.write((txn) => {
    table.checkCurrent(txn);
    for (const p of [...table.partitions, ...children]) for (const db of p.localIndexes.values()) txn.clear(db);
    for (const gsi of table.globalIndexes) for (const p of gsi.partitions) txn.clear(p.db);
    if (hasLocal) clearCollectionBytes(txn, table);
    if (ttl !== undefined) txn.clear(table.expiryIndex());
  });
  let items = 0;
  let undecodable = 0;
  const counts = { collections: 0, expiry: 0 };
  const local = indexes.filter((ix) => ix.kind === 'local');
  for (const [partition, only] of [...table.partitions.map((p) => [p, indexes] as const), ...children.map((p) => [p, local] as const)]) {
    const own = only === indexes;
    let after: Uint8Array | undefined;
    for (;;) {
      const step = store.write((txn) => {
        let seen = 0;
        let bad = 0;
        let last: Uint8Array | undefined;
        const page: { record: Uint8Array }[] = [];
        for (const { key, value } of txn.cursor(partition.db, after ? { start: after, startExclusive: true, limit: batchItems } : { limit: batchItems })) {
          last = Uint8Array.prototype.slice.call(key);
          page.push({ record: Uint8Array.prototype.slice.call(value) });
        }
        for (const { record } of page) {
          seen += 1;
          let item;
          try {
            item = decodeItem(recordBody(record), 0, table.names);
          } catch {
            bad += 1;
            continue;
          }
          const localBytes = indexItem(txn, table, partition, item, only);
          if (!own) continue;
          if (hasLocal) {
            const pk = item[table.keySchema.partitionKey.name] as KeyValue;
            const before = readCollectionBytes(txn, table, pk);
            if (before === 0) counts.collections += 1;
            writeCollectionBytes(txn, table, pk, before + recordItemSize(record) + localBytes);
          }
          if (ttl !== undefined) {
            updateExpiryEntry(txn, table.expiryIndex(), ttl, table.keyOf(item).bytes, undefined, item);
            if (expirySeconds(item[ttl]) !== undefined) counts.expiry += 1;
          }
        }
        return { seen, bad, last };
      });
      if (own) {
        items += step.seen - step.bad;
        undecodable += step.bad;
      }
      if (step.seen < batchItems || step.last === undefined) break;
      after = step.last;
    }
  }
  return {
    TableName: table.name,
    Items: items,
    Undecodable: undecodable,
    Indexes: indexes.map((ix) => ({ IndexName: ix.IndexName, Entries: countEntries(store, indexDatabases(table, ix)) })),
    Collections: counts.collections,
    ExpiryEntries: counts.expiry,
  };
}

function indexDatabases(table: Table, index: SecondaryIndex): Database[] {
  if (index.kind === 'local') return table.partitions.map((p: Partition) => p.localIndexes.get(index.IndexName)!);
  return table.globalIndex(index.IndexName)!.partitions.map((p) => p.db);
}

function countEntries(store: Store, dbs: readonly Database[]): number {
  return store.read((txn) => dbs.reduce((n, db) => n + txn.count(db), 0));
}
