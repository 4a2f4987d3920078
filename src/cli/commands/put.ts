import type { Command } from 'commander';
import { jsonObject } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { itemFormHint, withFormHint } from '../item-form.js';
import { marshallItem } from '../plain-json.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, requireTable, withDb } from '../with-db.js';
import type { Item as ItemInput } from '../../api/shapes.js';

export function registerPut(program: Command, io: CliIo): void {
  storeCommand(program, 'put')
    .description('write an item (PutItem); prints the response')
    .argument('<table>', 'table name')
    .argument('<item-json>', 'the item in DynamoDB JSON (\'{"id":{"S":"a"}}\'), or plain JSON with --plain (\'{"id":"a"}\')', jsonObject)
    .option('--plain', 'the item is plain JSON, marshalled as lib-dynamodb does (no sets or binary)')
    .action(async (table: string, item: Record<string, unknown>, options: PathOption & { plain?: boolean }) => {
      const Item = (options.plain ? marshallItem(item) : item) as ItemInput; // the engine validates it
      await withDb(options.path, (db) => {
        requireTable(db, table);
        let response;
        try {
          response = db.putItem({ TableName: table, Item });
        } catch (error) {
          throw withFormHint(error, itemFormHint(item, options.plain === true));
        }
        printJson(io.out, response);
      });
    });
}
