/**
 * Query: one partition, one cursor from the first key the condition admits, forward or backward,
 * stopping as soon as the condition ends, Limit items were evaluated, or 1 MB was read (spec §6.3).
 * The request is parsed once (ops/request/query-request.ts). A plain one (ops/request/plain-query.ts: a
 * key condition kept as its template, no filter, projection, start key or Select) reads its key range
 * from the template, skipping the checks that have nothing to check; from the key range on, metering
 * included, every Query runs the same code.
 */
import { findPartitionIndex } from '../../partition/partition-map.js';
import { baseFetcher, checkGlobalProjection, needsFetch } from './index-fetch.js';
import { readPageCapacity } from './read-capacity.js';
import { readStartKey, resolveReadTarget, type ReadTarget } from './read-target.js';
import { ValidationException } from '../../model/errors.js';
import { analyzeKeyCondition, conditionAttributeNames } from '../../expr/index.js';
import { decodeAttributes } from '../../codec/item-value.js';
import { recordBody } from '../../codec/item-record.js';
import type { EngineContext } from '../engine-context.js';
import { orderedWalk, placedFullKey, queryBounds, walkOptions, type KeyBounds } from './query-range.js';
import type { EncodedKey } from '../../codec/item-key.js';
import { startsWith } from '../../codec/key-bytes.js';
import { PageCollector } from './read-page.js';
import { readEstimate, readUsage, reserve } from '../write/throttle-guard.js';
import { hiddenTest } from '../../ttl/expiry.js';
import { parseQueryRequest, type QueryRequest } from '../request/query-request.js';
import { isPlainQuery, plainKeyRange, resolvedKeyCondition } from '../request/plain-query.js';
import type { ReadTxn } from '../../storage/txn.js';
import type { Table } from '../../table/table.js';

export function query(ctx: EngineContext, request: unknown) {
  const req = parseQueryRequest(request);
  // One read txn for the whole request: the catalog's freshness check shares it (a nested read).
  return ctx.store.read((txn) => {
    const table = ctx.catalog.require(req.tableName);
    const target = resolveReadTarget(table, req.indexName, req.consistent, req.selectAsked);
    if (isPlainQuery(req)) {
      const { template, values } = req.keyCondition;
      const range = plainKeyRange(template, target.keySchema, values);
      // A template that does not fit the key schema is analysed, and reported, below.
      if (range !== undefined) return readRange(ctx, txn, table, target, queryBounds(range, placement(txn, target)), undefined, req);
    }
    return checkedQuery(ctx, txn, table, target, req);
  }, 'range-read');
}

/** A Query that is not plain: the checks of its projection, key condition, filter and start key, in DynamoDB's order. */
function checkedQuery(ctx: EngineContext, txn: ReadTxn, table: Table, target: ReadTarget, req: QueryRequest) {
  const { compiled, keyCondition } = req;
  checkGlobalProjection(target, compiled.projection);
  const range =
    (keyCondition.kind === 'template' ? plainKeyRange(keyCondition.template, target.keySchema, keyCondition.values) : undefined) ??
    analyzeKeyCondition(resolvedKeyCondition(keyCondition), target.keySchema);
  if (compiled.filter) {
    const { partitionKey, sortKey } = target.keySchema;
    for (const name of conditionAttributeNames(compiled.filter)) {
      if (name === partitionKey.name || name === sortKey?.name) {
        throw new ValidationException(`${req.filterParameter} can only contain non-primary key attributes: Primary key attribute: ${name}`);
      }
    }
  }
  const bounds = queryBounds(range, placement(txn, target));
  const startKey = readStartKey(target, req.exclusiveStartKey);
  const startFull = startKey ? target.fullKeyBytes(startKey).bytes : undefined;
  if (startFull && !startsWith(startFull, bounds.keyPrefix)) {
    throw new ValidationException('The provided starting key is outside query boundaries based on provided conditions');
  }
  return readRange(ctx, txn, table, target, bounds, startFull && placedFullKey(bounds, startFull), req);
}

/** Reads one page of `bounds` (after `start`, an ExclusiveStartKey's full key), metered, as the response. */
function readRange(ctx: EngineContext, txn: ReadTxn, table: Table, target: ReadTarget, bounds: KeyBounds, start: Uint8Array | undefined, request: QueryRequest) {
  const { limit, select, forward, consistent, capacityMode } = request;
  const { filter, projection } = request.compiled;
  const db = target.partitions[findPartitionIndex(target.partitionMap, bounds.hash)]!.db;
  const fetching = needsFetch(target, select, projection, filter);
  const metered = reserve(ctx, table, 'read', target.global ? undefined : table.partitionOf(bounds.hash).range.id, readEstimate(target, consistent), target.global ? undefined : bounds.hash);
  // Only a table that hides expired items reads the clock here.
  const ttl = table.def.TimeToLive;
  const hidden = ttl?.hideExpired ? hiddenTest(ttl, ctx.now(), table.names) : undefined;
  const fetcher = fetching ? baseFetcher(txn, target, consistent) : undefined;
  const page = new PageCollector({ limit, filter, projection, select, keyNames: target.keyNames, fetch: fetcher?.fetch, hidden, names: table.names });
  // The visitors are passed inline rather than bound to names: under tsx (esbuild keepNames) a
  // named closure costs a defineProperty of its name on every request.
  if (bounds.empty) {
    // A partition key a partition-id table never stored: no entries, and the least a Query costs.
  } else if (target.keysMayOverflow) {
    orderedWalk(txn, db, bounds, forward, start, (record) => placedFullKey(bounds, target.fullKeyBytes(decodeAttributes(recordBody(record), target.keyNameSet)).bytes), (record) => page.accept(record));
  } else txn.eachValue(db, walkOptions(bounds, forward, start), (record) => page.accept(record));
  const fetchUnits = fetcher?.state.units ?? 0;
  ctx.pageRead?.(page.bytes);
  metered.settle(readUsage(target, page.bytes, consistent, fetchUnits));
  return page.response(readPageCapacity(capacityMode, request.requestedName, target, page.bytes, consistent, fetchUnits));
}



/** How a Query of `target` places its partition key's prefix: a partition-id table's items by id, indexes as they are. */
function placement(txn: ReadTxn, target: ReadTarget): ((encoded: EncodedKey) => Uint8Array | undefined) | undefined {
  const table = target.table;
  if (table.ids === undefined || target.local !== undefined || target.global !== undefined) return undefined;
  return (encoded) => table.storedPrefixIn(txn, encoded);
}
