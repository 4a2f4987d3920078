/**
 * PutItem: parse the request once (request/put-item-request.ts) -> compile expressions (cached) -> one txn { read old, check condition, write
 * item } -> shape output (spec §6.2).
 */
import { writeUnits } from '../../capacity/units.js';
import { consumedCapacityWithIndexes } from '../../capacity/consumed-capacity.js';
import { toWireItem } from '../../model/binary.js';
import { ValidationException } from '../../model/errors.js';
import { itemSize } from '../../model/item-size.js';
import { checkItemKey } from '../../model/key-rules.js';
import { MAX_ITEM_BYTES } from '../../model/limits.js';
import { compileRequest, evaluateCondition } from '../../expr/index.js';
import { WriteSession } from '../../table/write-session.js';
import type { EngineContext } from '../engine-context.js';
import { collectionMetricsOf, conditionFailed } from '../request/item-request.js';
import { reserve, settleOnFailure, writeEstimate, writeUsage } from './throttle-guard.js';
import { parsePutItemRequest } from '../request/put-item-request.js';

export function putItem(ctx: EngineContext, request: unknown) {
  const { requestedName, tableName, returnValues, returnOnFailure, capacityMode, collectionAsked, item, expressionMembers } = parsePutItemRequest(request);
  const table = ctx.catalog.require(tableName);
  checkItemKey(item, table.keySchema);
  const size = itemSize(item);
  if (size > MAX_ITEM_BYTES) throw new ValidationException('Item size has exceeded the maximum allowed size');
  const { condition } = compileRequest(expressionMembers, 'PutItem');
  const key = table.keyOf(item);
  const partition = table.partitionOf(key.hash);

  const metered = reserve(ctx, table, 'write', partition.range.id, writeEstimate(table, writeUnits(size), item), key.hash);
  // A failed condition still consumes write units (spec §5.3): the new item's if one exists, else 1.
  const failure = { units: 0 };
  const old = settleOnFailure(metered, failure, () => ctx.store.write((txn) => {
    const session = new WriteSession(txn);
    const needOld = condition !== undefined || returnValues === 'ALL_OLD';
    const previous = needOld ? session.readItem(table, partition, key) : session.readState(table, partition, key);
    if (condition && !evaluateCondition(condition, previous?.item)) {
      failure.units = previous ? writeUnits(size) : 1;
      throw conditionFailed(returnOnFailure, previous?.item);
    }
    const indexUnits = session.putItem(table, partition, key, item, size, previous);
    session.finish();
    return { item: previous?.item, size: previous?.size ?? 0, indexUnits };
  }));

  const tableUnits = writeUnits(Math.max(old.size, size));
  metered.settle(writeUsage(tableUnits, old.indexUnits));
  const capacity = consumedCapacityWithIndexes(capacityMode, requestedName, tableUnits, old.indexUnits);
  return {
    ...(returnValues === 'ALL_OLD' && old.item ? { Attributes: toWireItem(old.item) } : {}),
    ...(capacity ? { ConsumedCapacity: capacity } : {}),
    ...collectionMetricsOf(collectionAsked, table, item, old.indexUnits.collectionBytes),
  };
}
