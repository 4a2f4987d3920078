/**
 * `--version-attribute <table>=<attribute>` (repeatable), shared by `hub` and `sync`: the tables
 * under optimistic concurrency (replication/conflict-rule.ts, docs/sync.md "Optimistic concurrency").
 */
import type { Command } from 'commander';
import type { ConflictRules } from '../replication/conflict-rule.js';
import { UsageError } from './cli-io.js';

export type ConflictFlags = { versionAttribute?: string[] };

export function addConflictFlags(command: Command): Command {
  return command.option(
    '--version-attribute <table=attribute>',
    'optimistic concurrency on a table: the hub refuses a write whose numeric attribute is not its version + 1 (repeatable; default last-writer-wins)',
    (v: string, acc: string[] = []) => [...acc, v],
  );
}

export function conflictRules(flags: ConflictFlags): ConflictRules | undefined {
  if (!flags.versionAttribute) return undefined;
  const rules: Record<string, ConflictRules[string]> = {};
  for (const spec of flags.versionAttribute) {
    const eq = spec.indexOf('=');
    const table = spec.slice(0, eq).trim();
    const attribute = spec.slice(eq + 1).trim();
    if (eq < 0 || table === '' || attribute === '') throw new UsageError(`--version-attribute takes <table>=<attribute>, not ${JSON.stringify(spec)}`);
    rules[table] = { strategy: 'version', attribute };
  }
  return rules;
}
