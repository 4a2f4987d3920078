/**
 * The V8 heap settings the long-running commands run with, chosen for a small device.
 *
 * With Node's defaults the young generation grows to 3 x 16 MiB, and a steady write load keeps it
 * there: a 1 M-item ingest peaks at ~80 MiB of anonymous RSS although the live heap stays near
 * 10 MiB. `--max-semi-space-size=2` caps it at 3 x 2 MiB (same throughput, measured in
 * bench/memory.ts). V8 reads that flag only when the process starts (v8.setFlagsFromString is too
 * late), so bin/edgetable.js starts the command again in a child process with the flags when they
 * are missing. Short commands (get, put, tables, ...) are not worth a second process start.
 *
 * EDGETABLE_NODE_OPTIONS overrides the flags (empty: Node's defaults, no second process). Flags
 * already given to node (`node --max-semi-space-size=4 bin/edgetable.js`, or NODE_OPTIONS, as the
 * systemd units do) are kept and nothing is started again.
 */

export const HEAP_FLAGS_ENV = 'EDGETABLE_NODE_OPTIONS';
/** Set in the child started with the flags, so it never starts another. */
export const HEAP_CHILD_ENV = 'EDGETABLE_HEAP_CHILD';
export const DEFAULT_HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=2'];
/** Commands that run for long or over much data: the ones whose memory the flags bound. */
export const LONG_RUNNING_COMMANDS: ReadonlySet<string> = new Set(['serve', 'bridge', 'sync', 'hub', 'import']);

/**
 * The node flags to start `argv` (the CLI's arguments) again with, or undefined to run it in this
 * process: not a long-running command, already the child, flags disabled, or the heap flags named
 * already given to this process (execArgv or NODE_OPTIONS).
 */
export function heapRelaunchFlags(argv: readonly string[], env: NodeJS.ProcessEnv, execArgv: readonly string[]): string[] | undefined {
  if (env[HEAP_CHILD_ENV] === '1') return undefined;
  const command = argv.find((a) => !a.startsWith('-'));
  if (command === undefined || !LONG_RUNNING_COMMANDS.has(command)) return undefined;
  const configured = env[HEAP_FLAGS_ENV];
  const flags = configured === undefined ? [...DEFAULT_HEAP_FLAGS] : configured.split(/\s+/).filter((f) => f !== '');
  if (flags.length === 0) return undefined;
  const given = [...execArgv, ...(env['NODE_OPTIONS'] ?? '').split(/\s+/)].map(flagName);
  const missing = flags.filter((f) => !given.includes(flagName(f)));
  return missing.length === 0 ? undefined : missing;
}

/** `--max-semi-space-size=2` -> `--max-semi-space-size`; V8 treats `_` and `-` alike. */
function flagName(flag: string): string {
  return flag.split('=', 1)[0]!.replace(/_/g, '-');
}
