/**
 * The Time to Live sweeper (spec §6.9): deletes expired items of the tables whose TTL is enabled
 * through the normal write path (WriteSession, so index entries go with them and change records
 * are marked as TTL deletes). TTL deletes consume no write units: they are never metered.
 *
 * A table whose expiry index is complete (`TimeToLive.indexed`, ttl/expiry-index.ts) is swept
 * from the index: only entries that expired (at most TTL_MAX_PAST_SECONDS ago) are read, so a pass
 * costs what expired, not the table's size. Each entry's item is re-read and tested with
 * ttl/expiry.ts; entries that no longer match their item are removed. A table without a complete
 * index (TTL just enabled, or a store written before the index) is walked whole once, partition by
 * partition, deleting what expired and writing the index entries of the rest; at the end of that
 * walk `indexed` is set and later passes use the index.
 *
 * Work is bounded: one `step` reads at most `maxScanned` entries and deletes at most `maxDeletes`
 * items in ONE write txn per table visited, then remembers where it stopped (in memory; a new
 * process starts a new pass). A pass ends when every TTL table has been visited once.
 */
import { decodeAttributes, decodeItem } from '../codec/item-value.js';
import { readHash } from '../codec/partition-hash.js';
import { TTL_MAX_PAST_SECONDS } from '../model/limits.js';
import type { Store } from '../storage/store.js';
import type { WriteTxn } from '../storage/txn.js';
import { isExpiredValue } from '../ttl/expiry.js';
import { expiryBound, expiryKey, expirySeconds, expiryValue, readExpiryKey } from '../ttl/expiry-index.js';
import type { Catalog } from './catalog.js';
import { recordBody, recordItemSize } from '../codec/item-record.js';
import { WriteSession } from './write-session.js';
import { CatalogChangedError } from './catalog-changed.js';
import type { Partition, Table } from './table.js';
import type { TimeToLiveSettings } from './table-definition.js';

export type SweepLimits = { readonly maxScanned: number; readonly maxDeletes: number };

export const DEFAULT_SWEEP_LIMITS: SweepLimits = Object.freeze({ maxScanned: 5000, maxDeletes: 200 });

/** Where the current pass stands: the table (by name), its partition index, the last key read. */
type Position = { readonly tables: readonly string[]; table: number; partition: number; after: Uint8Array | undefined };

type StepResult = { seen: number; deleted: number; last?: Uint8Array; exhausted: boolean };

