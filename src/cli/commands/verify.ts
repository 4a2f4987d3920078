import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { withDb } from '../with-db.js';

/** `verify`: exit 0 when every index equals its recomputation from the base table, 1 otherwise. */
export function registerVerify(program: Command, io: CliIo): void {
  program
    .command('verify')
    .description('recompute every secondary index from its base table and report differences')
    .argument('<path>', 'store folder')
    .argument('[table]', 'only this table')
    .action(async (path: string, table: string | undefined) => {
      const result = await withDb(path, (db) => db.verify(table), { readOnly: true });
      for (const ix of result.Indexes) {
        io.out(`${ix.TableName}/${ix.IndexName}: expected ${ix.Expected}, stored ${ix.Stored}, missing ${ix.Missing}, extra ${ix.Extra}, different ${ix.Different}\n`);
      }
      io.out(`${result.Indexes.length} indexes checked, ${result.Differences} differences\n`);
      if (result.Differences > 0) throw new Error(`${result.Differences} index entries differ from their recomputation`);
    });
}
