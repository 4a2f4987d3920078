/**
 * How far a forwarder is behind, per table: the change records after its cursor (version-only
 * records included: they cost a read, not a write) and the creation time of the oldest of them.
 * Read from the shards' headers and the first record after each cursor: O(shards) reads, cheap
 * enough for every status() and scrape. Through the Replica port: replica.ts forwardLag.
 */
import type { EngineContext } from '../ops/engine-context.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { listShards, readShardRaw } from '../stream/stream-reader.js';

export type TableLag = {
  readonly table: string;
  /** Records after the cursor, over every shard. */
  readonly records: number;
  /** Creation time (epoch ms) of the oldest record after the cursor; absent when there is none. */
  readonly oldestMs?: number;
};

/** `cursorOf(table, shard)`: the last sequence the forwarder is done with (its durable cursor). */
export function forwardLag(ctx: Pick<EngineContext, 'store' | 'catalog'>, tableNames: readonly string[], cursorOf: (table: string, shard: number) => number): TableLag[] {
  const out: TableLag[] = [];
  for (const name of tableNames) {
    const table = ctx.catalog.find(name);
    if (!table) continue;
    let records = 0;
    let oldestMs: number | undefined;
    for (const s of listShards(ctx.store, table)) {
      const cursor = cursorOf(name, s.ShardId);
      const last = s.SequenceNumberRange.LastSequenceNumber;
      if (last <= cursor) continue;
      // Records pruned below the log's start are not waiting any more (hub-log.ts counts them).
      const first = Math.max(cursor + 1, s.SequenceNumberRange.StartingSequenceNumber ?? last + 1);
      records += Math.max(0, last - first + 1);
      const [next] = readShardRaw(ctx.store, name, s.ShardId, first, 1);
      if (next) {
        const { timeMs } = decodeStreamRecord(next.bytes);
        oldestMs = oldestMs === undefined ? timeMs : Math.min(oldestMs, timeMs);
      }
    }
    out.push({ table: name, records, ...(oldestMs !== undefined ? { oldestMs } : {}) });
  }
  return out;
}
