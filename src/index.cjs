// The package's CommonJS entry (package.json exports "require"; copied to dist/ by
// scripts/build.mjs beside dist/index.js). edgetable is an ES module: Node 20.19+ and 22.12+ load
// it through require() as they load any ES module without top-level await, and this file hands
// it on. Older Node cannot (ERR_REQUIRE_ESM): instead of Node's `No "exports" main defined`, the
// error says what to write instead.
'use strict';
try {
  module.exports = require('./index.js');
} catch (error) {
  if (error === null || typeof error !== 'object' || (error.code !== 'ERR_REQUIRE_ESM' && error.code !== 'ERR_REQUIRE_ASYNC_MODULE')) throw error;
  throw new Error(
    `edgetable is an ES module, and this Node (${process.versions.node}) cannot require() it: ` +
      "load it with `const { open } = await import('edgetable')` (or `import { open } from 'edgetable'` in an ES module), " +
      'or use Node 20.19+ or 22.12+, whose require() loads ES modules',
    { cause: error },
  );
}
