/**
 * The hub log's size per table, as the size cap counts it (hub-log.ts): the records every
 * shard holds, from its oldest kept to its last. Tables with a DynamoDB stream are left out: their
 * retention is the Streams API's, not the cap's. O(shards) header reads.
 */
import type { EngineContext } from '../ops/engine-context.js';
import type { Store } from '../storage/store.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import type { Table } from '../table/table.js';

export type LogSize = { readonly table: string; readonly records: number };

/** Every table's but those named in `except` (the dead letters, which have no log). */
export function hubLogSizes(ctx: Pick<EngineContext, 'store' | 'catalog'>, except: readonly string[]): LogSize[] {
  if (ctx.store.closed) return [];
  return ctx.catalog
    .all()
    .filter((t) => !except.includes(t.name) && t.def.LatestStreamLabel === undefined)
    .map((t) => ({ table: t.name, records: hubLogRecords(ctx.store, t) }));
}

/** Records the table's log holds now (every shard's, from its oldest kept to its last). */
export function hubLogRecords(store: Store, table: Table): number {
  return store.read((txn) =>
    listShardIds(txn, table.meta).reduce((n, id) => {
      const h = readShardHeader(txn, table.meta, id)!;
      return n + Math.max(0, h.nextSeq - 1 - h.ackedSeq);
    }, 0),
  );
}
