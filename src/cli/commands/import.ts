/**
 * import: DynamoDB JSON lines (export's format, `{"Item": {...}}` per line; blank lines skipped),
 * or plain JSON items with --plain, from a file or standard input (`--in -` or no --in) into an
 * existing table, 25 items per BatchWriteItem (one txn each); unprocessed items are resent.
 *
 * Items are written in file order. When a line cannot be written (malformed, or refused by the
 * table), every line before it has been written and nothing after it: the error names the line,
 * why, and how far the import got (`...; lines 1-100 were written (100 items), nothing from line
 * 101 on`), so a corrected file can be resumed with `tail -n +101`. A batch that fails is retried
 * item by item to find that line (so a key repeated within 25 lines is written twice, the later
 * line winning, as two PutItems would).
 */
import { createReadStream, statSync, type ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Edgetable } from '../../edgetable.js';
import { MAX_BATCH_WRITE_REQUESTS } from '../../model/limits.js';
import { CliError, type CliIo } from '../cli-io.js';
import { marshallItem } from '../plain-json.js';
import { startProgress } from '../progress.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { requireTable, withDb } from '../with-db.js';
import type { Item } from '../../api/shapes.js';

type Line = { readonly number: number; readonly item: Record<string, unknown> };
type ImportOptions = PathOption & { in?: string; plain?: boolean };

export function registerImport(program: Command, io: CliIo): void {
  storeCommand(program, 'import')
    .description('write DynamoDB JSON lines ({"Item": {...}} per line) from a file or stdin into a table, 25 items per batch')
    .argument('<table>', 'table name')
    .option('--in <file>', 'input file; - or no --in reads standard input')
    .option('--plain', 'each line is a plain JSON item')
    .action(async (table: string, options: ImportOptions) => {
      const fromStdin = options.in === undefined || options.in === '-';
      const source = fromStdin ? '<stdin>' : options.in!;
      if (fromStdin && io.stdin === undefined && process.stdin.isTTY) io.err('reading items from standard input (end with Ctrl-D; --in <file> reads a file)\n');
      const count = await withDb(options.path, async (db) => {
        requireTable(db, table);
        const input = fromStdin ? (io.stdin ?? process.stdin) : createReadStream(options.in!, 'utf8');
        const progress = fromStdin ? startProgress(io, `import ${table}`, { unit: 'items' }) : startProgress(io, `import ${table}`, { unit: 'bytes', total: statSync(options.in!).size });
        const written = { items: 0 };
        let batch: Line[] = [];
        const flush = (): void => {
          writeBatch(db, table, batch, source, written);
          batch = [];
          progress.update(fromStdin ? written.items : (input as ReadStream).bytesRead);
        };
        let number = 0;
        for await (const text of createInterface({ input, crlfDelay: Infinity })) {
          number++;
          if (text.trim() === '') continue;
          let item: Record<string, unknown>;
          try {
            item = readLine(text, options.plain === true);
          } catch (error) {
            if (batch.length > 0) flush();
            throw failure(error, source, number, written);
          }
          batch.push({ number, item });
          if (batch.length === MAX_BATCH_WRITE_REQUESTS) flush();
        }
        if (batch.length > 0) flush();
        progress.end(fromStdin ? written.items : (input as ReadStream).bytesRead);
        return written.items;
      });
      io.out(`imported ${count} items into ${table}\n`);
    });
}

function readLine(text: string, plain: boolean): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  const item = plain ? parsed : (parsed as { Item?: unknown } | null)?.Item;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new CliError('InvalidFile', plain ? 'expected a JSON object' : 'expected {"Item": {...}}');
  return plain ? marshallItem(item as Record<string, unknown>) : (item as Record<string, unknown>);
}

/** Writes the lines in order; on a refusal, writes those before the refused one and throws. */
function writeBatch(db: Edgetable, table: string, lines: readonly Line[], source: string, written: { items: number }): void {
  try {
    putAll(db, table, lines);
  } catch {
    for (const line of lines) {
      try {
        db.putItem({ TableName: table, Item: line.item as Item });
      } catch (error) {
        throw failure(error, source, line.number, written);
      }
      written.items++;
    }
    return;
  }
  written.items += lines.length;
}

function putAll(db: Edgetable, table: string, lines: readonly Line[]): void {
  let pending: unknown[] = lines.map((l) => ({ PutRequest: { Item: l.item } }));
  while (pending.length > 0) {
    const result = db.execute('BatchWriteItem', { RequestItems: { [table]: pending } }) as { UnprocessedItems?: Record<string, unknown[]> };
    pending = result.UnprocessedItems?.[table] ?? [];
  }
}

/** The error of one line, keeping its name, with how far the import got. */
function failure(error: unknown, source: string, line: number, written: { items: number }): CliError {
  const name = error instanceof SyntaxError ? 'InvalidFile' : error instanceof Error ? error.name : 'Error';
  const why = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
  const done = line === 1 || written.items === 0 ? 'nothing was written' : `lines 1-${line - 1} were written (${written.items} items), nothing from line ${line} on`;
  return new CliError(name, `${source}:${line}: ${why}; ${done}`);
}
