/**
 * How the hub decides between writes to one key (docs/sync.md, "Optimistic concurrency"):
 *
 * - `last-writer-wins` (the default): the write with the later hybrid logical clock wins, ties
 *   broken by device id then incarnation; every copy converges.
 * - `version`: optimistic concurrency on a numeric attribute the app increments by one on every
 *   write (as DynamoDBMapper's @DynamoDBVersionAttribute or AppSync's _version). The hub refuses a
 *   device write made on a version it no longer holds (hub/version-check.ts) and tells the device,
 *   with the refused item and the hub's, in the ack.
 *
 * The hub owns the rule (`startHub({ conflicts })`): it is the one place every write passes. A
 * device declares the same rule (`startSync({ conflicts })`) so its change log keeps the item each
 * write replaced (the base the hub checks against); without it the hub can check a put's version
 * number only, and refuses deletes, which carry no version of their own.
 */
import { SyncError } from './sync-error.js';

export type ConflictRule = { readonly strategy: 'last-writer-wins' } | { readonly strategy: 'version'; readonly attribute: string };

/** Rules by table name (the device's table name; in per-device hub mode too). */
export type ConflictRules = Readonly<Record<string, ConflictRule>>;

/** The rule of `table`: its entry, else last-writer-wins. */
export function conflictRuleOf(rules: ConflictRules | undefined, table: string): ConflictRule {
  return (rules && Object.hasOwn(rules, table) ? rules[table] : undefined) ?? { strategy: 'last-writer-wins' };
}

/** Checks `conflicts` as given by a caller; throws SyncError naming what is wrong. */
export function checkConflictRules(rules: unknown): ConflictRules {
  if (rules === undefined) return {};
  if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) throw new SyncError('conflicts must be an object of table name -> { strategy, attribute }');
  for (const [table, rule] of Object.entries(rules)) {
    const r = rule as { strategy?: unknown; attribute?: unknown } | null;
    if (r?.strategy === 'last-writer-wins') continue;
    if (r?.strategy !== 'version') throw new SyncError(`conflicts.${table}.strategy must be 'version' or 'last-writer-wins'`);
    if (typeof r.attribute !== 'string' || r.attribute.length === 0 || r.attribute.length > 255) throw new SyncError(`conflicts.${table}.attribute must name the version attribute (1 to 255 characters)`);
  }
  return rules as ConflictRules;
}
