import type { Command } from 'commander';
import type { PartitionMetrics } from '../../ops/throttle-metrics.js';
import type { CliIo } from '../cli-io.js';
import { withDb } from '../with-db.js';

const COLUMNS: readonly [string, (m: PartitionMetrics) => string][] = [
  ['TABLE', (m) => m.TableName],
  ['PARTITION', (m) => (m.PartitionId < 0 ? '-' : String(m.PartitionId))],
  ['ITEMS', (m) => String(m.ItemCount)],
  ['BYTES', (m) => String(m.SizeBytes)],
  ['RCU 1m', (m) => String(m.ReadUnitsLastMinute)],
  ['RCU 5m', (m) => String(m.ReadUnitsLast5Minutes)],
  ['WCU 1m', (m) => String(m.WriteUnitsLastMinute)],
  ['WCU 5m', (m) => String(m.WriteUnitsLast5Minutes)],
  ['THROTTLED', (m) => String(m.ThrottledRequests)],
];

/**
 * `stats <path> [table]`: per-partition item counts and bytes (from the store) and consumed units
 * and throttles (from the usage windows of the process that holds them: this command runs in its
 * own process, so those columns read 0 here; a program gets live figures from db.partitionMetrics).
 */
export function registerStats(program: Command, io: CliIo): void {
  program
    .command('stats')
    .description('per-partition item counts, bytes, consumed units and throttles')
    .argument('<path>', 'store folder')
    .argument('[table]', 'only this table')
    .action(async (path: string, table: string | undefined) => {
      const rows = await withDb(path, (db) => db.partitionMetrics(table), { readOnly: true });
      io.out(formatTable(rows));
      io.out('units and throttles are counted in memory by the process serving requests; a separate process shows 0\n');
    });
}

/** Right-aligned columns (the first left-aligned), one line per partition. */
export function formatTable(rows: readonly PartitionMetrics[]): string {
  const cells = [COLUMNS.map(([title]) => title), ...rows.map((r) => COLUMNS.map(([, cell]) => cell(r)))];
  const widths = COLUMNS.map((_, c) => Math.max(...cells.map((line) => line[c]!.length)));
  return cells.map((line) => line.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd() + '\n').join('');
}
