import type { Command } from 'commander';
import { jsonObject, positiveInteger } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printPagedRead, type Page } from '../paged-read.js';
import { marshallItem } from '../plain-json.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { requireTable, withDb } from '../with-db.js';

type QueryOptions = PathOption & {
  keyCondition: string;
  values: Record<string, unknown>;
  names?: Record<string, unknown>;
  filter?: string;
  index?: string;
  limit?: number;
  desc?: boolean;
  all?: boolean;
  startKey?: Record<string, unknown>;
  plain?: boolean;
};

export function registerQuery(program: Command, io: CliIo): void {
  storeCommand(program, 'query')
    .description('read an item collection in sort key order (Query): one page, or every page with --all')
    .argument('<table>', 'table name')
    .requiredOption('--key-condition <expression>', "KeyConditionExpression, e.g. 'id = :id'")
    .requiredOption('--values <json>', "ExpressionAttributeValues, e.g. '{\":id\":{\"S\":\"a\"}}' (plain with --plain: '{\":id\":\"a\"}')", jsonObject)
    .option('--names <json>', 'ExpressionAttributeNames', jsonObject)
    .option('--filter <expression>', 'FilterExpression')
    .option('--index <name>', 'query a secondary index')
    .option('--limit <n>', 'items to evaluate per page', positiveInteger)
    .option('--desc', 'descending sort key order (ScanIndexForward=false)')
    .option('--all', 'follow LastEvaluatedKey and print every page')
    .option('--start-key <json>', 'ExclusiveStartKey: continue after this key (a LastEvaluatedKey)', jsonObject)
    .option('--plain', 'plain JSON values and start key in; JSON lines of plain items out')
    .option('--json', 'JSON output (always; accepted on every read command)')
    .action(async (table: string, options: QueryOptions) => {
      const plain = options.plain === true;
      const request = {
        TableName: table,
        KeyConditionExpression: options.keyCondition,
        ExpressionAttributeValues: plain ? marshallItem(options.values) : options.values,
        ...(options.names !== undefined && { ExpressionAttributeNames: options.names }),
        ...(options.filter !== undefined && { FilterExpression: options.filter }),
        ...(options.index !== undefined && { IndexName: options.index }),
        ...(options.limit !== undefined && { Limit: options.limit }),
        ...(options.desc === true && { ScanIndexForward: false }),
      };
      const startKey = options.startKey === undefined ? undefined : plain ? marshallItem(options.startKey) : options.startKey;
      await withDb(options.path, (db) => {
        requireTable(db, table);
        const readPage = (start: Record<string, unknown> | undefined) => db.execute('Query', { ...request, ...(start !== undefined && { ExclusiveStartKey: start }) }) as Page;
        printPagedRead(io, readPage, { all: options.all === true, plain, label: `query ${table}`, ...(startKey !== undefined && { startKey }) });
      }, { readOnly: true });
    });
}
