/**
 * Per-partition metrics (`db.partitionMetrics()`): item count and bytes from the store's partition
 * statistics, and from this process's memory the units consumed over the last 1 and 5 minutes and
 * the throttled requests. Another process (the CLI on a live store) sees the counts, not the usage.
 * Scans and GSI reads are not attributed to a partition: they appear in a row with PartitionId -1.
 */
import { WINDOW_SECONDS } from '../../capacity/usage-window.js';
import type { PartitionUsage } from '../../capacity/throughput.js';
import { readPartitionStats } from '../../table/partition-stats.js';
import type { EngineContext } from '../engine-context.js';

export type PartitionMetrics = {
  readonly TableName: string;
  /** -1: units of the table not attributed to one partition (Scan, GSI reads). */
  readonly PartitionId: number;
  readonly ItemCount: number;
  readonly SizeBytes: number;
  readonly ReadUnitsLastMinute: number;
  readonly ReadUnitsLast5Minutes: number;
  readonly WriteUnitsLastMinute: number;
  readonly WriteUnitsLast5Minutes: number;
  readonly ThrottledRequests: number;
};

export const UNATTRIBUTED_PARTITION = -1;

export function partitionMetrics(ctx: EngineContext, tableName?: string): PartitionMetrics[] {
  const tables = tableName === undefined ? ctx.catalog.all() : [ctx.catalog.require(tableName)];
  const nowMs = ctx.now();
  const rows: PartitionMetrics[] = [];
  ctx.store.read((txn) => {
    for (const table of tables) {
      const usage = ctx.throughput?.usageOf(table.def.TableId);
      for (const { range: p, db } of table.partitions) {
        const stats = readPartitionStats(txn, db);
        rows.push(row(table.name, p.id, stats.itemCount, stats.itemBytes, usage?.partitions.get(p.id), nowMs));
      }
      const rest = usage?.unattributed;
      if (rest && (rest.throttles > 0 || rest.read.sum(WINDOW_SECONDS, nowMs) + rest.write.sum(WINDOW_SECONDS, nowMs) > 0)) {
        rows.push(row(table.name, UNATTRIBUTED_PARTITION, 0, 0, rest, nowMs));
      }
    }
  });
  return rows;
}

function row(TableName: string, PartitionId: number, ItemCount: number, SizeBytes: number, usage: PartitionUsage | undefined, nowMs: number): PartitionMetrics {
  return {
    TableName,
    PartitionId,
    ItemCount,
    SizeBytes,
    ReadUnitsLastMinute: usage?.read.sum(60, nowMs) ?? 0,
    ReadUnitsLast5Minutes: usage?.read.sum(300, nowMs) ?? 0,
    WriteUnitsLastMinute: usage?.write.sum(60, nowMs) ?? 0,
    WriteUnitsLast5Minutes: usage?.write.sum(300, nowMs) ?? 0,
    ThrottledRequests: usage?.throttles ?? 0,
  };
}