export class TtlSweeper {
  private position: Position | undefined;
  /** Entries read from expiry indexes and from whole-table walks, since the sweeper was made. */
  readonly work = { indexEntriesRead: 0, itemsWalked: 0 };

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
      if (!table || !ttl || (!ttl.indexed && !partition)) {
        pos.table++;
        pos.partition = 0;
        pos.after = undefined;
        continue;
      }
      const budget = { scan: this.limits.maxScanned - scanned, delete: this.limits.maxDeletes - deleted };
      const result = this.writeStep(() => this.store.write((txn) => {
        table.checkCurrent(txn); // before reading a partition another process may have split
        return ttl.indexed
          ? this.sweepIndex(txn, table, ttl, nowMs, budget)
          : this.walkPartition(txn, table, partition!, pos.after, pos.partition === table.partitions.length - 1, ttl, nowMs, budget);
      }));
      if (!result) continue; // the table changed: look it up again
      scanned += result.seen;
      deleted += result.deleted;
      if (ttl.indexed) {
        if (result.exhausted) pos.table++;
      } else if (result.exhausted) {
        pos.partition++;
        pos.after = undefined;
        if (pos.partition >= table.partitions.length) this.catalog.reload(); // `indexed` was set
      } else pos.after = result.last;
    }
    const done = pos.table >= pos.tables.length;
    if (done) this.position = undefined;
    return { deleted, done };
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

  /** Deletes items whose expiry-index entries say they expired; removes entries that do not match. */
  private sweepIndex(txn: WriteTxn, table: Table, ttl: TimeToLiveSettings, nowMs: number, budget: { scan: number; delete: number }): StepResult {
    const index = table.expiryIndex();
    const nowSeconds = nowMs / 1000;
    const entries: { key: Uint8Array; itemKey: Uint8Array }[] = [];
    // Entries below floor(now) have expired (an item expiring within this second waits a second).
    for (const { key, value } of txn.cursor(index, { start: expiryBound(nowSeconds - TTL_MAX_PAST_SECONDS), end: expiryBound(nowSeconds) })) {
      entries.push({ key, itemKey: readExpiryKey(key, value).itemKey });
      if (entries.length >= budget.scan || entries.length >= budget.delete) break;
    }
    this.work.indexEntriesRead += entries.length;
    const session = new WriteSession(txn, { ttl: true });
    let deleted = 0;
    for (const { key: entry, itemKey } of entries) {
      const key = { hash: readHash(itemKey, 0), bytes: itemKey };
      const partition = table.partitionOf(key.hash);
      const record = table.recordIn(txn, partition.db, key);
      const item = record && decodeItem(recordBody(record), 0, table.names);
      if (record && item && isExpiredValue(item[ttl.AttributeName], nowMs)) {
        session.deleteItem(table, partition, key, { item, size: recordItemSize(record) });
        deleted++;
      } else {
        txn.delete(index, entry); // stale, or older than TTL_MAX_PAST_SECONDS: never expires
      }
    }
    session.finish();
    const exhausted = entries.length < budget.scan && entries.length < budget.delete;
    return { seen: entries.length, deleted, exhausted };
  }

  /**
   * Walks one partition of a table whose expiry index is incomplete: deletes what expired and
   * writes the index entries of the rest; after the table's last partition, marks it indexed.
   */
  private walkPartition(txn: WriteTxn, table: Table, partition: Partition, after: Uint8Array | undefined, lastPartition: boolean, ttl: TimeToLiveSettings, nowMs: number, budget: { scan: number; delete: number }): StepResult {
    const names: ReadonlySet<string> = new Set([ttl.AttributeName]);
    const index = table.expiryIndex();
    const victims: { key: Uint8Array; body: Uint8Array; size: number }[] = [];
    const entries: { key: Uint8Array; value: Uint8Array }[] = [];
    let seen = 0;
    let last: Uint8Array | undefined;
    let exhausted = true;
    for (const entry of txn.cursor(partition.db, after ? { start: after, startExclusive: true } : {})) {
      seen++;
      last = entry.key;
      const body = recordBody(entry.value);
      const value = decodeAttributes(body, names, 0, table.names)[ttl.AttributeName];
      // A copy: the view dies when the cursor moves (and Buffer.slice would not copy).
      if (isExpiredValue(value, nowMs)) victims.push({ key: entry.key, body: Uint8Array.from(body), size: recordItemSize(entry.value) });
      else {
        const seconds = expirySeconds(value);
        if (seconds !== undefined) {
          // Expiry entries name items by their key in item-key.ts's layout, whatever the table's layout.
          const itemKey = table.keyOfStored(txn, entry.key, entry.value).bytes;
          entries.push({ key: expiryKey(seconds, itemKey), value: expiryValue(itemKey) });
        }
      }
      if (seen >= budget.scan || victims.length >= budget.delete) {
        exhausted = false;
        break;
      }
    }
    this.work.itemsWalked += seen;
    for (const { key, value } of entries) txn.put(index, key, value);
    const session = new WriteSession(txn, { ttl: true });
    for (const v of victims) {
      const item = decodeItem(v.body, 0, table.names);
      session.deleteItem(table, partition, table.keyOf(item), { item, size: v.size });
    }
    session.finish();
    if (exhausted && lastPartition) {
      this.catalog.replace(txn, table, { ...table.def, TimeToLive: { ...ttl, indexed: true } });
    }
    return { seen, deleted: victims.length, ...(last ? { last } : {}), exhausted };
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
}
