import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { withDb } from '../with-db.js';

export function registerTables(program: Command, io: CliIo): void {
  program
    .command('tables')
    .description('list the tables of a store, one per line')
    .argument('<path>', 'store folder')
    .action(async (path: string) => {
      await withDb(path, (db) => {
        let start: string | undefined;
        do {
          const page = db.listTables(start === undefined ? {} : { ExclusiveStartTableName: start });
          for (const name of page.TableNames) io.out(`${name}\n`);
          start = page.LastEvaluatedTableName;
        } while (start !== undefined);
      }, { readOnly: true });
    });
}
