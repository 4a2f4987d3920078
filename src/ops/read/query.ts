/**
 * Query: one partition, one cursor from the first key the condition admits, forward or backward,
 * stopping as soon as the condition ends, Limit items were evaluated, or 1 MB was read (spec §6.3).
 * A plain request (ops/request/plain-query.ts: a key condition of a common shape, on the table or an index,
 * no filter or projection) skips the general request checks and the expression compile, which it would pass
 * unchanged; from the key range on, metering included, both paths are the same code.
 */
import type { ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { findPartitionIndex } from '../../partition/partition-map.js';
import { baseFetcher, checkGlobalProjection, needsFetch } from './index-fetch.js';
import { readPageCapacity } from './read-capacity.js';
import { plainIndexTarget, readStartKey, resolveReadTarget, type ReadTarget } from './read-target.js';
import { ValidationException } from '../../model/errors.js';
import { analyzeKeyCondition, conditionAttributeNames, type Condition, type Projection } from '../../expr/index.js';
import { decodeAttributes } from '../../codec/item-value.js';
import { recordBody } from '../../codec/item-record.js';
import type { EngineContext } from '../engine-context.js';
import { orderedWalk, placedFullKey, queryBounds, walkOptions, type KeyBounds } from './query-range.js';
import type { EncodedKey } from '../../codec/item-key.js';
import { startsWith } from '../../codec/key-bytes.js';
import { PageCollector, type Select } from './read-page.js';
import { readEstimate, readUsage, reserve } from '../write/throttle-guard.js';
import { hiddenTest } from '../../ttl/expiry.js';
import { parseQueryRequest, type QueryRequest } from '../request/query-request.js';
import { plainKeyRange, plainQuery } from '../request/plain-query.js';
import type { ReadTxn } from '../../storage/txn.js';
import type { Table } from '../../table/table.js';

export function query(ctx: EngineContext, request: unknown) {
  const plain = plainQuery(request);
  if (plain === undefined) return checkedQuery(ctx, parseQueryRequest(request));
  return ctx.store.read((txn) => {
    const table = ctx.catalog.find(plain.tableName);
    // An unknown table or a condition the general path would report goes there, in this same txn,
    // so errors come in its order.
    if (table === undefined) return checkedQuery(ctx, parseQueryRequest(request));
    const index = plain.indexName;
    const target = index === undefined ? resolveReadTarget(table, undefined, plain.consistent, undefined) : plainIndexTarget(table, index, plain.consistent);
    const range = target === undefined ? undefined : plainKeyRange(plain.template, target.keySchema, plain.values);
    if (target === undefined || range === undefined) return checkedQuery(ctx, parseQueryRequest(request));
    const page: PageRequest = {
      limit: plain.limit,
      select: index === undefined ? 'ALL_ATTRIBUTES' : 'ALL_PROJECTED_ATTRIBUTES',
      forward: plain.forward,
      consistent: plain.consistent,
      capacityMode: plain.capacityMode,
      filter: undefined,
      projection: undefined,
      requestedName: plain.tableName,
    };
    return readRange(ctx, txn, table, target, queryBounds(range, placement(txn, target)), undefined, page);
  }, 'range-read');
}

/** What a Query page needs besides its key range: the request's checked parameters. */
type PageRequest = {
  readonly limit: number | undefined;
  readonly select: Select;
  readonly forward: boolean;
  readonly consistent: boolean;
  readonly capacityMode: ReturnConsumedCapacity;
  readonly filter: Condition | undefined;
  readonly projection: Projection | undefined;
  /** TableName as the request spelt it (a name or an ARN), for ConsumedCapacity. */
  readonly requestedName: string;
};

function checkedQuery(ctx: EngineContext, req: QueryRequest) {
  const { compiled } = req;
  // One read txn for the whole request: the catalog's freshness check shares it (a nested read).
  return ctx.store.read((txn) => {
    const table = ctx.catalog.require(req.tableName);
    const target = resolveReadTarget(table, req.indexName, req.consistent, req.selectAsked);
    checkGlobalProjection(target, compiled.projection);
    const range = analyzeKeyCondition(compiled.keyCondition!, target.keySchema);
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
    const start = startFull && placedFullKey(bounds, startFull);
    const { limit, select, forward, consistent, capacityMode, requestedName } = req;
    const page: PageRequest = { limit, select, forward, consistent, capacityMode, filter: compiled.filter, projection: compiled.projection, requestedName };
    return readRange(ctx, txn, table, target, bounds, start, page);
  }, 'range-read');
}

/** Reads one page of `bounds` (after `start`, an ExclusiveStartKey's full key), metered, as the response. */
function readRange(ctx: EngineContext, txn: ReadTxn, table: Table, target: ReadTarget, bounds: KeyBounds, start: Uint8Array | undefined, request: PageRequest) {
  const { limit, select, forward, consistent, capacityMode, filter, projection } = request;
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
