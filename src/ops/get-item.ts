/**
 * GetItem: hash -> partition -> one zero-copy get -> decode only what is returned -> project.
 * Absent items cost the minimum read; projection never lowers the cost (spec §5.2).
 */
import { decodeItem, decodeItemToWire } from '../codec/item-value.js';
import { readUnits } from '../capacity/units.js';
import { consumedCapacity, readReturnConsumedCapacity } from '../capacity/consumed-capacity.js';
import { compileRequest } from '../expr/index.js';
import { recordBody, recordItemSize } from '../table/item-record.js';
import type { EngineContext } from './engine-context.js';
import { readConsistentRead, readKey, shapeItem } from './item-request.js';
import { requestObject } from './request-checks.js';
import { readTableName } from './table-name.js';

export function getItem(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const tableName = readTableName(req.TableName);
  const consistent = readConsistentRead(req.ConsistentRead);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const table = ctx.catalog.require(tableName);
  const key = table.keyOf(readKey(table, req.Key));
  const { projection } = compileRequest(req, 'GetItem');
  const partition = table.partitionOf(key.hash);

  const found = ctx.store.read((txn) => {
    const record = txn.get(partition.db, key.bytes);
    if (!record) return undefined;
    const body = recordBody(record);
    return {
      size: recordItemSize(record),
      item: projection ? shapeItem(decodeItem(body), projection) : decodeItemToWire(body),
    };
  });

  const capacity = consumedCapacity(capacityMode, req.TableName as string, readUnits(found?.size ?? 0, consistent));
  return {
    ...(found ? { Item: found.item } : {}),
    ...(capacity ? { ConsumedCapacity: capacity } : {}),
  };
}
