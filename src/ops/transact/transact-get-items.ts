/**
 * TransactGetItems (spec §6.8): up to 100 Gets read in ONE read txn, so every item comes from the
 * same committed snapshot. `Responses` follows the request order: `{Item}` or `{}` when the item
 * is absent or the projection matched nothing. Each Get costs 2 read units per 4 KB, absent items
 * included (spec §5.2).
 */
import { readUnits } from '../../capacity/units.js';
import { decodeItem, decodeItemToWire } from '../../codec/item-value.js';
import type { Projection } from '../../expr/index.js';
import type { WireItemOutput } from '../../model/attribute-value.js';
import type { EncodedKey } from '../../codec/item-key.js';
import { recordBody, recordItemSize } from '../../codec/item-record.js';
import type { Partition, Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { shapeItem } from '../request/item-request.js';
import { TransactionCanceledException, ValidationException, type CancellationReason } from '../../model/errors.js';
import { checkKey } from '../../model/key-rules.js';
import { parseTransactGetItemsRequest } from '../request/transact-get-items-request.js';
import { reserveTransaction } from '../write/throttle-guard.js';
import { hiddenTest } from '../../ttl/expiry.js';
import { TransactCapacity, transactConsumedCapacity } from './transact-capacity.js';
import { ItemSet } from './transact-request.js';

/** A Get with its table resolved and its key encoded. */
type ResolvedGet = {
  readonly requestedName: string;
  readonly table: Table;
  readonly partition: Partition;
  readonly key: EncodedKey;
  readonly projection: Projection | undefined;
};

export function transactGetItems(ctx: EngineContext, request: unknown) {
  // Every Get's request-only rules (key values, projections) come before any table is looked up,
  // as TransactWriteItems' do (spec §6.7): the parse applies them.
  const { gets: parsed, capacityMode } = parseTransactGetItemsRequest(request);
  const items = new ItemSet();
  // A key that does not match its table's schema cancels the transaction with a ValidationError
  // reason for that Get (the others: None), as DynamoDB does, rather than failing the request.
  const keyErrors: (CancellationReason | undefined)[] = [];
  const found = parsed.map(({ requestedName, key: given, projection }, i): ResolvedGet | undefined => {
    const table = ctx.catalog.require(requestedName);
    try {
      checkKey(given, table.keySchema);
    } catch (e) {
      if (!(e instanceof ValidationException)) throw e;
      keyErrors[i] = { Code: 'ValidationError', Message: e.message };
      return undefined;
    }
    const key = table.keyOf(given);
    items.add(table.name, key);
    return { requestedName, table, partition: table.partitionOf(key.hash), key, projection };
  });
  if (keyErrors.length > 0) throw new TransactionCanceledException(parsed.map((_, i) => keyErrors[i] ?? { Code: 'None' }));
  const gets = found as ResolvedGet[];

  const metered = reserveTransaction(ctx, gets.map((g) => ({ table: g.table, partitionId: g.partition.range.id, keyHash: g.key.hash, direction: 'read' as const, estimate: { table: 2 } })));
  const nowMs = ctx.now();
  const capacity = new TransactCapacity();
  const responses = ctx.store.read((txn) =>
    gets.map((get, i): { Item?: WireItemOutput } => {
      const record = get.table.recordIn(txn, get.partition.db, get.key);
      const units = 2 * readUnits(record ? recordItemSize(record) : 0, true);
      capacity.add(get.table.name, get.requestedName, units);
      metered[i]!.settle({ table: units });
      if (!record) return {};
      const body = recordBody(record);
      if (hiddenTest(get.table.def.TimeToLive, nowMs, get.table.names)?.(body)) return {};
      const item = get.projection ? shapeItem(decodeItem(body, 0, get.table.names), get.projection) : decodeItemToWire(body, 0, get.table.names);
      return Object.keys(item).length > 0 ? { Item: item } : {};
    }),
  );

  const consumed = transactConsumedCapacity(capacityMode, 'ReadCapacityUnits', capacity.list());
  return { Responses: responses, ...(consumed ? { ConsumedCapacity: consumed } : {}) };
}
