import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';

export function registerDeleteTable(program: Command, io: CliIo): void {
  storeCommand(program, 'delete-table')
    .description('delete a table, its items and its indexes (DeleteTable); prints the response')
    .argument('<table>', 'table name')
    .action(async (table: string, options: PathOption) => {
      await withDb(options.path, (db) => printJson(io.out, db.deleteTable({ TableName: table })));
    });
}
