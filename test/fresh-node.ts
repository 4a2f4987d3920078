/**
 * Runs a script in a fresh node with Node's default heap flags (its own V8 heap), beside a module
 * of src/ compiled as the package ships it: for tests of what a module does to V8's flags, which
 * are process-wide and would leak into the test process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { transformSync } from 'esbuild';
import { expect } from 'vitest';

/**
 * Runs `script` (ESM; imports `./<module>.mjs`, the compiled `src/<module>.ts`) once per mode,
 * the mode as its argv[2]; returns each run's JSON line by mode.
 */
export function inFreshNode<T>(module: string, script: string, modes: readonly string[]): Record<string, T> {
  const dir = mkdtempSync(join(tmpdir(), `et-${basename(module)}-`));
  try {
    const source = readFileSync(join(import.meta.dirname, '..', 'src', `${module}.ts`), 'utf8');
    writeFileSync(join(dir, `${basename(module)}.mjs`), transformSync(source, { loader: 'ts', format: 'esm' }).code);
    writeFileSync(join(dir, 'script.mjs'), script);
    const out: Record<string, T> = {};
    for (const mode of modes) {
      const r = spawnSync(process.execPath, [join(dir, 'script.mjs'), mode], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      expect(r.status, r.stderr).toBe(0);
      out[mode] = JSON.parse(r.stdout) as T;
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
