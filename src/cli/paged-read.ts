/**
 * Prints Query and Scan results: one page as DynamoDB returns it, or with --all every page,
 * following LastEvaluatedKey, streamed so memory stays one page:
 *
 *   default  one page: the response as JSON; --all: {"Items": [...], "Count": n, "ScannedCount": m}
 *            with one item per line (LastEvaluatedKey absent: there is no more)
 *   --plain  JSON lines, one plain item per line; when a single page leaves more, stderr says how
 *            to continue (`more items: --start-key '<key>'`)
 */
import type { CliIo } from './cli-io.js';
import { plainItemJson } from './plain-json.js';
import { startProgress } from './progress.js';
import { printJson } from './with-db.js';

type Wire = Record<string, unknown>;
export type Page = { Items?: Wire[]; Count?: number; ScannedCount?: number; LastEvaluatedKey?: Wire };

export type PagedReadOptions = {
  readonly all: boolean;
  readonly plain: boolean;
  readonly startKey?: Wire;
  /** Progress label and expected item count (for a bar), shown with --all. */
  readonly label: string;
  readonly expectedItems?: number;
};

export function printPagedRead(io: CliIo, readPage: (start: Wire | undefined) => Page, options: PagedReadOptions): void {
  if (!options.all) {
    const page = readPage(options.startKey);
    if (!options.plain) return printJson(io.out, page);
    for (const item of page.Items ?? []) io.out(`${plainItemJson(item)}\n`);
    if (page.LastEvaluatedKey !== undefined) io.err(`more items: --start-key '${JSON.stringify(page.LastEvaluatedKey)}'\n`);
    return;
  }
  const progress = startProgress(io, options.label, { unit: 'items', ...(options.expectedItems !== undefined && { total: options.expectedItems }) });
  let count = 0;
  let scanned = 0;
  let first = true;
  let start = options.startKey;
  if (!options.plain) io.out('{\n  "Items": [');
  do {
    const page = readPage(start);
    let text = '';
    for (const item of page.Items ?? []) {
      if (options.plain) text += `${plainItemJson(item)}\n`;
      else text += `${first ? '' : ','}\n    ${JSON.stringify(item)}`;
      first = false;
    }
    if (text !== '') io.out(text);
    count += page.Count ?? 0;
    scanned += page.ScannedCount ?? 0;
    start = page.LastEvaluatedKey;
    progress.update(scanned);
  } while (start !== undefined);
  progress.end(scanned);
  if (!options.plain) io.out(`${first ? '' : '\n  '}],\n  "Count": ${count},\n  "ScannedCount": ${scanned}\n}\n`);
}
