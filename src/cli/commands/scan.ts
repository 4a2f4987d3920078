import type { Command } from 'commander';
import { jsonObject, positiveInteger } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { printPagedRead, type Page } from '../paged-read.js';
import { marshallItem } from '../plain-json.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { itemCount, withDb } from '../with-db.js';

type ScanOptions = PathOption & {
  limit?: number;
  filter?: string;
  names?: Record<string, unknown>;
  values?: Record<string, unknown>;
  index?: string;
  all?: boolean;
  startKey?: Record<string, unknown>;
  plain?: boolean;
};

export function registerScan(program: Command, io: CliIo): void {
  storeCommand(program, 'scan')
    .description('read a table in hash order (Scan): one page, or every page with --all (progress on stderr)')
    .argument('<table>', 'table name')
    .option('--limit <n>', 'items to evaluate per page', positiveInteger)
    .option('--filter <expression>', 'FilterExpression')
    .option('--names <json>', 'ExpressionAttributeNames', jsonObject)
    .option('--values <json>', 'ExpressionAttributeValues (plain with --plain)', jsonObject)
    .option('--index <name>', 'scan a secondary index')
    .option('--all', 'follow LastEvaluatedKey and print every page')
    .option('--start-key <json>', 'ExclusiveStartKey: continue after this key (a LastEvaluatedKey)', jsonObject)
    .option('--plain', 'plain JSON values and start key in; JSON lines of plain items out')
    .option('--json', 'JSON output (always; accepted on every read command)')
    .action(async (table: string, options: ScanOptions) => {
      const plain = options.plain === true;
      const request = {
        TableName: table,
        ...(options.limit !== undefined && { Limit: options.limit }),
        ...(options.filter !== undefined && { FilterExpression: options.filter }),
        ...(options.names !== undefined && { ExpressionAttributeNames: options.names }),
        ...(options.values !== undefined && { ExpressionAttributeValues: plain ? marshallItem(options.values) : options.values }),
        ...(options.index !== undefined && { IndexName: options.index }),
      };
      const startKey = options.startKey === undefined ? undefined : plain ? marshallItem(options.startKey) : options.startKey;
      await withDb(options.path, (db) => {
        const expectedItems = itemCount(db, table);
        const readPage = (start: Record<string, unknown> | undefined) => db.execute('Scan', { ...request, ...(start !== undefined && { ExclusiveStartKey: start }) }) as Page;
        printPagedRead(io, readPage, {
          all: options.all === true,
          plain,
          label: `scan ${table}`,
          ...(options.index === undefined && { expectedItems }),
          ...(startKey !== undefined && { startKey }),
        });
      }, { readOnly: true });
    });
}
