/**
 * Splitting one partition at its hash midpoint (DESIGN.md, "Partitions grow and split") in bounded
 * steps, so no request waits long behind a split, whatever the partition's size:
 *
 * 1. begin (one txn): reserve the children's ids (`[start, mid)` and `[mid, end)`, each naming the
 *    parent), create their databases, record `split` in the table's definition. From this commit
 *    on, every write to the parent, in any process, is mirrored into the child that will own the
 *    key, base item and LSI entries alike (write-session.ts). Each child's statistics are its own
 *    database's contents (partition-stats.ts), so nothing else needs counting.
 * 2. copy (one txn per step, at most `maxEntries` entries): the parent's entries after the saved
 *    cursor, base items then each LSI, that the child lacks are copied into it; an entry the child
 *    already has was mirrored and is equal. The cursor lives in the table's meta database:
 *      key   := 'x'
 *      value := JSON { source: 0 (base) | 1 + LSI position, after?: base64 key }
 * 3. switch (one txn): the children replace the parent in the partition map and the parent joins
 *    `retiredPartitions` (its change-log shard is closed, the children's name it as parent); the
 *    parent's databases and the cursor are dropped.
 *
 * Until the switch every read and write is served by the parent, after it by the children, so a
 * reader sees every item exactly once. A crash leaves either state; a recorded split is resumed by
 * the engine when the store is opened (edgetable.ts), and re-copying after a crash is harmless.
 * One split per table at a time. GSIs have their own partition maps and are not touched.
 */
import { readHash } from '../codec/partition-hash.js';
import { localIndexDb, partitionDb } from '../partition/database-names.js';
import type { PartitionRange } from '../partition/partition-map.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { WriteTxn } from '../storage/txn.js';
import type { Catalog } from './catalog.js';
import { readPartitionStats } from './partition-stats.js';
import type { Partition, Table } from './table.js';
import { closeShard } from '../stream/shard-state.js';

export type SplitResult = { readonly parent: number; readonly children: readonly [PartitionRange, PartitionRange]; readonly itemsMoved: number };

/** Entries read per step: about 20 ms of work on a loaded 2-core box (measured in the split test). */
export const SPLIT_BATCH_ENTRIES = 1000;

const CURSOR_KEY = new Uint8Array([0x78]);
type Cursor = { source: number; after?: string };

/** Splits partition `pid` of `tableName` now, step after step; undefined when it no longer exists or cannot split. */
export function splitPartition(store: Store, catalog: Catalog, tableName: string, pid: number, maxEntries = SPLIT_BATCH_ENTRIES): SplitResult | undefined {
  if (!beginSplit(store, catalog, tableName, pid)) return undefined;
  for (;;) {
    const step = splitStep(store, catalog, tableName, maxEntries);
    if (step !== 'copying') return step;
  }
}

/**
 * Records the split of `pid` (step 1); false when the partition does not exist, cannot split, or
 * another split of the table is in progress. True when this split is (now) in progress.
 */
export function beginSplit(store: Store, catalog: Catalog, tableName: string, pid: number): boolean {
  const begun = store.write((txn) => {
    const table = catalog.readTable(txn, tableName);
    const def = table?.def;
    const parent = def?.partitions.find((p) => p.id === pid);
    if (!def || !parent) return false;
    if (def.split) return def.split.parent === pid;
    const mid = Math.floor((parent.start + parent.end) / 2);
    if (mid <= parent.start) return false;
    const left: PartitionRange = { id: def.nextPartitionId, start: parent.start, end: mid, parent: pid };
    const right: PartitionRange = { id: def.nextPartitionId + 1, start: mid, end: parent.end, parent: pid };
    for (const child of [left, right]) {
      txn.count(store.database(partitionDb(tableName, child.id)));
      for (const ix of def.LocalSecondaryIndexes) txn.count(store.database(localIndexDb(tableName, child.id, ix.IndexName)));
    }
    catalog.save(txn, { ...def, nextPartitionId: def.nextPartitionId + 2, split: { parent: pid, left, right } });
    return true;
  });
  catalog.reload();
  return begun;
}

/**
 * One bounded step of the table's split in progress: a copy step ('copying': call again) or the
 * switch (the result). undefined when no split is in progress.
 */
