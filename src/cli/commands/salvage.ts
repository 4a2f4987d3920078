/**
 * `salvage --path DAMAGED --out NEW`: copies every entry that can still be read from a damaged
 * store into a new one (storage/salvage.ts; the damaged file is never handed to LMDB), rebuilds
 * each table's indexes, item collection sizes and expiry index from the items copied
 * (table/rebuild-indexes.ts: entries of lost items go, items whose entries were lost get them),
 * and, when something was lost, asks a synced device to re-read every table it receives from the
 * hub at its next connect (replication/rebase-marks.ts). Then it checks the new store (its
 * structure, and each table's indexes against its items) and reports, database by database, what
 * was copied and the key ranges that were lost, and per index what was rebuilt. Exit code 0 once
 * the new store is written, whether or not something was lost (the report says); 1 when it could not be.
 *
 * Nothing here writes a change record: the salvaged items are not new writes, and a synced device
 * sends up only what its outbox kept.
 */
import type { Command } from 'commander';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { open } from '../../edgetable.js';
import { markForRebase } from '../../replication/rebase-marks.js';
import { salvageInto, type SalvageReport } from '../../storage/salvage.js';
import { Store } from '../../storage/store.js';
import { Catalog } from '../../table/catalog.js';
import { rebuildTableIndexes, type TableRebuild } from '../../table/rebuild-indexes.js';
import { CliError, type CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson } from '../with-db.js';

export type SalvageResult = SalvageReport & {
  readonly rebuilt: readonly TableRebuild[];
  /** Tables a synced device re-reads from the hub at its next connect (empty when nothing was lost). */
  readonly rebase: readonly string[];
  readonly indexDifferences: number;
};

const showKey = (hex: string | null, end: string): string => {
  if (hex === null) return end;
  const text = Buffer.from(hex, 'hex').toString('latin1');
  return /^[\x20-\x7e]*$/.test(text) ? JSON.stringify(text) : `0x${hex}`;
};

export function salvageStore(damaged: string, out: string): SalvageResult {
  if (!existsSync(join(damaged, 'data.mdb'))) throw new CliError('SalvageError', `${damaged} holds no store (no data.mdb)`);
  if (existsSync(out) && readdirSync(out).length > 0) throw new CliError('SalvageError', `${out} is not empty: salvage into a new or empty folder`);
  const target = Store.open({ path: out, durability: 'relaxed', checkOnOpen: 'never' });
  let report: SalvageReport;
  let rebuilt: TableRebuild[];
  let rebase: string[] = [];
  try {
    report = salvageInto(damaged, target);
    const catalog = new Catalog(target);
    rebuilt = catalog.all().map((table) => rebuildTableIndexes(target, table));
    if (report.mainDamaged || report.databases.some((db) => db.lost.length > 0)) {
      rebase = catalog.names();
      markForRebase(target, rebase, { reason: 'salvage', atMs: Date.now() });
    }
  } finally {
    target.close();
  }
  // The copy is a new LMDB file: check it whole before anyone relies on it.
  const db = open({ path: out, readOnly: true, checkOnOpen: 'always' });
  try {
    return { ...report, rebuilt, rebase, indexDifferences: db.verify().Differences };
  } finally {
    db.close();
  }
}

export function registerSalvage(program: Command, io: CliIo): void {
  storeCommand(program, 'salvage')
    .description('copy every item that can still be read from a damaged store (--path) into a new store (--out), rebuild its indexes, reporting what was lost')
    .requiredOption('--out <dir>', 'new or empty folder for the salvaged store')
    .option('--json', 'print the report as JSON')
    .action((options: PathOption & { out: string; json?: boolean }) => {
      const result = salvageStore(options.path, options.out);
      if (options.json) return printJson(io.out, result);
      let lostAny = false;
      for (const db of result.databases) {
        if (db.lost.length === 0) {
          io.out(`${db.name}: ${db.copied} entries copied\n`);
          continue;
        }
        lostAny = true;
        const ranges = db.lost.map((l) => `keys after ${showKey(l.after, 'the start')} and before ${showKey(l.before, 'the end')} (${l.problem})`);
        io.out(`${db.name}: ${db.copied} of ${db.expected} entries copied; lost: ${ranges.join('; ')}\n`);
      }
      if (result.mainDamaged) io.out("LMDB's main database was damaged: databases it no longer lists are not in the report\n");
      for (const t of result.rebuilt) {
        const undecodable = t.Undecodable > 0 ? ` (${t.Undecodable} items could not be decoded: in no index)` : '';
        for (const ix of t.Indexes) io.out(`${t.TableName}/${ix.IndexName}: rebuilt, ${ix.Entries} entries from ${t.Items} items${undecodable}\n`);
      }
      if (result.rebase.length > 0) io.out(`a synced device re-reads ${result.rebase.join(', ')} from the hub at its next connect (the tables it receives)\n`);
      io.out(`salvaged ${options.path} into ${options.out}: ${lostAny || result.mainDamaged ? 'some entries were lost (above)' : 'every entry copied'}; ${result.indexDifferences} index entries differ from their table (edgetable verify)\n`);
    });
}
