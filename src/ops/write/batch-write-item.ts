/**
 * BatchWriteItem: up to 25 puts and deletes across tables, validated as a whole (any bad request
 * rejects the batch, spec §6.6) and applied in ONE txn: one fsync for the whole batch, which is
 * how a logger ingests fast without giving durability up.
 */
import { writeUnits } from '../../capacity/units.js';
import { consumedCapacityWithIndexes } from '../../capacity/consumed-capacity.js';
import type { Item } from '../../model/attribute-value.js';
import type { WriteRequest as ApiWriteRequest } from '../../api/item-operations.js';
import { EdgetableError, INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { checkItemKey, checkKey } from '../../model/key-rules.js';
import { MAX_ITEM_BYTES } from '../../model/limits.js';
import { validateItem, validateSizedItem } from '../../model/validate-attribute-value.js';
import type { EncodedKey } from '../../codec/item-key.js';
import type { Partition, Table } from '../../table/table.js';
import { WriteSession, type WriteEffects } from '../../table/write-session.js';
import { checkIndexKeys } from '../../table/check-index-keys.js';
import type { EngineContext } from '../engine-context.js';
import { tryReserve, writeEstimate, writeUsage, type Settlement } from './throttle-guard.js';
import { throttledError, type ThrottleCause, type Units } from '../../capacity/throughput.js';
import { ItemCollectionMetricsCollector } from './item-collection-metrics.js';
import { parseBatchWriteItemRequest, type BatchWrite, type BatchWriteItemRequest } from '../request/batch-write-item-request.js';

type WriteRequest =
  | { kind: 'put'; table: Table; partition: Partition; key: EncodedKey; item: Item; size: number }
  | { kind: 'delete'; table: Table; partition: Partition; key: EncodedKey };

export function batchWriteItem(ctx: EngineContext, request: unknown) {
  const parsed = parseBatchWriteItemRequest(request);
  let resolved: ResolvedBatch;
  try {
    resolved = resolveBatch(ctx, parsed);
  } catch (e) {
    throw parsed.shapeErrorFirst(e); // until every item is converted, a shape error anywhere wins
  }
  const { capacityMode, collectionsAsked } = parsed;
  const { writes, sources, requestedNames } = resolved;
  let collections = new ItemCollectionMetricsCollector(collectionsAsked);

  // Throttled requests go back in UnprocessedItems; only when all are throttled does the batch fail.
  const admitted: { w: WriteRequest; metered: Settlement }[] = [];
  // Echoed as the caller gave them (DynamoDB's contract: retry by passing them back); the schema
  // pass has checked each against WriteRequest.
  const unprocessed: Record<string, ApiWriteRequest[]> = {};
  let throttled: ThrottleCause | undefined;
  writes.forEach((w, i) => {
    const estimate = w.kind === 'put' ? writeEstimate(w.table, writeUnits(w.size), w.item) : writeEstimate(w.table, 1);
    const metered = tryReserve(ctx, w.table, 'write', w.partition.range.id, estimate, w.key.hash);
    if (typeof metered !== 'string') return void admitted.push({ w, metered });
    throttled ??= metered;
    (unprocessed[sources[i]!.name] ??= []).push(sources[i]!.raw);
  });
  if (throttled && admitted.length === 0) throw throttledError(throttled);

  const actual: Units[] = [];
  const usage = refundOnFailure(admitted, () => ctx.store.write((txn) => {
    const session = new WriteSession(txn);
    for (const { w } of admitted) session.use(w.table); // every table checked before the first write
    const perTable = new Map<string, TableUsage>();
    actual.length = 0;
    collections = new ItemCollectionMetricsCollector(collectionsAsked);
    for (const { w } of admitted) {
      const old = session.readState(w.table, w.partition, w.key);
      let size = old?.size ?? 0;
      let indexUnits: WriteEffects | undefined;
      if (w.kind === 'put') {
        indexUnits = session.putItem(w.table, w.partition, w.key, w.item, w.size, old);
        size = Math.max(w.size, size);
      } else if (old) {
        indexUnits = session.deleteItem(w.table, w.partition, w.key, old);
      }
      let u = perTable.get(w.table.name);
      if (!u) perTable.set(w.table.name, (u = { table: 0, local: {}, global: {} }));
      u.table += writeUnits(size);
      addUnits(u.local, indexUnits?.local);
      addUnits(u.global, indexUnits?.global);
      actual.push(writeUsage(writeUnits(size), indexUnits));
      const keyHolder = w.kind === 'put' ? w.item : old?.item;
      if (keyHolder) collections.add(requestedNames.get(w.table.name) ?? w.table.name, w.table, keyHolder, indexUnits?.collectionBytes);
    }
    session.finish();
    return perTable;
  }));
  admitted.forEach((a, i) => a.metered.settle(actual[i]!));

  const capacities = [...usage].map(([name, u]) => consumedCapacityWithIndexes(capacityMode, requestedNames.get(name) ?? name, u.table, u)!);
  return { UnprocessedItems: unprocessed, ...(capacityMode !== 'NONE' ? { ConsumedCapacity: capacities } : {}), ...collections.response() };
}

type ResolvedBatch = {
  writes: WriteRequest[];
  sources: { name: string; raw: ApiWriteRequest }[];
  requestedNames: Map<string, string>;
};

/** The batch's writes, each table resolved and each item converted, with the entries they came from. */
function resolveBatch(ctx: EngineContext, parsed: BatchWriteItemRequest): ResolvedBatch {
  const writes: WriteRequest[] = [];
  const sources: { name: string; raw: ApiWriteRequest }[] = [];
  // Each table's keys so far, as latin1 text of their bytes: a set per table rather than one of
  // table-name-prefixed texts, which cost a concatenation (and its flattening) per request.
  const seenByTable = new Map<string, Set<string>>();
  // ConsumedCapacity echoes the TableName as the request spelled it (a name or an ARN).
  const requestedNames = new Map<string, string>();
  for (const { requestedName: name, tableName, writes: requests } of parsed.tables) {
    const table = ctx.catalog.require(tableName);
    if (!requestedNames.has(table.name)) requestedNames.set(table.name, name);
    let seen = seenByTable.get(table.name);
    if (seen === undefined) seenByTable.set(table.name, (seen = new Set()));
    for (const entry of requests) {
      const w = convertWrite(table, entry);
      const k = w.key.bytes;
      const id = Buffer.from(k.buffer, k.byteOffset, k.length).toString('latin1'); // a view, no copy
      if (seen.has(id)) throw new ValidationException('Provided list of item keys contains duplicates');
      seen.add(id);
      writes.push(w);
      sources.push({ name, raw: entry.source });
    }
  }
  return { writes, sources, requestedNames };
}

/** PutItem's key messages that a batch put reports as `The provided key element does not match the schema`. */
const COLLAPSED_KEY_ERROR = new RegExp(`^${INVALID_PARAMETERS}(Missing the key|Type mismatch for key) `);

/** Receives each put item's size from its validation (reused: read right after). */
const sized = { size: 0 };

function convertWrite(table: Table, entry: BatchWrite): WriteRequest {
  if (entry.kind === 'refused') throw entry.error;
  if (entry.kind === 'put') {
    // BatchWriteItem runs the older value checker (model/value-layer.ts).
    const item = validateSizedItem(entry.item, sized, 'older');
    const size = sized.size;
    try {
      checkItemKey(item, table.keySchema);
    } catch (e) {
      // In a batch a missing or wrong-type key collapses to the schema message (spec §3.2, 2026 captures).
      if (e instanceof EdgetableError && COLLAPSED_KEY_ERROR.test(e.message)) throw new ValidationException('The provided key element does not match the schema');
      throw e;
    }
    if (size > MAX_ITEM_BYTES) throw new ValidationException('Item size has exceeded the maximum allowed size');
    checkIndexKeys(table, item);
    const key = table.keyOf(item);
    return { kind: 'put', table, partition: table.partitionOf(key.hash), key, item, size };
  }
  const keyItem = validateItem(entry.key, 'older');
  checkKey(keyItem, table.keySchema);
  const key = table.keyOf(keyItem);
  return { kind: 'delete', table, partition: table.partitionOf(key.hash), key };
}

type TableUsage = { table: number; local: Record<string, number>; global: Record<string, number> };

function addUnits(into: Record<string, number>, from: Readonly<Record<string, number>> | undefined): void {
  for (const name in from) into[name] = (into[name] ?? 0) + from[name]!;
}

/** Runs the batch's txn; when it throws, refunds every admitted request's estimate and rethrows. */
function refundOnFailure<T>(admitted: readonly { metered: Settlement }[], run: () => T): T {
  try {
    return run();
  } catch (e) {
    for (const a of admitted) a.metered.cancel();
    throw e;
  }
}
