/**
 * `verify --deep`: the structural check of the whole store (storage/store-check.ts, in a child
 * process, so a damaged page cannot take this process down): every database (tables, indexes,
 * change logs, the catalog and LMDB's main and free-page databases) walked page by page. Prints
 * one line per database and a summary. Exit codes: 0 clean, 1 damage found, 2 could not check.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { checkStore } from '../storage/store-check.js';
import type { CheckResult, DatabaseCheck } from '../storage/store-check-report.js';
import { CommandExit, type CliIo } from './cli-io.js';
import { printJson } from './with-db.js';

export const EXIT_DAMAGED = 1;
export const EXIT_UNCHECKED = 2;

/** A key bound of the damage as printed: its bytes, text where they are printable. */
function showKey(hex: string | null, end: string): string {
  if (hex === null) return end;
  const text = Buffer.from(hex, 'hex').toString('latin1');
  return /^[\x20-\x7e]*$/.test(text) ? JSON.stringify(text) : `0x${hex}`;
}

export function describeDatabase(db: DatabaseCheck): string {
  const name = db.name ?? '<main>';
  if (db.damage.length === 0) return `${name}: ${db.entries} entries, intact`;
  const where = db.damage.map((d) => `${d.problem} (keys after ${showKey(d.after, 'the start')} and before ${showKey(d.before, 'the end')})`);
  return `${name}: DAMAGED, ${db.entries} of ${db.expectedEntries} entries readable: ${where.join('; ')}`;
}

export async function deepVerify(path: string, json: boolean, io: CliIo): Promise<CheckResult> {
  if (!existsSync(join(path, 'data.mdb'))) throw new CommandExit('VerifyError', `${path} holds no store (no data.mdb)`, EXIT_UNCHECKED);
  const result = await checkStore(path);
  if (json) printJson(io.out, result);
  else {
    for (const db of result.databases ?? []) io.out(`${describeDatabase(db)}\n`);
    if (result.databases !== undefined) {
      const damaged = result.databases.filter((db) => db.damage.length > 0).length;
      io.out(`${result.databases.length} databases checked, ${damaged} damaged, ${result.pages} pages, ${result.unreachablePages} unreachable\n`);
    }
  }
  if (result.outcome === 'damaged') {
    throw new CommandExit('StoreDamaged', `${path} is damaged${result.message === undefined ? '' : `: ${result.message}`}; copy what can be read with \`edgetable salvage --path ${path} --out NEW\` (docs/reliability.md)`, EXIT_DAMAGED);
  }
  if (result.outcome === 'failed') throw new CommandExit('VerifyError', `${path} could not be checked: ${result.message ?? 'no reason given'}`, EXIT_UNCHECKED);
  return result;
}
