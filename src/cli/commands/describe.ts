import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

export function registerDescribe(program: Command, io: CliIo): void {
  program
    .command('describe')
    .description("print a table's DescribeTable output")
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .action(async (path: string, table: string) => {
      await withDb(path, (db) => printJson(io.out, db.describeTable({ TableName: table })), { readOnly: true });
    });
}
