/**
 * Figures of one open store, read when scraped (`refresh`): items and bytes per table (the
 * partition statistics every write keeps), units consumed and requests throttled per table (this
 * process's throughput accounting), LMDB's map size and use, commits, commit and flush durations
 * (observed as they happen through Store.onFlush), the change log's lag per shard (records,
 * seconds) and outbox bytes, the background jobs' steps and failures, and whether the store is
 * known damaged (storage/store-health.ts).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Edgetable } from '../edgetable.js';
import { BACKGROUND_JOBS } from '../table/background-jobs.js';
import { knownDamage } from '../storage/store-health.js';

/** Seconds: a relaxed commit (~50 us) to a slow SD card's fsync (~1 s). */
export const FLUSH_BUCKETS_SECONDS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export type Refresh = () => void;

export function registerStoreMetrics(registry: Registry, db: Edgetable): Refresh {
  const registers = [registry];
  const gauge = (name: string, help: string, labelNames: readonly string[] = []) => new Gauge({ name, help, labelNames, registers });
  const counter = (name: string, help: string, labelNames: readonly string[] = []) => new Counter({ name, help, labelNames, registers });

  const items = gauge('edgetable_table_items', 'Items in a table', ['table']);
  const bytes = gauge('edgetable_table_bytes', 'Item bytes of a table (DynamoDB item sizes)', ['table']);
  const consumed = counter('edgetable_consumed_capacity_units_total', 'Read or write capacity units consumed in this process', ['table', 'direction']);
  const throttled = counter('edgetable_throttled_requests_total', 'Requests refused with ProvisionedThroughputExceededException in this process', ['table']);
  const mapSize = gauge('edgetable_lmdb_map_size_bytes', "LMDB's current map size");
  const mapMax = gauge('edgetable_lmdb_map_max_bytes', 'Largest map size the store may grow to');
  const mapUsed = gauge('edgetable_lmdb_used_bytes', 'Bytes of the map in use (last page + 1, free pages included)');
  const readers = gauge('edgetable_lmdb_readers', 'LMDB reader slots held by live processes, across processes');
  const staleReaders = gauge('edgetable_lmdb_stale_readers', 'LMDB reader slots still held by processes that ended without closing the store (cleared by the next writable open or map growth)');
  const commits = counter('edgetable_commits_total', 'Write transactions this process committed (a write group counts once)');
  const flushes = new Histogram({
    name: 'edgetable_flush_duration_seconds',
    help: 'Time of a commit (its fsync included with sync durability) or of a background flush (relaxed: the meta page; interval: the redo log)',
    labelNames: ['kind'],
    buckets: FLUSH_BUCKETS_SECONDS,
    registers,
  });
  const lagRecords = gauge('edgetable_sync_lag_records', 'Change records not yet acknowledged by the hub, per shard', ['table', 'shard']);
  const lagSeconds = gauge('edgetable_sync_lag_seconds', 'Age of the oldest unacknowledged change record, per shard', ['table', 'shard']);
  const outboxBytes = gauge('edgetable_outbox_bytes', 'Stored bytes of unacknowledged change records, per shard', ['table', 'shard']);
  const jobSteps = counter('edgetable_background_steps_total', 'Background job steps completed (ttlSweep, split, backfill)', ['job']);
  const jobFailures = counter('edgetable_background_failures_total', 'Background job steps that failed (retried after a back-off)', ['job']);
  const jobFailing = gauge('edgetable_background_consecutive_failures', 'Failures since the last completed step (0: healthy)', ['job']);

  const corrupt = gauge('edgetable_store_corrupt', '1 when the store was found damaged (by the periodic check, or when reading these figures met a damaged page); see docs/reliability.md, "Damaged stores"');

  db.store.onFlush = (kind, seconds) => flushes.observe({ kind }, seconds);

  // Each group of figures is read on its own: a damaged store fails some of them, and /metrics
  // must still answer (with edgetable_store_corrupt 1) exactly when it is needed most.
  const sections = [tableFigures, storeFigures, syncFigures, jobFigures];
  return () => {
    if (db.store.closed) return;
    let damaged = knownDamage(db.store.path) !== null;
    for (const section of sections) {
      try {
        section();
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'CORRUPT') throw err;
        damaged = true;
      }
    }
    corrupt.set(damaged ? 1 : 0);
  };

  function tableFigures(): void {
    for (const m of [items, bytes, consumed, throttled]) m.reset();
    const byTable = new Map<string, { items: number; bytes: number; throttled: number }>();
    for (const p of db.partitionMetrics()) {
      const t = byTable.get(p.TableName) ?? { items: 0, bytes: 0, throttled: 0 };
      t.items += p.ItemCount;
      t.bytes += p.SizeBytes;
      t.throttled += p.ThrottledRequests;
      byTable.set(p.TableName, t);
    }
    for (const [table, t] of byTable) {
      items.set({ table }, t.items);
      bytes.set({ table }, t.bytes);
      throttled.inc({ table }, t.throttled);
      const units = consumedUnits(db, table);
      consumed.inc({ table, direction: 'read' }, units.read);
      consumed.inc({ table, direction: 'write' }, units.write);
    }
  }

  function storeFigures(): void {
    const s = db.store.stats();
    mapSize.set(s.mapSizeBytes);
    mapMax.set(s.maxMapSizeBytes);
    mapUsed.set(s.usedBytes);
    readers.set(s.readers);
    staleReaders.set(s.staleReaders);
    commits.reset();
    commits.inc(s.commits);
  }

  function syncFigures(): void {
    for (const m of [lagRecords, lagSeconds, outboxBytes]) m.reset();
    for (const shard of db.replica.syncStatus()) {
      const labels = { table: shard.table, shard: String(shard.shard) };
      lagRecords.set(labels, shard.lagRecords);
      lagSeconds.set(labels, shard.lagSeconds);
      outboxBytes.set(labels, shard.lagBytes);
    }
  }

  function jobFigures(): void {
    const status = db.backgroundStatus();
    jobSteps.reset();
    jobFailures.reset();
    for (const job of BACKGROUND_JOBS) {
      jobSteps.inc({ job }, status.jobs[job].steps);
      jobFailures.inc({ job }, status.jobs[job].failures);
      jobFailing.set({ job }, status.jobs[job].consecutiveFailures);
    }
  }
}

/** Units consumed in this process by one table's requests, summed over its partitions. */
function consumedUnits(db: Edgetable, table: string): { read: number; write: number } {
  const def = db.context.catalog.find(table);
  const usage = def && db.context.throughput?.usageOf(def.def.TableId);
  const total = { read: 0, write: 0 };
  if (!usage) return total;
  for (const p of [...usage.partitions.values(), usage.unattributed]) {
    total.read += p.consumed.read;
    total.write += p.consumed.write;
  }
  return total;
}
