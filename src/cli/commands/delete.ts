import type { Command } from 'commander';
import { jsonObject } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

export function registerDelete(program: Command, io: CliIo): void {
  program
    .command('delete')
    .description('delete an item by its key (DeleteItem); prints the old item')
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .argument('<key-json>', 'the key in DynamoDB JSON', jsonObject)
    .action(async (path: string, table: string, key: Record<string, unknown>) => {
      await withDb(path, (db) => printJson(io.out, db.execute('DeleteItem', { TableName: table, Key: key, ReturnValues: 'ALL_OLD' })));
    });
}
