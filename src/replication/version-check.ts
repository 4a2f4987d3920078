/**
 * Optimistic concurrency at the hub (replication/conflict-rule.ts, strategy 'version'): whether one
 * device change may replace the hub's item. Returns undefined to apply it, or why it is refused.
 *
 * `v(x)` is the integer value of the version attribute of item x: 0 when x is absent or has no such
 * attribute. `base` is the item the device's write replaced (the record's old image, logged when
 * the device declares the rule); `hub` the hub's current item.
 *
 * - A put (INSERT, MODIFY) is applied when v(new) = v(hub) + 1 and, if the record carries its base,
 *   base equals hub (a base with the right number but other contents is a write made on a version
 *   the hub refused earlier, i.e. a fork). A put whose item equals hub's is applied too (it changes
 *   nothing: two copies that already agree converge without a conflict).
 * - A delete is applied when hub is absent (nothing to lose), or when its base equals hub. A delete
 *   without a base cannot be checked and is refused.
 * - A version attribute that is not an integer number (on the new item or the hub's) is refused.
 */
import type { AttributeValue, Item } from '../model/attribute-value.js';
import { valuesEqual } from '../model/values-equal.js';
import type { ChangeRecord } from '../stream/change-record.js';

export function checkVersion(attribute: string, record: ChangeRecord, hub: Item | undefined): string | undefined {
  const hubVersion = versionOf(hub, attribute);
  if (hubVersion === undefined) return `the hub's item has a version attribute ${attribute} that is not an integer number`;
  const base = record.oldImage;
  if (record.eventName === 'REMOVE') {
    if (hub === undefined) return undefined;
    if (base === undefined) return `a delete carries no base version to check (declare the table's conflict rule on the device too); the hub holds version ${hubVersion}`;
    return sameItem(base, hub) ? undefined : staleBase(attribute, base, hubVersion);
  }
  const item = record.newImage!;
  if (hub !== undefined && sameItem(item, hub)) return undefined;
  const version = versionOf(item, attribute);
  if (version === undefined || !(attribute in item)) return `the item has no integer version attribute ${attribute}`;
  if (version !== hubVersion + 1n) return `version ${version} is not the hub's version ${hubVersion} + 1`;
  if (base !== undefined && (hub === undefined || !sameItem(base, hub))) return staleBase(attribute, base, hubVersion);
  return undefined;
}

function staleBase(attribute: string, base: Item, hubVersion: bigint): string {
  const baseVersion = versionOf(base, attribute);
  return baseVersion === hubVersion
    ? `made on a version ${hubVersion} the hub does not hold (a write it refused earlier)`
    : `made on version ${baseVersion ?? '?'}, the hub holds version ${hubVersion}`;
}

/** The version as an integer, 0 for an absent item or attribute, undefined when it is not an integer N. */
export function versionOf(item: Item | undefined, attribute: string): bigint | undefined {
  const value: AttributeValue | undefined = item?.[attribute];
  if (value === undefined) return 0n;
  if (!('N' in value) || !/^-?\d+$/.test(value.N)) return undefined;
  return BigInt(value.N);
}

function sameItem(a: Item, b: Item): boolean {
  return valuesEqual({ M: a }, { M: b });
}
