/**
 * The sub-database of one change-log shard (`t/<table>/s/<shard>`, database-names.ts).
 *
 * The write path holds a Table and a txn but not the Store, so it cannot ask
 * `store.database(name)`. Until Table owns its shard databases (as it owns its partitions'), this
 * module keeps one Database object per (Table object, shard): the storage layer opens its native
 * handle lazily inside the txn that first uses it and forgets it if that txn aborts, exactly as for
 * the Store's own objects. Keyed by the Table object, so a deleted and recreated table (a new Table
 * object) never reuses a handle LMDB closed when the old shard was dropped.
 */
import { SYNC_DB, streamShardDb } from '../partition/database-names.js';
import { Database } from '../storage/database.js';
import type { Table } from '../table/table.js';

const byTable = new WeakMap<Table, Map<number, Database>>();

export function shardDatabase(table: Table, shard: number): Database {
  let shards = byTable.get(table);
  if (!shards) byTable.set(table, (shards = new Map()));
  let db = shards.get(shard);
  if (!db) shards.set(shard, (db = new Database(streamShardDb(table.name, shard))));
  return db;
}

const syncByTable = new WeakMap<Table, Database>();

/** The `_sync` database of the table's store (store clock, incarnation), for the write path. */
export function storeSyncDatabase(table: Table): Database {
  let db = syncByTable.get(table);
  if (!db) syncByTable.set(table, (db = new Database(SYNC_DB)));
  return db;
}
