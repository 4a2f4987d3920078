/**
 * `npx tsx test/reliability/dump-journal.ts <journal> [text]`: the records of a power-cut journal
 * (a cycle's `journal` under POWER_CUT_DEBUG), one line each with the file name its descriptor
 * was opened under; `text` keeps only the lines containing it.
 */
import { readFileSync } from 'node:fs';
import { parseJournal } from './harness/power-cut-journal.js';

const [file, filter] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: dump-journal.ts <journal> [text]');
const names = new Map<number, string>();
for (const r of parseJournal(readFileSync(file))) {
  if (r.kind === 'O') names.set(r.file, r.name);
  const parts: string[] = [r.kind];
  if ('seq' in r) parts.push(`seq=${r.seq}`);
  if ('covers' in r) parts.push(`covers=${r.covers}`);
  if ('file' in r) parts.push(`file=${r.file}`, names.get(r.file) ?? '?');
  if ('name' in r && r.kind !== 'O') parts.push(r.name);
  if (r.kind === 'O') parts.push(r.created ? 'created' : 'existing');
  if (r.kind === 'W' || r.kind === 'S') parts.push(`offset=${r.offset}`, `bytes=${r.data.length}`);
  if (r.kind === 'T') parts.push(`length=${r.length}`);
  if (r.kind === 'R') parts.push(r.from, '->', r.to);
  const line = parts.join(' ');
  if (filter === undefined || line.includes(filter)) process.stdout.write(`${line}\n`);
}
