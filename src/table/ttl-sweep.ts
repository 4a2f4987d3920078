/**
 * The Time to Live sweeper (spec §6.9): walks the tables whose TTL is enabled, partition by
 * partition in key order, and deletes expired items through the normal write path (WriteSession,
 * so index entries go with them and change records are marked as TTL deletes). TTL deletes consume
 * no write units: they are never metered.
 *
 * Work is bounded: one `step` reads at most `maxScanned` records and deletes at most `maxDeletes`
 * items in ONE write txn, then remembers where it stopped (in memory; a new process starts a new
 * pass). A pass ends when every TTL table has been walked once.
 */
import { decodeItem } from '../codec/item-value.js';
import type { Store } from '../storage/store.js';
import { expiryTest } from '../ttl/expiry.js';
import type { Catalog } from './catalog.js';
import { recordBody, recordItemSize } from '../codec/item-record.js';
import { WriteSession } from './write-session.js';
import { CatalogChangedError } from './catalog-changed.js';

export type SweepLimits = { readonly maxScanned: number; readonly maxDeletes: number };

export const DEFAULT_SWEEP_LIMITS: SweepLimits = Object.freeze({ maxScanned: 5000, maxDeletes: 200 });

/** Where the current pass stands: the table (by name), its partition index, the last key read. */
type Position = { readonly tables: readonly string[]; table: number; partition: number; after: Uint8Array | undefined };

export class TtlSweeper {
  private position: Position | undefined;

  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly now: () => number,
    private readonly limits: SweepLimits = DEFAULT_SWEEP_LIMITS,
  ) {}

  /** One bounded step; returns the items deleted and whether the pass is complete. */
  step(): { deleted: number; done: boolean } {
    const pos = (this.position ??= { tables: this.catalog.all().filter((t) => t.def.TimeToLive).map((t) => t.name), table: 0, partition: 0, after: undefined });
    const nowMs = this.now();
    let scanned = 0;
    let deleted = 0;
    while (pos.table < pos.tables.length && scanned < this.limits.maxScanned && deleted < this.limits.maxDeletes) {
      const table = this.catalog.find(pos.tables[pos.table]!);
      const ttl = table?.def.TimeToLive;
      const partition = table?.partitions[pos.partition];
      if (!table || !ttl || !partition) {
        pos.table++;
        pos.partition = 0;
        pos.after = undefined;
        continue;
      }
      const expired = expiryTest(ttl.AttributeName, nowMs);
      const result = this.writeStep(() => this.store.write((txn) => {
        table.checkCurrent(txn); // before reading a partition another process may have split
        const victims: { key: Uint8Array; body: Uint8Array; size: number }[] = [];
        let seen = 0;
        let last: Uint8Array | undefined;
        let exhausted = true;
        const from = pos.after;
        for (const entry of txn.cursor(partition.db, from ? { start: from, startExclusive: true } : {})) {
          seen++;
          last = entry.key;
          const body = recordBody(entry.value);
          // A copy: the view dies when the cursor moves (and Buffer.slice would not copy).
          if (expired(body)) victims.push({ key: entry.key, body: Uint8Array.from(body), size: recordItemSize(entry.value) });
          if (scanned + seen >= this.limits.maxScanned || deleted + victims.length >= this.limits.maxDeletes) {
            exhausted = false;
            break;
          }
        }
        const session = new WriteSession(txn, { ttl: true });
        for (const v of victims) {
          const item = decodeItem(v.body);
          session.deleteItem(table, partition, table.keyOf(item), { item, size: v.size });
        }
        session.finish();
        return { seen, last, exhausted, deletedNow: victims.length };
      }));
      if (!result) continue; // the table changed: look it up again
      scanned += result.seen;
      deleted += result.deletedNow;
      if (result.exhausted) {
        pos.partition++;
        pos.after = undefined;
      } else pos.after = result.last;
    }
    const done = pos.table >= pos.tables.length;
    if (done) this.position = undefined;
    return { deleted, done };
  }

  /** Runs one step's txn; undefined (after reloading the catalog) when the table changed under it. */
  private writeStep<T>(run: () => T): T | undefined {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof CatalogChangedError)) throw error;
      this.catalog.reload();
      return undefined;
    }
  }

  /** Runs one whole pass from the start (abandoning a pass in progress); returns the items deleted. */
  sweep(): number {
    this.position = undefined;
    let total = 0;
    for (;;) {
      const { deleted, done } = this.step();
      total += deleted;
      if (done) return total;
    }
  }
}
