import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';

export function registerTables(program: Command, io: CliIo): void {
  storeCommand(program, 'tables')
    .description('list the tables of a store, one per line')
    .option('--json', 'print {"TableNames": [...]}')
    .action(async (options: PathOption & { json?: boolean }) => {
      const names = await withDb(options.path, (db) => {
        const all: string[] = [];
        let start: string | undefined;
        do {
          const page = db.listTables(start === undefined ? {} : { ExclusiveStartTableName: start });
          all.push(...page.TableNames);
          start = page.LastEvaluatedTableName;
        } while (start !== undefined);
        return all;
      }, { readOnly: true });
      if (options.json) printJson(io.out, { TableNames: names });
      else for (const name of names) io.out(`${name}\n`);
    });
}
