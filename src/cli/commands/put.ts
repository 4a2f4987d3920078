import type { Command } from 'commander';
import { jsonObject } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

export function registerPut(program: Command, io: CliIo): void {
  program
    .command('put')
    .description('write an item (PutItem)')
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .argument('<item-json>', 'the item in DynamoDB JSON, e.g. \'{"id":{"S":"a"}}\'', jsonObject)
    .action(async (path: string, table: string, item: Record<string, unknown>) => {
      await withDb(path, (db) => printJson(io.out, db.execute('PutItem', { TableName: table, Item: item })));
    });
}
