/**
 * Backfilling a global secondary index added by UpdateTable, in bounded batches: each step is one
 * write txn that indexes at most `maxItems` base items after the saved cursor and saves the new
 * cursor in the catalog, so writes interleave between steps and are never blocked for long, and a
 * crash resumes where the last step committed. Writes made meanwhile maintain the index themselves
 * (write-session.ts), so re-indexing an item here (index-item.ts) is an idempotent overwrite.
 */
import { decodeItem } from '../codec/item-value.js';
import type { Store } from '../storage/store.js';
import type { Catalog } from './catalog.js';
import { recordBody } from '../codec/item-record.js';
import { indexItem } from './index-item.js';
import type { BackfillCursor, GlobalIndexDefinition, TableDefinition } from './table-definition.js';

export const BACKFILL_BATCH_ITEMS = 1000;

/** Runs one step; returns true when the index is complete (and now ACTIVE) or gone. */
export function backfillStep(store: Store, catalog: Catalog, tableName: string, indexName: string, maxItems = BACKFILL_BATCH_ITEMS): boolean {
  const done = store.write((txn) => {
    const table = catalog.readTable(txn, tableName);
    const def = table?.def;
    const index = def?.GlobalSecondaryIndexes.find((ix) => ix.IndexName === indexName);
    if (!table || !def || !index || index.IndexStatus !== 'CREATING' || !index.backfill) return true;
    let cursor: BackfillCursor = index.backfill;
    let budget = maxItems;
    while (budget > 0 && cursor.partition < table.partitions.length) {
      const partition = table.partitions[cursor.partition]!;
      const after = cursor.after === undefined ? undefined : Buffer.from(cursor.after, 'base64');
      let last: Uint8Array | undefined;
      let processed = 0;
      for (const entry of txn.cursor(partition.db, after ? { start: after, startExclusive: true } : {})) {
        indexItem(txn, table, partition, decodeItem(recordBody(entry.value), 0, table.names), [index]);
        last = entry.key;
        processed++;
        if (processed >= budget) break;
      }
      budget -= processed;
      cursor = processed >= 1 && budget === 0
        ? { partition: cursor.partition, after: Buffer.from(last!).toString('base64'), itemsProcessed: cursor.itemsProcessed + processed }
        : { partition: cursor.partition + 1, itemsProcessed: cursor.itemsProcessed + processed };
    }
    const finished = cursor.partition >= table.partitions.length;
    catalog.save(txn, withIndex(def, indexName, finished
      ? { ...stripBackfill(index), IndexStatus: 'ACTIVE', Backfilling: false }
      : { ...index, backfill: cursor }));
    return finished;
  });
  catalog.reload();
  return done;
}

function stripBackfill(index: GlobalIndexDefinition): GlobalIndexDefinition {
  const { backfill: _, ...rest } = index;
  return rest;
}

export function withIndex(def: TableDefinition, name: string, index: GlobalIndexDefinition): TableDefinition {
  return { ...def, GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map((ix) => (ix.IndexName === name ? index : ix)) };
}
