/**
 * Vitest global setup: tests that spawn the real command (`bin/edgetable.js`, which runs dist/)
 * need dist/ to match the sources. Rebuilds it (scripts/build.mjs, ~10-20 s) when it is missing or
 * older than any file under src/, tsconfig*.json or package.json; otherwise costs one directory walk.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

function newestMtimeMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  return newest;
}

export function setup(): void {
  const built = join(root, 'dist', 'index.js');
  const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(root, p));
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...inputs.map(newestMtimeMs))) return;
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
