/**
 * The `edgetable` command line. main() returns the exit code instead of exiting, so tests run it
 * in-process with captured output:
 *   0  success (also --help and --version)
 *   1  the command failed: one line `<ErrorName>: <message>` on stderr
 *   2  usage error (unknown command or option, missing or malformed argument, an old-form store
 *      path): one line `error: <message>` on stderr
 * A running service (serve, sync, hub, bridge) writes JSON lines only, its failure included
 * (cli/service-options.ts); its usage errors are the plain line above.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CommandExit, ReportedFailure, UsageError, processIo, type CliIo } from './cli-io.js';
import { configureHelpLayout } from './help-layout.js';
import { oldPathFormError } from './store-option.js';
import { registerBackup } from './commands/backup.js';
import { registerDeleteTable } from './commands/delete-table.js';
import { registerTtl } from './commands/ttl.js';
import { registerUpdateTable } from './commands/update-table.js';
import { registerCreateTable } from './commands/create-table.js';
import { registerDelete } from './commands/delete.js';
import { registerDemo } from './commands/demo.js';
import { registerDescribe } from './commands/describe.js';
import { registerExport } from './commands/export.js';
import { registerGet } from './commands/get.js';
import { registerImport } from './commands/import.js';
import { registerPut } from './commands/put.js';
import { registerQuery } from './commands/query.js';
import { registerScan } from './commands/scan.js';
import { registerServe } from './commands/serve.js';
import { registerTables } from './commands/tables.js';
import { registerBridge } from './commands/bridge.js';
import { registerVerify } from './commands/verify.js';
import { registerSalvage } from './commands/salvage.js';
import { registerDoctor } from './commands/doctor.js';
import { registerStats } from './commands/stats.js';
import { registerSync } from './commands/sync.js';
import { registerHub } from './commands/hub.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The package's version (package.json sits two folders up, from src/cli/ as from dist/cli/). */
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const COMMANDS: ReadonlyArray<(program: Command, io: CliIo) => void> = [
  registerServe,
  registerTables,
  registerDescribe,
  registerCreateTable,
  registerUpdateTable,
  registerDeleteTable,
  registerTtl,
  registerPut,
  registerGet,
  registerQuery,
  registerScan,
  registerDelete,
  registerExport,
  registerImport,
  registerDemo,
  registerVerify,
  registerSalvage,
  registerBackup,
  registerStats,
  registerDoctor,
  registerBridge,
  registerSync,
  registerHub,
];

/** Commander's codes for help or version output: successes when asked for (exit code 0), not when shown for a missing subcommand. */
const INFO_CODES: ReadonlySet<string> = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const program = buildProgram(io);
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  const oldForm = oldPathFormError(program, argv);
  if (oldForm !== undefined) {
    io.err(`error: ${oldForm}\n`);
    return EXIT_USAGE;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) return INFO_CODES.has(error.code) && error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (error instanceof ReportedFailure) return error.exitCode;
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    io.err(`${describeError(error)}\n`);
    return error instanceof CommandExit ? error.exitCode : EXIT_FAILURE;
  }
}

function buildProgram(io: CliIo): Command {
  const program = configureHelpLayout(new Command('edgetable'))
    .description("DynamoDB's data model as an embedded store: inspect and edit stores, serve the DynamoDB API")
    .version(VERSION)
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  for (const register of COMMANDS) register(program, io);
  return program;
}

/** One line: DynamoDB's exception name and its message, or the error's own name. */
function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n', 1)[0]}`;
  return `Error: ${String(error)}`;
}
