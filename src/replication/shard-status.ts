/**
 * Per-shard sync figures computed from what the store holds (shard headers and the change log),
 * shared by a running agent's status() and by `edgetable sync status`, which reads a store that
 * an agent in another process is syncing.
 */
import { oldestUnackedTimeMs } from '../stream/acknowledge-shard.js';
import { listShardIds, readShardHeader, type ShardHeader } from '../stream/shard-state.js';
import { readRefusals } from '../stream/sync-refusals.js';
import { SYNC_DB } from '../partition/database-names.js';
import type { Table } from '../table/table.js';
import type { Edgetable } from '../edgetable.js';
import type { ShardSyncStatus } from '../sync/sync-options.js';

export type ShardState = { table: Table; shard: number; header: ShardHeader };

export function readShardStates(db: Edgetable, tables: readonly string[]): ShardState[] {
  const out: ShardState[] = [];
  for (const name of tables) {
    const table = db.context.catalog.find(name);
    if (!table) continue;
    db.store.read((txn) => {
      for (const shard of listShardIds(txn, table.meta)) out.push({ table, shard, header: readShardHeader(txn, table.meta, shard)! });
    });
  }
  return out;
}

export function shardSyncStatus(db: Edgetable, state: ShardState, now: number, inFlight: boolean): ShardSyncStatus {
  const { table, shard, header } = state;
  const lastSeq = header.nextSeq - 1;
  const oldest = header.ackedSeq < lastSeq ? oldestUnackedTimeMs(db.store, table, shard, header.ackedSeq) : undefined;
  const age = oldest === undefined ? 0 : Math.max(0, now - oldest);
  const refused = db.store.hasDatabase(SYNC_DB) ? db.store.read((txn) => readRefusals(txn, db.store.database(SYNC_DB), table.def.TableId, shard)) : undefined;
  return {
    table: table.name,
    shard,
    ...(header.parent !== undefined ? { parent: header.parent } : {}),
    lastSeq,
    ackedSeq: header.ackedSeq,
    lagRecords: lastSeq - header.ackedSeq,
    lagBytes: header.pendingBytes,
    lagSeconds: age / 1000,
    oldestUnackedAgeMs: age,
    inFlight,
    ...(refused ? { refused } : {}),
  };
}

/** Sync figures of every shard of `tables` (default: every table with a change log). */
export function readSyncStatus(db: Edgetable, tables?: readonly string[]): ShardSyncStatus[] {
  const names = tables ?? db.context.catalog.names();
  const now = Date.now();
  return readShardStates(db, names).map((s) => shardSyncStatus(db, s, now, false));
}
