/**
 * Child processes for the reliability tests: a worker file (TypeScript) bundled once with esbuild
 * (tsx's start-up takes seconds on a loaded CI box) or, when esbuild is missing, run through tsx.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleStorageChildren } from '../../storage/fixtures/storage-children.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const bundled = new Map<string, { file: string; execArgv: string[] }>();

/**
 * The runnable entry of `source` (a path to a worker .ts file). Test files running in parallel
 * bundle into one folder, so each output file is written under a private name and renamed into
 * place: a worker starting meanwhile reads the old file or the new one whole, never one cut short
 * (which loads as a chunk missing its exports).
 */
export function workerEntry(source: string): { file: string; execArgv: string[] } {
  const known = bundled.get(source);
  if (known) return known;
  let entry: { file: string; execArgv: string[] };
  try {
    const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as {
      buildSync(o: Record<string, unknown>): { outputFiles: { path: string; contents: Uint8Array }[] };
    };
    const outdir = join(repoRoot, 'node_modules', '.cache', 'edgetable-reliability');
    const { outputFiles } = esbuild.buildSync({
      entryPoints: [source],
      bundle: true,
      // splitting keeps the engine's lazy imports (mqtt for sync) lazy: mqtt alone loads for a second.
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outdir,
      outExtension: { '.js': '.mjs' },
      logLevel: 'silent',
      write: false,
    });
    mkdirSync(outdir, { recursive: true });
    for (const out of outputFiles) {
      const temporary = `${out.path}.${process.pid}.tmp`;
      writeFileSync(temporary, out.contents);
      renameSync(temporary, out.path);
    }
    bundleStorageChildren(esbuild, outdir);
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
