/**
 * Per-shard sync figures computed from what the store holds (shard headers and the change log),
 * shared by a running agent's status() and by `edgetable sync status` (through replica.ts syncStatus), which reads a store that
 * an agent in another process is syncing.
 */
import { oldestUnackedTimeMs } from '../stream/acknowledge-shard.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import { readRefusals } from '../stream/sync-refusals.js';
import { SYNC_DB } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { Table } from '../table/table.js';
import type { ReplicaTable, ShardPosition, ShardSyncStatus } from './replica-types.js';

/** Every shard of each table with its header, each table read in one read txn. */
export function readShardPositions(store: Store, tables: readonly { readonly table: Table; readonly handle: ReplicaTable }[]): ShardPosition[] {
  const out: ShardPosition[] = [];
  for (const { table, handle } of tables) {
    store.read((txn) => {
      for (const shard of listShardIds(txn, table.meta)) out.push({ table: handle, shard, header: readShardHeader(txn, table.meta, shard)! });
    });
  }
  return out;
}

export function shardSyncStatus(store: Store, table: Table, position: ShardPosition, now: number, inFlight: boolean): ShardSyncStatus {
  const { shard, header } = position;
  const lastSeq = header.nextSeq - 1;
  const oldest = header.ackedSeq < lastSeq ? oldestUnackedTimeMs(store, table, shard, header.ackedSeq) : undefined;
  const age = oldest === undefined ? 0 : Math.max(0, now - oldest);
  const refused = store.hasDatabase(SYNC_DB) ? store.read((txn) => readRefusals(txn, store.database(SYNC_DB), table.def.TableId, shard)) : undefined;
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
