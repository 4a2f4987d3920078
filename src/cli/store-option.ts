/**
 * The one CLI grammar: every command that uses a store takes `--path <dir>` (default
 * $EDGETABLE_PATH, else ./data); its table, where it has one, is the first positional argument.
 *
 * The old forms put the store path first (`edgetable describe ./data Readings`). They are refused
 * with a usage error (exit 2) that spells the new form, rather than guessed at: a first positional
 * that looks like a store (contains a `/`, which no table name may, or is a folder holding an
 * LMDB data file) is taken for an old-form path.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';

export const DEFAULT_STORE_PATH = './data';
export const STORE_PATH_ENV = 'EDGETABLE_PATH';

/** Commands that take --path, marked so main() can recognise an old positional-path form. */
const storeCommands = new WeakSet<Command>();

export type PathOption = { readonly path: string };

/** A command on `program` with the store option. */
export function storeCommand(program: Command, name: string): Command {
  const command = program.command(name);
  addPathOption(command);
  return command;
}

export function addPathOption(command: Command): Command {
  storeCommands.add(command);
  return command.addOption(new Option('--path <dir>', 'store folder').env(STORE_PATH_ENV).default(DEFAULT_STORE_PATH));
}

/**
 * The usage error for an old-form command line, or undefined: `argv` is what follows
 * `edgetable`; only the word right after the (sub)command is examined.
 */
export function oldPathFormError(program: Command, argv: readonly string[]): string | undefined {
  let command = program;
  let i = 0;
  for (; i < argv.length; i++) {
    const sub = command.commands.find((c) => c.name() === argv[i] || c.aliases().includes(argv[i]!));
    if (!sub) break;
    command = sub;
  }
  const first = argv[i];
  if (command === program || !storeCommands.has(command) || first === undefined || first.startsWith('-') || !looksLikeStorePath(first)) return undefined;
  const words = ['edgetable', ...argv.slice(0, i), ...argv.slice(i + 1), '--path', first];
  return `the store is given with --path now (or ${STORE_PATH_ENV}): ${words.map(shellQuote).join(' ')}`;
}

function looksLikeStorePath(word: string): boolean {
  return word.includes('/') || existsSync(join(word, 'data.mdb'));
}

function shellQuote(word: string): string {
  return /^[\w./:=@,+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
