import type { Command } from 'commander';
import { jsonObject } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

export function registerGet(program: Command, io: CliIo): void {
  program
    .command('get')
    .description('read an item by its key (GetItem); prints {} when there is none')
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .argument('<key-json>', 'the key in DynamoDB JSON, e.g. \'{"id":{"S":"a"}}\'', jsonObject)
    .action(async (path: string, table: string, key: Record<string, unknown>) => {
      await withDb(path, (db) => printJson(io.out, db.execute('GetItem', { TableName: table, Key: key })), { readOnly: true });
    });
}
