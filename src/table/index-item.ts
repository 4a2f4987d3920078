/**
 * Indexing one stored base item into some of its table's secondary indexes, for the writers that
 * build an index from the items already in the table instead of from a write: a GSI backfill
 * (gsi-backfill.ts) and a rebuild after salvage (rebuild-indexes.ts). The entry is derived by
 * indexEntryFor, the rule the write path's index maintenance (indexes/index-changes.ts) applies,
 * and written where the write path writes it, so a built index is exactly what the writes would
 * have left. Items whose index key is malformed are left out ('skip'), as DynamoDB skips them
 * when it backfills (spec §4.5). Overwriting an entry that exists is harmless (same key, same
 * record), so a step may run twice.
 */
import { encodeItemRecord } from '../codec/item-record.js';
import { indexEntryFor } from '../indexes/index-entry.js';
import type { SecondaryIndex } from '../indexes/secondary-index.js';
import type { Item } from '../model/attribute-value.js';
import type { WriteTxn } from '../storage/txn.js';
import type { Partition, Table } from './table.js';

/**
 * Writes the entries `item` (stored in `partition`) contributes to `indexes`; returns the bytes of
 * its LSI entries (an item collection counts them, item-collections.ts).
 */
export function indexItem(txn: WriteTxn, table: Table, partition: Partition, item: Item, indexes: readonly SecondaryIndex[]): number {
  let localBytes = 0;
  for (const index of indexes) {
    const entry = indexEntryFor(index, table.keySchema, item, 'skip');
    if (!entry) continue;
    const record = encodeItemRecord(entry.item, entry.size);
    if (index.kind === 'local') {
      txn.put(partition.localIndexes.get(index.IndexName)!, entry.key, record);
      localBytes += entry.size;
    } else {
      txn.put(table.globalIndexPartition(table.globalIndex(index.IndexName)!, entry.hash).db, entry.key, record);
    }
  }
  return localBytes;
}
