#!/usr/bin/env node
// The published entry point: runs the compiled CLI in dist/ (built by `npm run build`, which
// `prepare` runs on `npm ci`, installs from git and `npm pack`). Plain JS, no TypeScript loader.
let cli;
try {
  cli = await import('../dist/cli/main.js');
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist/cli/main.js')) {
    console.error('edgetable: dist/ is missing; run `npm run build` in the edgetable folder first');
    process.exit(1);
  }
  throw e;
}
process.exitCode = await cli.main(process.argv.slice(2));
