/**
 * Child processes for the reliability tests: a worker file (TypeScript) bundled once with esbuild
 * (tsx's start-up takes seconds on a loaded CI box) or, when esbuild is missing, run through tsx.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const bundled = new Map<string, { file: string; execArgv: string[] }>();

/** The runnable entry of `source` (a path to a worker .ts file). */
export function workerEntry(source: string): { file: string; execArgv: string[] } {
  const known = bundled.get(source);
  if (known) return known;
  let entry: { file: string; execArgv: string[] };
  try {
    const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as { buildSync(o: Record<string, unknown>): unknown };
    const outdir = join(repoRoot, 'node_modules', '.cache', 'edgetable-reliability');
    esbuild.buildSync({
      entryPoints: [source],
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outdir,
      outExtension: { '.js': '.mjs' },
      logLevel: 'silent',
    });
    entry = { file: join(outdir, basename(source).replace(/\.ts$/, '.mjs')), execArgv: [] };
  } catch {
    entry = { file: source, execArgv: ['--import', 'tsx'] };
  }
  bundled.set(source, entry);
  return entry;
}

/** Forks `source` with `args`; stdout and stderr are collected. */
export function forkWorker(source: string, args: string[], env: NodeJS.ProcessEnv = {}): { proc: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const entry = workerEntry(source);
  const proc = fork(entry.file, args, { execArgv: entry.execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, ...env } });
  const chunks: string[] = [];
  proc.stdout!.on('data', (d: Buffer) => chunks.push(d.toString()));
  proc.stderr!.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
  return { proc, output: () => chunks.join(''), exited };
}
