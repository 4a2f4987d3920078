/**
 * GetItem: hash -> partition -> one get -> decode only what is returned -> project.
 * Absent items cost the minimum read; projection never lowers the cost (spec §5.2).
 * The request is parsed once (ops/request/get-item-request.ts). A plain Key (ops/request/plain-get.ts:
 * plain S/N values for the table) is encoded directly instead of converted, which it would pass
 * unchanged, and a plain request (no projection) compiles no expressions; the read, metering
 * included, is the same for every request.
 */
import { readUnits } from '../../capacity/units.js';
import { consumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { compileRequest, type Projection } from '../../expr/index.js';
import { decodeRecord, decodeRecordToWire, recordBody, recordItemSize } from '../../codec/item-record.js';
import { encodeLookupKey, type EncodedKey } from '../../codec/item-key.js';
import type { KeyValue } from '../../model/attribute-value.js';
import type { ReadTxn } from '../../storage/txn.js';
import type { Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { readKey, shapeItem } from '../request/item-request.js';
import { isPlainGet, plainKey } from '../request/plain-get.js';
import { reserve } from '../write/throttle-guard.js';
import { hiddenTest } from '../../ttl/expiry.js';
import { checkedKey, parseGetItemRequest } from '../request/get-item-request.js';

/** Key values of a plain Key; reused, as a request reads them before the next begins. */
const keyValues: KeyValue[] = [];

export function getItem(ctx: EngineContext, request: unknown) {
  const req = parseGetItemRequest(request);
  // One read txn for the whole request: the catalog's freshness check shares it (a nested read).
  return ctx.store.read((txn) => {
    // A Key whose shape scan was deferred is scanned before an unknown table is reported (the
    // schema pass's errors come first).
    const table = ctx.catalog.find(req.tableName) ?? (checkedKey(req), ctx.catalog.require(req.tableName));
    // A plain Key is encoded as it is: a view of a reused scratch (encodeLookupKey), used at once
    // by this request's one get. Any other is converted, and reported, by readKey.
    const key = plainKey(table.keySchema, req.key, keyValues) ? encodeLookupKey(keyValues[0]!, keyValues[1]) : table.keyOf(readKey(table, checkedKey(req)));
    const projection = isPlainGet(req) ? undefined : compileRequest(req.expressionMembers, 'GetItem').projection;
    return readOne(ctx, txn, table, key, projection, req.consistent, req.capacityMode, req.requestedName);
  });
}

/** What a get reserves before it reads: the least it can consume. */
const LEAST_EVENTUAL = Object.freeze({ table: readUnits(0, false) });
const LEAST_STRONG = Object.freeze({ table: readUnits(0, true) });

function readOne(
  ctx: EngineContext,
  txn: ReadTxn,
  table: Table,
  key: EncodedKey,
  projection: Projection | undefined,
  consistent: boolean,
  capacityMode: ReturnConsumedCapacity,
  requestedName: string,
) {
  const partition = table.partitionOf(key.hash);
  const metered = reserve(ctx, table, 'read', partition.range.id, consistent ? LEAST_STRONG : LEAST_EVENTUAL, key.hash);
  const record = table.recordIn(txn, partition.db, key);
  let size = 0;
  let item;
  if (record) {
    size = recordItemSize(record);
    const ttl = table.def.TimeToLive;
    const hidden = ttl?.hideExpired ? hiddenTest(ttl, ctx.now(), table.names) : undefined;
    // An expired item not yet swept is hidden, yet it was read: it is charged.
    if (hidden === undefined || !hidden(recordBody(record))) {
      item = projection
        ? shapeItem(decodeRecord(record, table.names), projection)
        : decodeRecordToWire(record, table.names);
    }
  }
  const units = readUnits(size, consistent);
  metered.settle({ table: units });
  const capacity = consumedCapacity(capacityMode, requestedName, units);
  if (item === undefined) return capacity ? { ConsumedCapacity: capacity } : {};
  return capacity ? { Item: item, ConsumedCapacity: capacity } : { Item: item };
}
