/**
 * Fetching base items for a local secondary index read that asks for attributes the index does
 * not project (spec §4.3, §5.2): each fetched item is a read of the base table, rounded to 4 KB on
 * its own and charged to the table.
 */
import { decodeItem } from '../../codec/item-value.js';
import { readUnits } from '../../capacity/units.js';
import type { Item } from '../../model/attribute-value.js';
import { ValidationException } from '../../model/errors.js';
import { conditionAttributeNames, projectionTopLevelNames, type Condition, type Projection } from '../../expr/index.js';
import type { ReadTxn } from '../../storage/txn.js';
import { recordBody, recordItemSize } from '../../codec/item-record.js';
import type { ReadTarget } from './read-target.js';
import type { Select } from './read-page.js';

/**
 * A global secondary index cannot fetch from the table, so a projection naming attributes the
 * index does not store is refused (a local index fetches them instead).
 */
export function checkGlobalProjection(target: ReadTarget, projection: Projection | undefined): void {
  if (!target.global || !projection || target.global.def.Projection.ProjectionType === 'ALL') return;
  const missing = [...projectionTopLevelNames(projection)].filter((name) => !target.projects(name));
  if (missing.length > 0) {
    throw new ValidationException(
      `One or more parameter values were invalid: Global secondary index ${target.global.def.IndexName} does not project [${missing.join(', ')}]`,
    );
  }
}

/** Whether a read of `target` needs base items. Only LSIs fetch; GSIs return what they store. */
export function needsFetch(target: ReadTarget, select: Select, projection: Projection | undefined, filter: Condition | undefined): boolean {
  if (!target.local || target.local.Projection.ProjectionType === 'ALL') return false;
  if (select === 'ALL_ATTRIBUTES') return true;
  for (const name of projection ? projectionTopLevelNames(projection) : []) if (!target.projects(name)) return true;
  for (const name of filter ? conditionAttributeNames(filter) : []) if (!target.projects(name)) return true;
  return false;
}

/** A fetch function for PageCollector plus the units it has consumed so far. */
export function baseFetcher(txn: ReadTxn, target: ReadTarget, consistent: boolean) {
  const state = { units: 0 };
  const fetch = (entry: Item): Item | undefined => {
    const key = target.table.keyOf(entry);
    const record = target.table.recordIn(txn, target.table.partitionOf(key.hash).db, key);
    if (!record) return undefined;
    state.units += readUnits(recordItemSize(record), consistent);
    return decodeItem(recordBody(record), 0, target.table.names);
  };
  return { fetch, state };
}
