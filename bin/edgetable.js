#!/usr/bin/env node
// The published entry point: registers tsx so the TypeScript sources run as they are, then hands
// over to the CLI. Kept in plain JS so `npx edgetable` works right after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
