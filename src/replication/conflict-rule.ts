/**
 * How the hub decides between writes to one key (docs/sync.md, "Optimistic concurrency"):
 *
 * - `last-writer-wins` (the default): the write with the later hybrid logical clock wins, ties
 *   broken by device id then incarnation; every copy converges.
 * - `version`: optimistic concurrency on a numeric attribute the app increments by one on every
 *   write (as DynamoDBMapper's @DynamoDBVersionAttribute or AppSync's _version). The hub refuses a
 *   device write made on a version it no longer holds (replication/version-check.ts) and tells the device,
 *   with the refused item and the hub's, in the ack.
 *
 * The hub owns the rule (`startHub({ conflicts })`): it is the one place every write passes. A
 * device declares the same rule (`startSync({ conflicts })`, or `conflict` in the table's entry of
 * `tables`) so its change log keeps the item each write replaced (the base the hub checks
 * against); without it the hub can check a put's version number only, and refuses deletes, which
 * carry no version of their own.
 */
import { ValidationException } from '../model/errors.js';

export type ConflictRule = { readonly strategy: 'last-writer-wins' } | { readonly strategy: 'version'; readonly attribute: string };

/** Rules by table name (the device's table name; in per-device hub mode too). */
export type ConflictRules = Readonly<Record<string, ConflictRule>>;

/** The rule of `table`: its entry, else last-writer-wins. */
export function conflictRuleOf(rules: ConflictRules | undefined, table: string): ConflictRule {
  return (rules && Object.hasOwn(rules, table) ? rules[table] : undefined) ?? { strategy: 'last-writer-wins' };
}

/** Checks `conflicts` as given by a caller; throws ValidationException naming what is wrong. */
export function checkConflictRules(rules: unknown): ConflictRules {
  if (rules === undefined) return {};
  if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) throw new ValidationException('conflicts must be an object of table name -> { strategy, attribute }');
  for (const [table, rule] of Object.entries(rules)) checkConflictRule(rule, `conflicts.${table}`);
  return rules as ConflictRules;
}

/**
 * Checks one rule; `where` names it in the message (`conflicts.WorkOrders`, or the table entry of
 * startSync's `tables`). Throws ValidationException.
 */
export function checkConflictRule(rule: unknown, where: string): ConflictRule {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new ValidationException(`${where} must be { strategy: 'version', attribute } or { strategy: 'last-writer-wins' }, not ${JSON.stringify(rule)}`);
  const r = rule as { strategy?: unknown; attribute?: unknown };
  if (r.strategy === 'last-writer-wins') return { strategy: 'last-writer-wins' };
  if (r.strategy !== 'version') throw new ValidationException(`${where}.strategy must be 'version' or 'last-writer-wins', not ${JSON.stringify(r.strategy)}`);
  if (typeof r.attribute !== 'string' || r.attribute.length === 0 || r.attribute.length > 255) {
    throw new ValidationException(`${where}.attribute must name the version attribute (1 to 255 characters), not ${JSON.stringify(r.attribute)}`);
  }
  return { strategy: 'version', attribute: r.attribute };
}
