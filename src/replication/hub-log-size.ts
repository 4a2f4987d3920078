/**
 * The hub log's size per table, as the size cap counts it (hub-log.ts): the records every shard
 * holds, from its oldest kept to its last. Tables with a DynamoDB stream are left out: their
 * retention is the Streams API's, not the cap's. O(shards) header reads.
 */
import type { Edgetable } from '../edgetable.js';
import { DEAD_LETTER_TABLE } from '../hub/dead-letters.js';
import { hubLogRecords } from '../hub/hub-log.js';

export type LogSize = { readonly table: string; readonly records: number };

export function hubLogSizes(db: Edgetable): LogSize[] {
  if (db.store.closed) return [];
  return db.context.catalog
    .all()
    .filter((t) => t.name !== DEAD_LETTER_TABLE && t.def.LatestStreamLabel === undefined)
    .map((t) => ({ table: t.name, records: hubLogRecords(db.store, t) }));
}
