import type { Command } from 'commander';
import type { PartitionMetrics } from '../../ops/write/throttle-metrics.js';
import type { CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, requireTable, withDb } from '../with-db.js';

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
 * `stats [table]`: per-partition item counts and bytes (from the store) and consumed units
 * and throttles (from the usage windows of the process that holds them: this command runs in its
 * own process, so those columns read 0 here; a program gets live figures from db.partitionMetrics).
 */
export function registerStats(program: Command, io: CliIo): void {
  storeCommand(program, 'stats')
    .description('per-partition item counts, bytes, consumed units and throttles')
    .argument('[table]', 'only this table')
    .option('--json', 'print the rows as JSON')
    .action(async (table: string | undefined, options: PathOption & { json?: boolean }) => {
      const rows = await withDb(options.path, (db) => {
        if (table !== undefined) requireTable(db, table);
        return db.partitionMetrics(table);
      }, { readOnly: true });
      if (options.json) return printJson(io.out, rows);
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
