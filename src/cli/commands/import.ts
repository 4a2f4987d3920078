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
import { accessSync, constants, createReadStream, statSync, type ReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Edgetable } from '../../edgetable.js';
import { MAX_BATCH_WRITE_REQUESTS } from '../../model/limits.js';
import { CliError, UsageError, type CliIo } from '../cli-io.js';
import { lineFormHint } from '../item-form.js';
import { marshallItem } from '../plain-json.js';
import { startProgress } from '../progress.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { requireTable, withDb } from '../with-db.js';
import type { Item } from '../../api/shapes.js';

type Line = { readonly number: number; readonly item: Record<string, unknown>; readonly parsed: unknown };
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
      // Before the store opens and before a stream exists: a file that cannot be read is the
      // command line's mistake (exit 2), not an 'error' event nobody listens to yet.
      const size = fromStdin ? undefined : inputSize(options.in!);
      if (fromStdin && io.stdin === undefined && process.stdin.isTTY) io.err('reading items from standard input (end with Ctrl-D; --in <file> reads a file)\n');
      const plain = options.plain === true;
      const count = await withDb(options.path, async (db) => {
        requireTable(db, table);
        const input = fromStdin ? (io.stdin ?? process.stdin) : createReadStream(options.in!, 'utf8');
        const progress = size === undefined ? startProgress(io, `import ${table}`, { unit: 'items' }) : startProgress(io, `import ${table}`, { unit: 'bytes', total: size });
        const written = { items: 0 };
        let batch: Line[] = [];
        const flush = (): void => {
          writeBatch(db, table, batch, source, written, plain);
          batch = [];
          progress.update(fromStdin ? written.items : (input as ReadStream).bytesRead);
        };
        let number = 0;
        for await (const text of createInterface({ input, crlfDelay: Infinity })) {
          number++;
          if (text.trim() === '') continue;
          let parsed: unknown;
          let item: Record<string, unknown>;
          try {
            parsed = JSON.parse(text);
            item = toItem(parsed, plain);
          } catch (error) {
            if (batch.length > 0) flush();
            throw failure(error, source, number, written, parsed === undefined ? undefined : lineFormHint(parsed, plain));
          }
          batch.push({ number, item, parsed });
          if (batch.length === MAX_BATCH_WRITE_REQUESTS) flush();
        }
        if (batch.length > 0) flush();
        progress.end(fromStdin ? written.items : (input as ReadStream).bytesRead);
        return written.items;
      });
      io.out(`imported ${count} items into ${table}\n`);
    });
}

/** The size of the --in file, or a UsageError saying why it cannot be read. */
function inputSize(file: string): number {
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new UsageError(`--in ${file} is a folder, not a file of items`);
    accessSync(file, constants.R_OK);
    return stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--in ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`);
  }
}

function toItem(parsed: unknown, plain: boolean): Record<string, unknown> {
  const item = plain ? parsed : (parsed as { Item?: unknown } | null)?.Item;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new CliError('InvalidFile', plain ? 'expected a JSON object' : 'expected {"Item": {...}}');
  return plain ? marshallItem(item as Record<string, unknown>) : (item as Record<string, unknown>);
}

/** Writes the lines in order; on a refusal, writes those before the refused one and throws. */
function writeBatch(db: Edgetable, table: string, lines: readonly Line[], source: string, written: { items: number }, plain: boolean): void {
  try {
    putAll(db, table, lines);
  } catch {
    for (const line of lines) {
      try {
        db.putItem({ TableName: table, Item: line.item as Item });
      } catch (error) {
        throw failure(error, source, line.number, written, lineFormHint(line.parsed, plain));
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

/** Names of a line's refusals that a line in the other form gets: the form hint is added to these. */
const FORM_ERRORS: ReadonlySet<string> = new Set(['InvalidFile', 'ValidationException', 'SerializationException']);

/** The error of one line, keeping its name, with the form hint when it has one and how far the import got. */
function failure(error: unknown, source: string, line: number, written: { items: number }, hint?: string): CliError {
  const name = error instanceof SyntaxError ? 'InvalidFile' : error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
  const why = hint !== undefined && FORM_ERRORS.has(name) ? `${message} (${hint})` : message;
  const done = line === 1 || written.items === 0 ? 'nothing was written' : `lines 1-${line - 1} were written (${written.items} items), nothing from line ${line} on`;
  return new CliError(name, `${source}:${line}: ${why}; ${done}`);
}
