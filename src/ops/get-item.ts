/**
 * GetItem: hash -> partition -> one zero-copy get -> decode only what is returned -> project.
 * Absent items cost the minimum read; projection never lowers the cost (spec §5.2).
 */
import { decodeItem, decodeItemToWire } from '../codec/item-value.js';
import { readUnits } from '../capacity/units.js';
import { consumedCapacity, readReturnConsumedCapacity } from '../capacity/consumed-capacity.js';
import { compileRequest } from '../expr/index.js';
import { RECORD_HEADER_BYTES, recordBody, recordItemSize } from '../codec/item-record.js';
import type { EngineContext } from './engine-context.js';
import { readConsistentRead, readKey, shapeItem } from './item-request.js';
import { reserve } from './throttle-guard.js';
import { hiddenTest } from '../ttl/expiry.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export function getItem(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.GetItem, request);
  const tableName = readTableName(req.TableName);
  const consistent = readConsistentRead(req.ConsistentRead);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  // One read txn for the whole request: the catalog's freshness check shares it (a nested read).
  return ctx.store.read((txn) => {
    const table = ctx.catalog.require(tableName);
    const key = table.keyOf(readKey(table, req.Key));
    const { projection } = compileRequest(req, 'GetItem');
    const partition = table.partitionOf(key.hash);

    const metered = reserve(ctx, table, 'read', partition.range.id, { table: readUnits(0, consistent) }, key.hash);
    const hidden = hiddenTest(table.def.TimeToLive, ctx.now(), table.names);
    const found = readOne();
    const units = readUnits(found?.size ?? 0, consistent);
    metered.settle({ table: units });
    const capacity = consumedCapacity(capacityMode, req.TableName as string, units);
    return {
      ...(found?.item ? { Item: found.item } : {}),
      ...(capacity ? { ConsumedCapacity: capacity } : {}),
    };

    function readOne() {
      const record = txn.get(partition.db, key.bytes);
      if (!record) return undefined;
      const size = recordItemSize(record);
      // An expired item not yet swept is hidden, yet it was read: it is charged.
      if (hidden !== undefined && hidden(recordBody(record))) return { size, item: undefined };
      return { size, item: projection ? shapeItem(decodeItem(record, RECORD_HEADER_BYTES, table.names), projection) : decodeItemToWire(record, RECORD_HEADER_BYTES, table.names) };
    }
  });
}
