/**
 * export: a table as DynamoDB JSON lines, the format of DynamoDB's own export to S3:
 *
 *   file = *( line "\n" )
 *   line = '{"Item":' item-json '}'      ; item-json = the item's AttributeValue map, wire form
 *
 * Items come in Scan (hash) order, one Scan page at a time, so memory stays one page.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import type { KeyOutput } from '../../api/shapes.js';
import type { CliIo } from '../cli-io.js';
import { withDb } from '../with-db.js';

export function registerExport(program: Command, io: CliIo): void {
  program
    .command('export')
    .description('write every item of a table as DynamoDB JSON lines ({"Item": {...}} per line)')
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .option('--out <file>', 'output file (default: stdout)')
    .action(async (path: string, table: string, options: { out?: string }) => {
      const fd = options.out === undefined ? undefined : openSync(options.out, 'w');
      const write = fd === undefined ? io.out : (text: string) => void writeSync(fd, text);
      try {
        const count = await withDb(path, (db) => {
          let n = 0;
          let start: KeyOutput | undefined;
          do {
            const page = db.scan({ TableName: table, ...(start !== undefined && { ExclusiveStartKey: start }) });
            let text = '';
            for (const item of page.Items ?? []) text += `${JSON.stringify({ Item: item })}\n`;
            if (text !== '') write(text);
            n += page.Items?.length ?? 0;
            start = page.LastEvaluatedKey;
          } while (start !== undefined);
          return n;
        }, { readOnly: true });
        if (fd !== undefined) io.out(`exported ${count} items from ${table} to ${options.out}\n`);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    });
}
