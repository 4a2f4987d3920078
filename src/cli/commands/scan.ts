import type { Command } from 'commander';
import { positiveInteger } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

export function registerScan(program: Command, io: CliIo): void {
  program
    .command('scan')
    .description('read one page of a table in hash order (Scan)')
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .option('--limit <n>', 'items to evaluate', positiveInteger)
    .action(async (path: string, table: string, options: { limit?: number }) => {
      const request = { TableName: table, ...(options.limit !== undefined && { Limit: options.limit }) };
      await withDb(path, (db) => printJson(io.out, db.scan(request)), { readOnly: true });
    });
}
