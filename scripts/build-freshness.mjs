// Whether dist/ still matches what it was built from, so `npm start`, `npm run demo` and the test
// setup skip the ~20 s build when nothing changed. scripts/build.mjs writes the stamp
// dist/.built last, on success, with its mtime set back to the moment the build STARTED: a file
// saved during a build is newer than the stamp, so the next run builds again.
//
// dist/ is current when the stamp exists and is at least as new as every input: each file AND
// folder (a folder's mtime moves when an entry is added, removed or renamed, so a deleted source
// counts as a change) under src/ and scripts/, tsconfig.json, tsconfig.build.json, package.json
// and package-lock.json (the build tools' and @types' versions). Absent inputs are skipped.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const BUILD_INPUTS = ['src', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
export const STAMP = '.built';

/** The newest input under `path` (itself included): { path, mtimeMs }, or undefined when absent. */
function newest(path) {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  let best = { path, mtimeMs: stat.mtimeMs };
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path)) {
      const inner = newest(join(path, entry));
      if (inner && inner.mtimeMs > best.mtimeMs) best = inner;
    }
  }
  return best;
}

/**
 * Why dist/ under `root` must be built, or undefined when it is current:
 *   'dist/ has not been built'                     no stamp (never built, or a build failed)
 *   'src/cli/main.ts changed since the last build' the newest input, relative to root
 */
export function staleReason(root, inputs = BUILD_INPUTS) {
  const stamp = join(root, 'dist', STAMP);
  if (!existsSync(stamp)) return 'dist/ has not been built';
  const builtMs = statSync(stamp).mtimeMs;
  let latest;
  for (const input of inputs) {
    const found = newest(join(root, input));
    if (found && (latest === undefined || found.mtimeMs > latest.mtimeMs)) latest = found;
  }
  if (latest === undefined || latest.mtimeMs <= builtMs) return undefined;
  return `${relative(root, latest.path) || '.'} changed since the last build`;
}
