/**
 * BatchGetItem: up to 100 keys across tables, read in one txn. Every key is answered or returned
 * in UnprocessedKeys (when throttled, or once the 16 MB response cap is reached); none is silently
 * dropped. The cap is never crossed: the first item that would cross it, and every key after it,
 * go to UnprocessedKeys unread and unmetered.
 */
import { decodeItem, decodeItemToWire } from '../../codec/item-value.js';
import { readUnits } from '../../capacity/units.js';
import type { ConsumedCapacity } from '../../capacity/consumed-capacity.js';
import type { WireItemOutput } from '../../model/attribute-value.js';
import type { KeysAndAttributes } from '../../api/item-operations.js';
import type { Key } from '../../api/shapes.js';
import { ValidationException } from '../../model/errors.js';
import { MAX_BATCH_GET_RESPONSE_BYTES } from '../../model/limits.js';
import { compileRequest } from '../../expr/index.js';
import { recordBody, recordItemSize } from '../../codec/item-record.js';
import type { EngineContext } from '../engine-context.js';
import { readKey, shapeItem } from '../request/item-request.js';
import { tryReserve } from '../write/throttle-guard.js';
import { throttledError, type ThrottleCause } from '../../capacity/throughput.js';
import { hiddenTest } from '../../ttl/expiry.js';
import { parseBatchGetItemRequest } from '../request/batch-get-item-request.js';

export function batchGetItem(ctx: EngineContext, request: unknown) {
  const { capacityMode, tables } = parseBatchGetItemRequest(request);
  const resolved = tables.map(({ requestedName: name, tableName, keys, consistent, projection: members, echo }) => {
    const table = ctx.catalog.require(tableName);
    const { projection } = compileRequest(members, 'BatchGetItem');
    const seen = new Set<string>();
    const encoded = keys.map((raw) => {
      const key = table.keyOf(readKey(table, raw));
      const id = Buffer.from(key.bytes).toString('latin1');
      if (seen.has(id)) throw new ValidationException('Provided list of item keys contains duplicates');
      seen.add(id);
      return { raw, key };
    });
    return { name, table, consistent, projection, encoded, echo };
  });

  const responses: Record<string, WireItemOutput[]> = {};
  // Echoed as the caller gave them (DynamoDB's contract: retry by passing them back).
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
    for (const { name, table, consistent, projection, encoded, echo } of resolved) {
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
          (unprocessed[name] ??= { ...echo, Keys: [] }).Keys.push(raw);
          continue;
        }
        const metered = tryReserve(ctx, table, 'read', partition.range.id, { table: readUnits(0, consistent) }, key.hash);
        if (typeof metered === 'string') {
          throttled ??= metered;
          (unprocessed[name] ??= { ...echo, Keys: [] }).Keys.push(raw);
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
