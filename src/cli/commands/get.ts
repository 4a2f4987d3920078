import type { Command } from 'commander';
import { jsonObject } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { marshallItem, plainItemJson } from '../plain-json.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, requireTable, withDb } from '../with-db.js';
import type { Key } from '../../api/shapes.js';

export function registerGet(program: Command, io: CliIo): void {
  storeCommand(program, 'get')
    .description('read an item by its key (GetItem); prints {} when there is none (null with --plain)')
    .argument('<table>', 'table name')
    .argument('<key-json>', 'the key in DynamoDB JSON (\'{"id":{"S":"a"}}\'), or plain JSON with --plain', jsonObject)
    .option('--plain', 'plain JSON key in, plain JSON item out')
    .option('--json', 'JSON output (always; accepted on every read command)')
    .action(async (table: string, key: Record<string, unknown>, options: PathOption & { plain?: boolean }) => {
      await withDb(options.path, (db) => {
        requireTable(db, table);
        const result = db.getItem({ TableName: table, Key: (options.plain ? marshallItem(key) : key) as Key });
        if (!options.plain) printJson(io.out, result);
        else io.out(`${result.Item === undefined ? 'null' : plainItemJson(result.Item)}\n`);
      }, { readOnly: true });
    });
}
