/**
 * UpdateItem: parse the request once (request/update-item-request.ts), then one txn { read old,
 * check condition against the stored item (before the upsert fills in the key), apply the update,
 * check the result, write }. Creates the item when absent.
 */
import { writeUnits } from '../../capacity/units.js';
import { consumedCapacityWithIndexes } from '../../capacity/consumed-capacity.js';
import type { Item } from '../../model/attribute-value.js';
import { toWireItem } from '../../model/binary.js';
import { ValidationException } from '../../model/errors.js';
import { itemSize } from '../../model/item-size.js';
import { checkItemKey } from '../../model/key-rules.js';
import { MAX_ITEM_BYTES } from '../../model/limits.js';
import { applyUpdate, compileRequest, evaluateCondition } from '../../expr/index.js';
import { checkUpdatedIndexKeys } from '../../table/check-index-keys.js';
import { WriteSession } from '../../table/write-session.js';
import type { EngineContext } from '../engine-context.js';
import { collectionMetricsOf, conditionFailed, readKey, type ReturnValues } from '../request/item-request.js';
import { reserve, settleOnFailure, writeEstimate, writeUsage } from './throttle-guard.js';
import { parseUpdateItemRequest } from '../request/update-item-request.js';

export function updateItem(ctx: EngineContext, request: unknown) {
  const { requestedName, tableName, returnValues, returnOnFailure, capacityMode, collectionAsked, key: wireKey, byExpression, expressionMembers } = parseUpdateItemRequest(request);
  const table = ctx.catalog.require(tableName);
  const keyItem = readKey(table, wireKey);
  const key = table.keyOf(keyItem);
  const { condition, update } = compileRequest(expressionMembers, 'UpdateItem');
  const partition = table.partitionOf(key.hash);

  const metered = reserve(ctx, table, 'write', partition.range.id, writeEstimate(table, 1), key.hash);
  // A failed condition still consumes write units (spec §5.3): the stored item's, or 1 when absent.
  const failure = { units: 0 };
  const result = settleOnFailure(metered, failure, () => ctx.store.write((txn) => {
    const session = new WriteSession(txn);
    const previous = session.readItem(table, partition, key);
    if (condition && !evaluateCondition(condition, previous?.item)) {
      failure.units = writeUnits(previous?.size ?? 0);
      throw conditionFailed(returnOnFailure, previous?.item);
    }
    let next: Item;
    let updatedOld: Item = {};
    let updatedNew: Item = {};
    if (update) {
      const applied = applyUpdate(update, previous?.item, table.keyNames);
      next = { ...applied.item, ...keyItem };
      updatedOld = applied.updatedOld;
      updatedNew = applied.updatedNew;
    } else {
      next = previous?.item ?? keyItem;
    }
    checkItemKey(next, table.keySchema);
    if (byExpression) checkUpdatedIndexKeys(table, updatedNew);
    const size = itemSize(next);
    if (size > MAX_ITEM_BYTES) throw new ValidationException('Item size to update has exceeded the maximum allowed size');
    const indexUnits = session.putItem(table, partition, key, next, size, previous);
    session.finish();
    return { previous, next, size, updatedOld, updatedNew, indexUnits };
  }));

  const tableUnits = writeUnits(Math.max(result.previous?.size ?? 0, result.size));
  metered.settle(writeUsage(tableUnits, result.indexUnits));
  const capacity = consumedCapacityWithIndexes(capacityMode, requestedName, tableUnits, result.indexUnits);
  const attributes = pickReturn(returnValues, result.previous?.item, result.next, result.updatedOld, result.updatedNew);
  return {
    ...(attributes && Object.keys(attributes).length > 0 ? { Attributes: toWireItem(attributes) } : {}),
    ...(capacity ? { ConsumedCapacity: capacity } : {}),
    ...collectionMetricsOf(collectionAsked, table, keyItem, result.indexUnits.collectionBytes),
  };
}

function pickReturn(mode: ReturnValues, old: Item | undefined, next: Item, updatedOld: Item, updatedNew: Item): Item | undefined {
  switch (mode) {
    case 'ALL_OLD':
      return old;
    case 'ALL_NEW':
      return next;
    case 'UPDATED_OLD':
      return updatedOld;
    case 'UPDATED_NEW':
      return updatedNew;
    default:
      return undefined;
  }
}
