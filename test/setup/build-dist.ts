/**
 * Vitest global setup: tests that spawn the real command (`bin/edgetable.js`, which runs dist/)
 * need dist/ to match the sources. Rebuilds it (scripts/build.mjs, ~20 s) when
 * scripts/build-freshness.mjs says it is stale; otherwise costs one directory walk.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { staleReason } from '../../scripts/build-freshness.mjs';

const root = join(import.meta.dirname, '..', '..');

export function setup(): void {
  if (staleReason(root) === undefined) return;
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
