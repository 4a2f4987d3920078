#!/usr/bin/env node
// `npm run build` and `prepare`: builds dist/ from src/, from a clean dist/ so no output of a
// deleted source survives:
// - JavaScript: esbuild bundles the package's entry points (dist/index.js, and dist/cli/main.js and
//   dist/cli/heap-flags.js, which bin/edgetable.js runs) with their shared code in dist/chunks/;
//   what is loaded on demand (sync, the hub, the bridge, metrics) stays in chunks of its own,
//   imported when first used. Packages stay external (node-lmdb and farmhash are native; the rest
//   resolve from the user's node_modules). One file instead of ~320 modules: Node's ESM loader
//   costs ~0.7 ms and some young-generation garbage per module, so importing the package took
//   ~400 ms and left V8's new space at 8 MiB, which open() then holds (src/young-generation.ts).
// - Types: tsc with tsconfig.build.json, declarations only (it type-checks as it emits).
// - dist/index.cjs, the CommonJS entry: src/index.cjs as it is.
// Without the dev dependencies (an install with --omit=dev), an existing dist/ is kept and said
// so; with no dist/ either, it fails with what to do instead, rather than a bare "tsc: not found".
// When dist/ is current (build-freshness.mjs: nothing under src/ or scripts/, nor the tsconfigs,
// package.json or package-lock.json, changed since the last build) nothing is built; --force
// builds anyway.
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, openSync, rmSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAMP, staleReason } from './build-freshness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const require = createRequire(join(root, 'package.json'));

const stale = process.argv.includes('--force') ? 'asked with --force' : staleReason(root);
if (stale === undefined) {
  console.log('edgetable: dist/ is up to date with src/ (npm run build -- --force rebuilds it)');
  process.exit(0);
}
console.log(`edgetable: building dist/ (${stale})`);
const startedAt = new Date();

/** The package's entry points, relative to src/: what package.json's exports and bin/ import, and storage/'s child processes (src/storage/store-check.ts, copy-in-child.ts). */
const ENTRY_POINTS = ['index.ts', 'cli/main.ts', 'cli/heap-flags.ts', 'storage/store-check-child.ts', 'storage/store-copy-child.ts'];

let tsc;
let esbuild;
try {
  tsc = require.resolve('typescript/bin/tsc');
  esbuild = require('esbuild');
} catch {
  if (existsSync(join(dist, 'index.js'))) {
    console.log('edgetable: TypeScript or esbuild is not installed (--omit=dev); using the existing dist/');
    process.exit(0);
  }
  console.error(
    'edgetable: dist/ is missing and the build tools (TypeScript, esbuild) are not installed (--omit=dev), so it cannot be built here.\n' +
      'Build where dev dependencies are installed (npm ci && npm pack) and install the tarball, or run npm ci without --omit=dev.',
  );
  process.exit(1);
}

rmSync(dist, { recursive: true, force: true });
const types = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (types.status !== 0) process.exit(types.status ?? 1);
try {
  esbuild.buildSync({
    entryPoints: ENTRY_POINTS.map((entry) => join(root, 'src', entry)),
    outbase: join(root, 'src'),
    outdir: dist,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
} catch {
  process.exit(1); // esbuild printed the errors
}
// The CommonJS entry (package.json exports "require"): plain JS, copied as it is.
copyFileSync(join(root, 'src', 'index.cjs'), join(dist, 'index.cjs'));
// Last, and dated when the build started (build-freshness.mjs): what changed meanwhile is built next time.
const stamp = join(dist, STAMP);
closeSync(openSync(stamp, 'w'));
utimesSync(stamp, startedAt, startedAt);
