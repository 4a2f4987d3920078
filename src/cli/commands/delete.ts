import type { Command } from 'commander';
import { jsonObject } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { marshallItem, plainItemJson } from '../plain-json.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, requireTable, withDb } from '../with-db.js';
import type { Key } from '../../api/shapes.js';

export function registerDelete(program: Command, io: CliIo): void {
  storeCommand(program, 'delete')
    .description('delete an item by its key (DeleteItem); prints the old item')
    .argument('<table>', 'table name')
    .argument('<key-json>', 'the key in DynamoDB JSON, or plain JSON with --plain', jsonObject)
    .option('--plain', 'plain JSON key in, plain JSON old item out (null when there was none)')
    .action(async (table: string, key: Record<string, unknown>, options: PathOption & { plain?: boolean }) => {
      await withDb(options.path, (db) => {
        requireTable(db, table);
        const result = db.deleteItem({ TableName: table, Key: (options.plain ? marshallItem(key) : key) as Key, ReturnValues: 'ALL_OLD' });
        if (!options.plain) printJson(io.out, result);
        else io.out(`${result.Attributes === undefined ? 'null' : plainItemJson(result.Attributes)}\n`);
      });
    });
}
