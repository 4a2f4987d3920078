/**
 * Splitting one partition at its hash midpoint (DESIGN.md, "Partitions grow and split"): in ONE
 * write txn, the parent's base items and LSI entries move into two new sub-databases, the children
 * `[start, mid)` and `[mid, end)`, each naming the parent; the parent's databases are dropped and
 * its range is kept among `retiredPartitions`, so its change-log shard stays listed and closed
 * (no record is written under the parent's id again) with the children as its successors.
 * Because the move is one txn, a reader sees the table either before or after it: every item
 * exactly once. GSIs have their own partition maps and are not touched.
 */
import { readHash } from '../codec/item-key.js';
import { localIndexDb, partitionDb } from '../partition/database-names.js';
import type { PartitionRange } from '../partition/partition-map.js';
import type { Store } from '../storage/store.js';
import type { WriteTxn } from '../storage/txn.js';
import type { Catalog } from './catalog.js';
import { recordItemSize } from '../codec/item-record.js';
import { clearPartitionStats, writePartitionStats } from './partition-stats.js';
import { closeShard } from '../stream/shard-state.js';

export type SplitResult = { readonly parent: number; readonly children: readonly [PartitionRange, PartitionRange]; readonly itemsMoved: number };

/** Splits partition `pid` of `tableName`; undefined when it no longer exists or cannot split. */
export function splitPartition(store: Store, catalog: Catalog, tableName: string, pid: number): SplitResult | undefined {
  const result = store.write((txn) => {
    const def = catalog.readDefinition(txn, tableName);
    const parent = def?.partitions.find((p) => p.id === pid);
    if (!def || !parent) return undefined;
    const mid = Math.floor((parent.start + parent.end) / 2);
    if (mid <= parent.start) return undefined;
    const left: PartitionRange = { id: def.nextPartitionId, start: parent.start, end: mid, parent: pid };
    const right: PartitionRange = { id: def.nextPartitionId + 1, start: mid, end: parent.end, parent: pid };

    const moveAll = (from: string, toLeft: string, toRight: string) => moveRange(txn, store, from, toLeft, toRight, mid);
    const moved = moveAll(partitionDb(tableName, pid), partitionDb(tableName, left.id), partitionDb(tableName, right.id));
    for (const ix of def.LocalSecondaryIndexes) {
      moveAll(localIndexDb(tableName, pid, ix.IndexName), localIndexDb(tableName, left.id, ix.IndexName), localIndexDb(tableName, right.id, ix.IndexName));
    }
    const table = catalog.tableFor(def);
    clearPartitionStats(txn, table, pid);
    closeShard(txn, table.meta, pid);
    writePartitionStats(txn, table, left.id, moved.left);
    writePartitionStats(txn, table, right.id, moved.right);

    const partitions = def.partitions.flatMap((p) => (p.id === pid ? [left, right] : [p]));
    catalog.save(txn, {
      ...def,
      partitions,
      nextPartitionId: def.nextPartitionId + 2,
      retiredPartitions: [...(def.retiredPartitions ?? []), parent],
    });
    return { parent: pid, children: [left, right] as const, itemsMoved: moved.left.itemCount + moved.right.itemCount };
  });
  catalog.reload();
  return result;
}

type Moved = { itemCount: number; itemBytes: number };

/** Moves every entry of `from` into `toLeft` (hash < mid) or `toRight`, then drops `from`. */
function moveRange(txn: WriteTxn, store: Store, from: string, toLeft: string, toRight: string, mid: number): { left: Moved; right: Moved } {
  const source = store.database(from);
  const leftDb = store.database(toLeft);
  const rightDb = store.database(toRight);
  const left: Moved = { itemCount: 0, itemBytes: 0 };
  const right: Moved = { itemCount: 0, itemBytes: 0 };
  txn.count(leftDb);
  txn.count(rightDb);
  for (const { key, value } of txn.cursor(source)) {
    const goesLeft = readHash(key, 0) < mid;
    const side = goesLeft ? left : right;
    side.itemCount++;
    // Read the size before put(): a put ends the zero-copy value view's validity.
    side.itemBytes += recordItemSize(value);
    txn.put(goesLeft ? leftDb : rightDb, key, value);
  }
  store.dropDatabase(from);
  return { left, right };
}
