/**
 * What one base-item write does to each secondary index, and what it costs (spec §5.4):
 *
 *   not in the index before or after          0 writes
 *   enters (new entry)                        1 put, sized on the new entry
 *   leaves (old entry)                        1 delete, sized on the old entry
 *   index key changes                         delete + put, each rounded on its own entry
 *   same key, projected content changes       1 put, sized on the larger entry
 *   identical entry (set order ignored)       0 writes
 */
import { writeUnits } from '../capacity/units.js';
import type { Item } from '../model/attribute-value.js';
import type { PrimaryKeySchema } from '../model/key-schema.js';
import { valuesEqual } from '../model/values-equal.js';
import { compareBytes } from '../codec/key-bytes.js';
import type { SecondaryIndex as IndexDefinition } from './secondary-index.js';
import { indexEntryFor, type IndexEntry, type KeyViolation } from './index-entry.js';

export type IndexChange = {
  readonly index: IndexDefinition;
  /**
   * The entry that leaves the index. For a same-key overwrite it is the old version of the entry
   * (same key as `put`), so `put.size - remove.size` is always the change in stored bytes (item
   * collection sizes depend on it); deleting it before writing `put` is then a harmless overwrite.
   */
  readonly remove: IndexEntry | undefined;
  readonly put: IndexEntry | undefined;
  /** Write units charged to this index for the change. */
  readonly units: number;
};

export function indexChange(
  index: IndexDefinition,
  table: PrimaryKeySchema,
  oldItem: Item | undefined,
  newItem: Item | undefined,
): IndexChange | undefined {
  const violation: KeyViolation = index.kind === 'global' && index.IndexStatus !== 'ACTIVE' ? 'skip' : 'reject';
  // An old entry was valid when written; never reject a write because of what it replaces.
  const before = oldItem ? indexEntryFor(index, table, oldItem, 'skip') : undefined;
  const after = newItem ? indexEntryFor(index, table, newItem, violation) : undefined;
  if (!before && !after) return undefined;
  if (before && after) {
    if (compareBytes(before.key, after.key) === 0) {
      if (sameEntry(before.item, after.item)) return undefined;
      return { index, remove: before, put: after, units: writeUnits(Math.max(before.size, after.size)) };
    }
    return { index, remove: before, put: after, units: writeUnits(before.size) + writeUnits(after.size) };
  }
  if (after) return { index, remove: undefined, put: after, units: writeUnits(after.size) };
  return { index, remove: before, put: undefined, units: writeUnits(before!.size) };
}

function sameEntry(a: Item, b: Item): boolean {
  let n = 0;
  for (const name in a) {
    const other = b[name];
    if (other === undefined || !valuesEqual(a[name]!, other)) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}