export function splitStep(store: Store, catalog: Catalog, tableName: string, maxEntries = SPLIT_BATCH_ENTRIES): SplitResult | 'copying' | undefined {
  const result = store.write((txn): SplitResult | 'copying' | undefined => {
    const table = catalog.readTable(txn, tableName);
    const split = table?.split;
    if (!table || !split) return undefined;
    const parent = table.partitions.find((p) => p.range.id === split.parent)!;
    const sources = copySources(table, parent);
    const cursor = readCursor(txn, table);
    if (cursor.source < sources.length) {
      writeCursor(txn, table, copyStep(txn, table, sources, cursor, maxEntries));
      return 'copying';
    }
    return switchToChildren(txn, store, catalog, table, parent);
  });
  if (result !== 'copying') catalog.reload();
  return result;
}

/** `base`: the source holds base items (stored as the table's layout says), not LSI entries (hash first). */
type Source = { from: Database; left: Database; right: Database; base: boolean };

function copySources(table: Table, parent: Partition): Source[] {
  const { left, right } = table.split!;
  return [
    { from: parent.db, left: left.db, right: right.db, base: true },
    ...table.def.LocalSecondaryIndexes.map((ix) => ({
      from: parent.localIndexes.get(ix.IndexName)!,
      left: left.localIndexes.get(ix.IndexName)!,
      right: right.localIndexes.get(ix.IndexName)!,
      base: false,
    })),
  ];
}

/** Copies up to `maxEntries` entries the children lack; returns the cursor after them. */
function copyStep(txn: WriteTxn, table: Table, sources: Source[], cursor: Cursor, maxEntries: number): Cursor {
  const { mid } = table.split!;
  const source = sources[cursor.source]!;
  const after = cursor.after === undefined ? undefined : Buffer.from(cursor.after, 'base64');
  let seen = 0;
  let last: Uint8Array | undefined;
  // Collected first: a put must not run while the cursor's value views are in use.
  const copies: { key: Uint8Array; value: Uint8Array; goesLeft: boolean }[] = [];
  for (const entry of txn.cursor(source.from, after ? { start: after, startExclusive: true } : {})) {
    last = Uint8Array.from(entry.key);
    const goesLeft = (source.base ? table.hashOfStored(txn, entry.key) : readHash(entry.key, 0)) < mid;
    if (txn.get(goesLeft ? source.left : source.right, entry.key) === undefined) copies.push({ key: last, value: Uint8Array.from(entry.value), goesLeft });
    if (++seen >= maxEntries) break;
  }
  for (const c of copies) txn.put(c.goesLeft ? source.left : source.right, c.key, c.value);
  if (seen < maxEntries || last === undefined) return { source: cursor.source + 1 };
  return { source: cursor.source, after: Buffer.from(last).toString('base64') };
}

function switchToChildren(txn: WriteTxn, store: Store, catalog: Catalog, table: Table, parent: Partition): SplitResult {
  const { left, right } = table.split!;
  const def = table.def;
  const moved = readPartitionStats(txn, left.db).itemCount + readPartitionStats(txn, right.db).itemCount;
  const { split: _, ...rest } = def;
  catalog.save(txn, {
    ...rest,
    partitions: def.partitions.flatMap((p) => (p.id === parent.range.id ? [left.range, right.range] : [p])),
    retiredPartitions: [...(def.retiredPartitions ?? []), parent.range],
  });
  closeShard(txn, table.meta, parent.range.id);
  txn.delete(table.meta, CURSOR_KEY);
  store.dropDatabase(partitionDb(def.TableName, parent.range.id));
  for (const ix of def.LocalSecondaryIndexes) store.dropDatabase(localIndexDb(def.TableName, parent.range.id, ix.IndexName));
  return { parent: parent.range.id, children: [left.range, right.range], itemsMoved: moved };
}

function readCursor(txn: WriteTxn, table: Table): Cursor {
  const raw = txn.get(table.meta, CURSOR_KEY);
  return raw ? (JSON.parse(Buffer.from(raw).toString('utf8')) as Cursor) : { source: 0 };
}

function writeCursor(txn: WriteTxn, table: Table, cursor: Cursor): void {
  txn.put(table.meta, CURSOR_KEY, Buffer.from(JSON.stringify(cursor), 'utf8'));
}
