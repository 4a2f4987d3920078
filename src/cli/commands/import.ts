/**
 * import: DynamoDB JSON lines (export's format, `{"Item": {...}}` per line; blank lines skipped)
 * into an existing table, 25 items per BatchWriteItem (one txn each). Unprocessed items are
 * resent. A progress line is drawn on stderr when it is a terminal.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Edgetable } from '../../edgetable.js';
import { MAX_BATCH_WRITE_REQUESTS } from '../../model/limits.js';
import { CliError, type CliIo } from '../cli-io.js';
import { withDb } from '../with-db.js';

const PROGRESS_INTERVAL_MS = 250;

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

export function registerImport(program: Command, io: CliIo): void {
  program
    .command('import')
    .description('write DynamoDB JSON lines ({"Item": {...}} per line) into a table, 25 items per batch')
    .argument('<path>', 'store folder')
    .argument('<table>', 'table name')
    .requiredOption('--in <file>', 'input file')
    .action(async (path: string, table: string, options: { in: string }) => {
      const count = await withDb(path, async (db) => {
        const progress = progressLine(io);
        let n = 0;
        let batch: WriteRequest[] = [];
        let lineNumber = 0;
        const lines = createInterface({ input: createReadStream(options.in, 'utf8'), crlfDelay: Infinity });
        for await (const line of lines) {
          lineNumber++;
          if (line.trim() === '') continue;
          batch.push({ PutRequest: { Item: readLine(line, options.in, lineNumber) } });
          if (batch.length === MAX_BATCH_WRITE_REQUESTS) {
            writeBatch(db, table, batch);
            n += batch.length;
            batch = [];
            progress.update(n);
          }
        }
        if (batch.length > 0) writeBatch(db, table, batch);
        n += batch.length;
        progress.end(n);
        return n;
      });
      io.out(`imported ${count} items into ${table}\n`);
    });
}

function readLine(line: string, file: string, lineNumber: number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new CliError('InvalidFile', `${file}:${lineNumber}: ${(error as Error).message}`);
  }
  const item = (parsed as { Item?: unknown } | null)?.Item;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new CliError('InvalidFile', `${file}:${lineNumber}: expected {"Item": {...}}`);
  }
  return item as Record<string, unknown>;
}

function writeBatch(db: Edgetable, table: string, requests: WriteRequest[]): void {
  let pending: unknown[] = requests;
  while (pending.length > 0) {
    const result = db.execute('BatchWriteItem', { RequestItems: { [table]: pending } }) as { UnprocessedItems?: Record<string, unknown[]> };
    pending = result.UnprocessedItems?.[table] ?? [];
  }
}

function progressLine(io: CliIo): { update(n: number): void; end(n: number): void } {
  let last = 0;
  let drawn = false;
  return {
    update(n) {
      if (!io.errIsTty) return;
      const now = Date.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      drawn = true;
      io.err(`\rimporting: ${n} items`);
    },
    end(n) {
      if (drawn) io.err(`\rimporting: ${n} items\n`);
    },
  };
}
