import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';

export function registerDescribe(program: Command, io: CliIo): void {
  storeCommand(program, 'describe')
    .description("print a table's DescribeTable output (JSON)")
    .argument('<table>', 'table name')
    .option('--json', 'JSON output (always; accepted on every read command)')
    .action(async (table: string, options: PathOption) => {
      await withDb(options.path, (db) => printJson(io.out, db.describeTable({ TableName: table })), { readOnly: true });
    });
}
