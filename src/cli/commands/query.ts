import type { Command } from 'commander';
import { jsonObject, positiveInteger } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printJson, withDb } from '../with-db.js';

type QueryOptions = {
  keyCondition: string;
  values: Record<string, unknown>;
  names?: Record<string, unknown>;
  filter?: string;
  index?: string;
  limit?: number;
  desc?: boolean;
};

export function registerQuery(program: Command, io: CliIo): void {
  program
    .command('query')
    .description("read one page of an item collection in sort key order (Query)")
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .requiredOption('--key-condition <expression>', "KeyConditionExpression, e.g. 'id = :id'")
    .requiredOption('--values <json>', "ExpressionAttributeValues, e.g. '{\":id\":{\"S\":\"a\"}}'", jsonObject)
    .option('--names <json>', 'ExpressionAttributeNames', jsonObject)
    .option('--filter <expression>', 'FilterExpression')
    .option('--index <name>', 'query a secondary index')
    .option('--limit <n>', 'items to evaluate', positiveInteger)
    .option('--desc', 'descending sort key order (ScanIndexForward=false)')
    .action(async (path: string, table: string, options: QueryOptions) => {
      const request = {
        TableName: table,
        KeyConditionExpression: options.keyCondition,
        ExpressionAttributeValues: options.values,
        ...(options.names !== undefined && { ExpressionAttributeNames: options.names }),
        ...(options.filter !== undefined && { FilterExpression: options.filter }),
        ...(options.index !== undefined && { IndexName: options.index }),
        ...(options.limit !== undefined && { Limit: options.limit }),
        ...(options.desc === true && { ScanIndexForward: false }),
      };
      await withDb(path, (db) => printJson(io.out, db.execute('Query', request)), { readOnly: true });
    });
}
