/**
 * Bench processes whose memory is reported run as compiled JavaScript, as a device runs edgetable:
 * under tsx the loader alone holds ~55 MiB of anonymous RSS. `compiled(entry)` bundles a bench
 * entry (TypeScript, with the src/ it imports) with esbuild (tsx's own compiler) into
 * node_modules/.cache/edgetable-bench/, packages left external so node-lmdb and the others resolve
 * from the repository's node_modules; run the result with plain `node`.
 */
import { buildSync } from 'esbuild';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'node_modules', '.cache', 'edgetable-bench');

/** The path of the bundled `entry` (a path relative to bench/), built now. */
export function compiled(entry: string): string {
  return compiledAs(join(root, 'bench', entry), `${basename(entry, '.ts')}.mjs`);
}

/** `entryPath` (any TypeScript entry, e.g. another tree's src/edgetable.ts) bundled as `outName` in the same cache folder. */
export function compiledAs(entryPath: string, outName: string): string {
  const outfile = join(outdir, outName);
  buildSync({
    entryPoints: [entryPath],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: false,
    logLevel: 'warning',
  });
  return outfile;
}
