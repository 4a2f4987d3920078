import type { Command } from 'commander';
import type { IndexVerification } from '../../table/verify-indexes.js';
import { UsageError, type CliIo } from '../cli-io.js';
import { deepVerify } from '../deep-verify.js';
import { startProgress } from '../progress.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, requireTable, withDb } from '../with-db.js';

/**
 * `verify [table]`: exit 0 when every index equals its recomputation from the base table, 1
 * otherwise. Tables are checked one at a time (each in one read txn), with progress by table.
 * `verify --deep` checks the store's structure instead (deep-verify.ts).
 */
export function registerVerify(program: Command, io: CliIo): void {
  storeCommand(program, 'verify')
    .description('recompute every secondary index from its base table and report differences (exit 1 if any)')
    .argument('[table]', 'only this table')
    .option('--json', 'print {"Indexes": [...], "Differences": n}')
    .option('--deep', 'walk every database and page of the store (in a child process) and report what is damaged: exit 0 intact, 1 damaged, 2 could not check')
    .action(async (table: string | undefined, options: PathOption & { json?: boolean; deep?: boolean }) => {
      if (options.deep) {
        if (table !== undefined) throw new UsageError('verify --deep checks the whole store: give no table');
        await deepVerify(options.path, options.json === true, io);
        return;
      }
      const result = await withDb(options.path, (db) => {
        if (table !== undefined) requireTable(db, table);
        const tables = table === undefined ? db.context.catalog.names() : [table];
        const progress = startProgress(io, 'verify', { unit: 'tables', total: tables.length });
        const indexes: IndexVerification[] = [];
        let differences = 0;
        for (const [i, name] of tables.entries()) {
          const one = db.verify(name);
          indexes.push(...one.Indexes);
          differences += one.Differences;
          progress.update(i + 1);
        }
        progress.end(tables.length);
        return { Indexes: indexes, Differences: differences };
      }, { readOnly: true, checkOnOpen: 'always' }); // a damaged store is refused (CORRUPT), never verified as intact
      if (options.json) printJson(io.out, result);
      else {
        for (const ix of result.Indexes) {
          io.out(`${ix.TableName}/${ix.IndexName}: expected ${ix.Expected}, stored ${ix.Stored}, missing ${ix.Missing}, extra ${ix.Extra}, different ${ix.Different}\n`);
        }
        io.out(`${result.Indexes.length} indexes checked, ${result.Differences} differences\n`);
      }
      if (result.Differences > 0) throw new Error(`${result.Differences} index entries differ from their recomputation`);
    });
}
