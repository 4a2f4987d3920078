/**
 * Runs the structural check of a store folder (store-check-child.ts) in a child process and reads
 * back what it found. The child walks the file with pread and cannot crash on damage; that it
 * runs apart anyway means a bug or a case it does not foresee costs the child, never the serving
 * process: a child ended by a signal counts as "damaged".
 *
 * The child is a file of its own, found next to this module: src/storage/*.ts run through tsx
 * (tests, development), or dist/storage/<name>.js, an entry point of the build
 * (scripts/build.mjs), from whichever dist/ file the bundler put this code in.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { StorageError } from './storage-error.js';
import { describeDamage, type CheckResult } from './store-check-report.js';

/** Bound on one check: a 1 GB store takes seconds (docs/reliability.md); a stuck child is killed. */
export const DEFAULT_CHECK_TIMEOUT_MS = 10 * 60_000;

/** The node arguments that run one of storage/'s child scripts (`name` without extension): compiled JS as is, TypeScript through tsx. */
export function childCommand(name: string): string[] {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    return ['--import', tsx, fileURLToPath(new URL(`./${name}.ts`, here))];
  }
  for (const candidate of [`./${name}.js`, `../storage/${name}.js`, `./storage/${name}.js`]) {
    const file = fileURLToPath(new URL(candidate, here));
    if (existsSync(file)) return [file];
  }
  throw new StorageError('INVALID', `edgetable's script ${name}.js is missing beside ${fileURLToPath(here)}; rebuild edgetable (npm run build)`);
}

const checkChildCommand = (): string[] => childCommand('store-check-child');

/** The child's stdout and exit, as a CheckResult (a signal or unreadable output: damaged or failed). */
export function readCheckOutput(stdout: string, status: number | null, signal: string | null, path: string): CheckResult {
  if (signal !== null) {
    if (signal === 'SIGTERM' || signal === 'SIGKILL') return { outcome: 'failed', message: `the check of ${path} was stopped (${signal}): it ran past its time limit or was killed` };
    return { outcome: 'damaged', message: `the check of ${path} crashed (${signal}) reading the store` };
  }
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as CheckResult;
  } catch {
    return { outcome: status === 0 ? 'failed' : 'damaged', message: `the check of ${path} ended with exit code ${status} and no report` };
  }
}

/** Checks `path` and waits for the answer (at open, before LMDB reads a page). */
export function checkStoreSync(path: string, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): CheckResult {
  const run = spawnSync(process.execPath, [...checkChildCommand(), path], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (run.error !== undefined && run.signal === null) return { outcome: 'failed', message: `the check of ${path} could not run: ${run.error.message}` };
  return readCheckOutput(run.stdout, run.status, run.signal, path);
}

/** As checkStoreSync, without blocking the event loop (periodic checks, `verify --deep`). */
export function checkStore(path: string, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<CheckResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [...checkChildCommand(), path], { stdio: ['ignore', 'pipe', 'ignore'], timeout: timeoutMs });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', (err) => resolvePromise({ outcome: 'failed', message: `the check of ${path} could not run: ${err.message}` }));
    child.on('close', (status, signal) => resolvePromise(readCheckOutput(stdout, status, signal, path)));
  });
}

/** The error a store found damaged is refused with: what is damaged, and the way out. */
export function storeDamagedError(path: string, result: CheckResult): StorageError {
  const what = describeDamage(result).join('; ');
  return new StorageError(
    'CORRUPT',
    `open store ${path}: the store is damaged (${what}); it was not opened. ` +
      `See what is damaged with \`edgetable verify --deep --path ${path}\`, then copy what can be read with \`edgetable salvage --path ${path} --out NEW\` ` +
      `or restore a backup (docs/reliability.md, "Damaged stores")`,
  );
}
