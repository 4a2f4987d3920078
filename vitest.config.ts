import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that spawn bin/edgetable.js run dist/: rebuild it first when the sources are newer.
    globalSetup: ['test/setup/build-dist.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
