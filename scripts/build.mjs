#!/usr/bin/env node
// `npm run build` and `prepare`: compiles src/ to dist/ (JavaScript, .d.ts, source maps) with tsc
// and tsconfig.build.json, from a clean dist/ so no output of a deleted source survives.
// Without TypeScript (an install with --omit=dev), an existing dist/ is kept and said so; with no
// dist/ either, it fails with what to do instead, rather than a bare "tsc: not found".
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  if (existsSync(join(dist, 'index.js'))) {
    console.log('edgetable: TypeScript is not installed (--omit=dev); using the existing dist/');
    process.exit(0);
  }
  console.error(
    'edgetable: dist/ is missing and TypeScript is not installed (--omit=dev), so it cannot be built here.\n' +
      'Build where dev dependencies are installed (npm ci && npm pack) and install the tarball, or run npm ci without --omit=dev.',
  );
  process.exit(1);
}

rmSync(dist, { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
process.exit(run.status ?? 1);
