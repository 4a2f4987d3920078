/**
 * export: a table as DynamoDB JSON lines, the format of DynamoDB's own export to S3:
 *
 *   file = *( line "\n" )
 *   line = '{"Item":' item-json '}'      ; item-json = the item's AttributeValue map, wire form
 *
 * Items come in Scan (hash) order, one Scan page at a time, so memory stays one page. With
 * --plain each line is the plain JSON item instead (lossy for sets and binary; plain-json.ts).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import type { KeyOutput } from '../../api/shapes.js';
import type { CliIo } from '../cli-io.js';
import { plainItemJson } from '../plain-json.js';
import { startProgress } from '../progress.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { itemCount, withDb } from '../with-db.js';

export function registerExport(program: Command, io: CliIo): void {
  storeCommand(program, 'export')
    .description('write every item of a table as DynamoDB JSON lines ({"Item": {...}} per line)')
    .argument('<table>', 'table name')
    .option('--out <file>', 'output file (default: stdout)')
    .option('--plain', 'one plain JSON item per line instead')
    .action(async (table: string, options: PathOption & { out?: string; plain?: boolean }) => {
      const line = options.plain ? (item: Record<string, unknown>) => `${plainItemJson(item)}\n` : (item: Record<string, unknown>) => `${JSON.stringify({ Item: item })}\n`;
      const count = await withDb(options.path, (db) => {
        const total = itemCount(db, table);
        const fd = options.out === undefined ? undefined : openSync(options.out, 'w', 0o600);
        const write = fd === undefined ? io.out : (text: string) => void writeSync(fd, text);
        const progress = startProgress(io, `export ${table}`, { unit: 'items', total });
        try {
          let n = 0;
          let start: KeyOutput | undefined;
          do {
            const page = db.scan({ TableName: table, ...(start !== undefined && { ExclusiveStartKey: start }) });
            let text = '';
            for (const item of page.Items ?? []) text += line(item);
            if (text !== '') write(text);
            n += page.Items?.length ?? 0;
            progress.update(n);
            start = page.LastEvaluatedKey;
          } while (start !== undefined);
          progress.end(n);
          return n;
        } finally {
          if (fd !== undefined) closeSync(fd);
        }
      }, { readOnly: true });
      if (options.out !== undefined) io.out(`exported ${count} items from ${table} to ${options.out}\n`);
    });
}
