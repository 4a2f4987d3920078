/**
 * When a partition splits (spec §5.8, DESIGN.md): when its items pass a size threshold
 * (DynamoDB's is 10 GB; a device wants far less, so it is a store option), or when it sustains
 * throughput above the per-partition limit (the caller passes the partitions its metering found
 * hot). Tables with LSIs never split an item collection: a partition holding a single partition
 * key cannot split anyway, since all its items share one hash.
 *
 * Heat splits are refused when they cannot help or cost more than they give:
 * - when one partition key carries at least HOT_KEY_SHARE of the partition's units (a split at
 *   the hash midpoint leaves that key whole on one side, as hot as before, and the next check
 *   would split again and again);
 * - for on-demand tables, unless the store asks for them (`heatSplitsOnDemand`): on-demand tables
 *   are never throttled, so a heat split buys nothing but a copy.
 */
import type { ReadTxn } from '../storage/txn.js';
import { readPartitionStats } from './partition-stats.js';
import { MAX_ITEM_BYTES } from '../model/limits.js';
import type { Throughput } from '../capacity/throughput.js';
import type { Table } from './table.js';

export const DEFAULT_SPLIT_THRESHOLD_BYTES = 1024 * 1024 * 1024;

export function oversizedPartitions(txn: ReadTxn, table: Table, thresholdBytes: number): number[] {
  const out: number[] = [];
  for (const p of table.partitions) {
    if (p.range.end - p.range.start < 2) continue;
    // Sizing walks records; a partition too small in items to pass the threshold is skipped unwalked.
    if (txn.count(p.db) * MAX_ITEM_BYTES <= thresholdBytes) continue;
    if (readPartitionStats(txn, p.db).itemBytes > thresholdBytes) out.push(p.range.id);
  }
  return out;
}

/** A partition whose hottest key carries this share of its units is hot because of that key. */
export const HOT_KEY_SHARE = 0.5;

export type HeatSplitOptions = {
  /** Split on-demand tables for heat too. Default false. */
  readonly heatSplitsOnDemand?: boolean;
};

/** Seconds over which consumed units must exceed the per-partition ceiling to count as sustained. */
export const SUSTAINED_WINDOW_SECONDS = 60;

/**
 * Partitions whose consumed units, averaged over the last minute, exceed the per-partition ceiling
 * in either direction (metered by capacity/throughput.ts in this process).
 */
export function hotPartitions(table: Table, throughput: Throughput | undefined, nowMs: number, options: HeatSplitOptions = {}): number[] {
  if (table.def.BillingMode === 'PAY_PER_REQUEST' && !options.heatSplitsOnDemand) return [];
  const usage = throughput?.usageOf(table.def.TableId);
  if (!usage || !throughput) return [];
  const { partitionReadUnits, partitionWriteUnits } = throughput.options;
  const out: number[] = [];
  for (const p of table.partitions) {
    const u = usage.partitions.get(p.range.id);
    if (!u || p.range.end - p.range.start < 2) continue;
    const read = u.read.sum(SUSTAINED_WINDOW_SECONDS, nowMs) / SUSTAINED_WINDOW_SECONDS;
    const write = u.write.sum(SUSTAINED_WINDOW_SECONDS, nowMs) / SUSTAINED_WINDOW_SECONDS;
    if (read <= partitionReadUnits && write <= partitionWriteUnits) continue;
    if (u.keys.topShare(nowMs) >= HOT_KEY_SHARE) continue;
    out.push(p.range.id);
  }
  return out;
}
