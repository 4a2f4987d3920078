import type { Command } from 'commander';
import { backupStore, restoreStore } from '../backup.js';
import type { CliIo } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson } from '../with-db.js';

/** `backup --out <dir>` and `restore --from <dir> [--force]` (backup.ts). */
export function registerBackup(program: Command, io: CliIo): void {
  storeCommand(program, 'backup')
    .description('copy a live store (consistent, compacted; writers go on) into a new folder, then check the copy')
    .requiredOption('--out <dir>', 'new or empty folder for the backup')
    .option('--json', 'print the backup manifest as JSON')
    .action(async (options: PathOption & { out: string; json?: boolean }) => {
      const manifest = await backupStore(options.path, options.out, io);
      if (options.json) return printJson(io.out, manifest);
      const tables = Object.entries(manifest.tables);
      io.out(`backed up ${options.path} to ${options.out}: ${manifest.bytes} bytes, ${tables.length} tables (${tables.map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}), checked\n`);
    });
  storeCommand(program, 'restore')
    .description('replace the store at --path with a backup (refuses an existing store unless --force, and a store in use)')
    .requiredOption('--from <dir>', 'a folder written by backup')
    .option('--force', 'replace an existing store')
    .option('--json', 'print the restored item counts as JSON')
    .action(async (options: PathOption & { from: string; force?: boolean; json?: boolean }) => {
      const result = await restoreStore(options.from, options.path, options.force === true, io);
      if (options.json) return printJson(io.out, result);
      const tables = Object.entries(result.tables);
      io.out(`restored ${options.from} to ${options.path}: ${tables.length} tables (${tables.map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}), checked\n`);
    });
}
