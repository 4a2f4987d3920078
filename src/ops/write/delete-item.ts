/**
 * DeleteItem: parse the request once (request/delete-item-request.ts), then one txn { read old,
 * check condition, delete }. Deleting an absent item is not an error and costs one write unit
 * (spec §5.3).
 */
import { writeUnits } from '../../capacity/units.js';
import { consumedCapacityWithIndexes } from '../../capacity/consumed-capacity.js';
import { toWireItem } from '../../model/binary.js';
import { compileRequest, evaluateCondition } from '../../expr/index.js';
import { WriteSession, type WriteEffects } from '../../table/write-session.js';
import type { EngineContext } from '../engine-context.js';
import { collectionMetricsOf, conditionFailed, readKey } from '../request/item-request.js';
import { reserve, settleOnFailure, writeEstimate, writeUsage } from './throttle-guard.js';
import { parseDeleteItemRequest } from '../request/delete-item-request.js';

export function deleteItem(ctx: EngineContext, request: unknown) {
  const { requestedName, tableName, returnValues, returnOnFailure, capacityMode, collectionAsked, key: wireKey, expressionMembers } = parseDeleteItemRequest(request);
  const table = ctx.catalog.require(tableName);
  const keyItem = readKey(table, wireKey);
  const key = table.keyOf(keyItem);
  const { condition } = compileRequest(expressionMembers, 'DeleteItem');
  const partition = table.partitionOf(key.hash);

  const metered = reserve(ctx, table, 'write', partition.range.id, writeEstimate(table, 1), key.hash);
  // A failed condition still consumes write units (spec §5.3): the stored item's, or 1 when absent.
  const failure = { units: 0 };
  const old = settleOnFailure(metered, failure, () => ctx.store.write((txn) => {
    const session = new WriteSession(txn);
    const needItem = condition !== undefined || returnValues === 'ALL_OLD';
    const previous = needItem ? session.readItem(table, partition, key) : session.readState(table, partition, key);
    if (condition && !evaluateCondition(condition, previous?.item)) {
      failure.units = writeUnits(previous?.size ?? 0);
      throw conditionFailed(returnOnFailure, previous?.item);
    }
    const indexUnits: WriteEffects = previous ? session.deleteItem(table, partition, key, previous) : { local: {}, global: {} };
    session.finish();
    return { item: previous?.item, size: previous?.size ?? 0, indexUnits };
  }));

  metered.settle(writeUsage(writeUnits(old.size), old.indexUnits));
  const capacity = consumedCapacityWithIndexes(capacityMode, requestedName, writeUnits(old.size), old.indexUnits);
  return {
    ...(returnValues === 'ALL_OLD' && old.item ? { Attributes: toWireItem(old.item) } : {}),
    ...(capacity ? { ConsumedCapacity: capacity } : {}),
    ...collectionMetricsOf(collectionAsked, table, keyItem, old.indexUnits.collectionBytes),
  };
}
