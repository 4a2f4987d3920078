/**
 * BatchGetItem: up to 100 keys across tables, read in one txn. Every key is answered or returned
 * in UnprocessedKeys (when throttled, or once the 16 MB response cap is reached); none is silently
 * dropped. The cap is never crossed: the first item that would cross it, and every key after it,
 * go to UnprocessedKeys unread and unmetered.
 */
import { decodeItem, decodeItemToWire } from '../codec/item-value.js';
import { readUnits } from '../capacity/units.js';
import { readReturnConsumedCapacity, type ConsumedCapacity } from '../capacity/consumed-capacity.js';
import type { WireItemOutput } from '../model/attribute-value.js';
import type { KeysAndAttributes } from '../api/item-operations.js';
import type { Key } from '../api/shapes.js';
import { SerializationException, ValidationException } from '../model/errors.js';
import { MAX_BATCH_GET_KEYS, MAX_BATCH_GET_RESPONSE_BYTES } from '../model/limits.js';
import { compileRequest } from '../expr/index.js';
import { checkExpressionMixing } from '../expr/legacy-mixing.js';
import { recordBody, recordItemSize } from '../codec/item-record.js';
import type { EngineContext } from './engine-context.js';
import { readConsistentRead, readKey, shapeItem } from './item-request.js';
import { optionalArray, optionalObject } from './request-checks.js';
import { readTableName } from './table-name.js';
import { tryReserve } from './throttle-guard.js';
import { throttledError, type ThrottleCause } from '../capacity/throughput.js';
import { hiddenTest } from '../ttl/expiry.js';
import { readRequestItems } from './request-checks.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export function batchGetItem(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.BatchGetItem, request);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const requestItems = readRequestItems(req.RequestItems, 'BatchGetItem');
  let total = 0;
  const plans = Object.entries(requestItems).map(([name, raw]) => {
    const tableName = readTableName(name, 'requestItems');
    const block = optionalObject(raw, `RequestItems.${name}`) ?? {};
    const keys = optionalArray(block.Keys, `RequestItems.${name}.Keys`) ?? [];
    if (keys.length < 1 || keys.length > MAX_BATCH_GET_KEYS) {
      throw new ValidationException(
        `1 validation error detected: Value at 'RequestItems.${name}.member.Keys' failed to satisfy constraint: Member must have length ${keys.length < 1 ? 'greater than or equal to 1' : `less than or equal to ${MAX_BATCH_GET_KEYS}`}`,
      );
    }
    total += keys.length;
    return { tableName, name, block, keys };
  });
  if (total > MAX_BATCH_GET_KEYS) throw new ValidationException('Too many items requested for the BatchGetItem call');
  // The service refuses expression and legacy projections across the whole request, even when
  // each table's block is consistent on its own.
  const present = (member: string) => plans.some(({ block }) => block[member] !== undefined && block[member] !== null);
  checkExpressionMixing(
    { ProjectionExpression: present('ProjectionExpression') || undefined, AttributesToGet: present('AttributesToGet') || undefined },
    ['ProjectionExpression'],
    ['AttributesToGet'],
  );

  const resolved = plans.map(({ tableName, name, block, keys }) => {
    const table = ctx.catalog.require(tableName);
    const consistent = readConsistentRead(block.ConsistentRead);
    if (block.AttributesToGet !== undefined && !Array.isArray(block.AttributesToGet)) {
      throw new SerializationException('Unexpected value type for AttributesToGet: expected a list');
    }
    const { projection } = compileRequest(block, 'BatchGetItem');
    const seen = new Set<string>();
    const encoded = keys.map((raw) => {
      const key = table.keyOf(readKey(table, raw));
      const id = Buffer.from(key.bytes).toString('latin1');
      if (seen.has(id)) throw new ValidationException('Provided list of item keys contains duplicates');
      seen.add(id);
      return { raw, key };
    });
    return { name, table, consistent, projection, encoded, block };
  });

  const responses: Record<string, WireItemOutput[]> = {};
  // Echoed as the caller gave them (DynamoDB's contract: retry by passing them back); the schema
  // pass has checked them against KeysAndAttributes.
  const unprocessed: Record<string, { Keys: Key[] } & KeysAndAttributes> = {};
  const capacities: ConsumedCapacity[] = [];
  // The full item sizes read so far (before projection, as the service counts), and whether the
  // cap stopped the batch.
  let responseBytes = 0;
  let full = false;
  // Throttled keys go back in UnprocessedKeys; only when every key was throttled does the batch fail.
  let throttled: ThrottleCause | undefined;
  let processed = 0;
  const nowMs = ctx.now();
  ctx.store.read((txn) => {
    for (const { name, table, consistent, projection, encoded, block } of resolved) {
      const items: WireItemOutput[] = (responses[name] = []);
      const hidden = hiddenTest(table.def.TimeToLive, nowMs, table.names);
      let units = 0;
      for (const { raw, key } of encoded) {
        const partition = table.partitionOf(key.hash);
        // Read first (a read txn changes nothing): the size decides whether the item still fits.
        const record = full ? undefined : table.recordIn(txn, partition.db, key);
        const size = record ? recordItemSize(record) : 0;
        if (full || responseBytes + size > MAX_BATCH_GET_RESPONSE_BYTES) {
          full = true;
          (unprocessed[name] ??= { ...(block as KeysAndAttributes), Keys: [] }).Keys.push(raw as Key);
          continue;
        }
        const metered = tryReserve(ctx, table, 'read', partition.range.id, { table: readUnits(0, consistent) }, key.hash);
        if (typeof metered === 'string') {
          throttled ??= metered;
          (unprocessed[name] ??= { ...(block as KeysAndAttributes), Keys: [] }).Keys.push(raw as Key);
          continue;
        }
        processed++;
        units += readUnits(size, consistent);
        metered.settle({ table: readUnits(size, consistent) });
        if (!record) continue;
        responseBytes += size;
        const body = recordBody(record);
        if (hidden?.(body)) continue;
        items.push(projection ? shapeItem(decodeItem(body, 0, table.names), projection) : decodeItemToWire(body, 0, table.names));
      }
      if (capacityMode !== 'NONE') {
        capacities.push(capacityMode === 'TOTAL' ? { TableName: name, CapacityUnits: units } : { TableName: name, CapacityUnits: units, Table: { CapacityUnits: units } });
      }
    }
  });
  if (throttled && processed === 0) throw throttledError(throttled);
  return {
    Responses: responses,
    UnprocessedKeys: unprocessed,
    ...(capacityMode !== 'NONE' ? { ConsumedCapacity: capacities } : {}),
  };
}
