/**
 * Query: one partition, one cursor from the first key the condition admits, forward or backward,
 * stopping as soon as the condition ends, Limit items were evaluated, or 1 MB was read (spec §6.3).
 */
import { readReturnConsumedCapacity } from '../capacity/consumed-capacity.js';
import { findPartitionIndex } from '../partition/partition-map.js';
import { baseFetcher, checkGlobalProjection, needsFetch } from './index-fetch.js';
import { readPageCapacity } from './read-capacity.js';
import { readStartKey, resolveReadTarget } from './read-target.js';
import { SerializationException, ValidationException } from '../model/errors.js';
import { analyzeKeyCondition, compileRequest, conditionAttributeNames } from '../expr/index.js';
import { decodeAttributes } from '../codec/item-value.js';
import { recordBody } from '../codec/item-record.js';
import type { EngineContext } from './engine-context.js';
import { readConsistentRead } from './item-request.js';
import { orderedWalk, queryBounds, walkOptions, type KeyBounds } from './query-range.js';
import { PageCollector, type Select } from './read-page.js';
import { readLimitAndSelect } from './read-request.js';
import { readEstimate, readUsage, reserve } from './throttle-guard.js';
import { hiddenTest } from '../ttl/expiry.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export function query(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.Query, request);
  const tableName = readTableName(req.TableName);
  const { limit, select } = readLimitAndSelect(req, 'Query');
  const consistent = readConsistentRead(req.ConsistentRead);
  const forward = readForward(req.ScanIndexForward);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  if (req.KeyConditionExpression === undefined && req.KeyConditions === undefined) {
    throw new ValidationException('Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.');
  }
  // One read txn for the whole request: the catalog's freshness check shares it (a nested read).
  return ctx.store.read((txn) => {
    const table = ctx.catalog.require(tableName);
    const target = resolveReadTarget(table, req.IndexName, consistent, req.Select as Select | undefined);
    const compiled = compileRequest(req, 'Query');
    checkGlobalProjection(target, compiled.projection);
    const range = analyzeKeyCondition(compiled.keyCondition!, target.keySchema);
    if (compiled.filter) {
      const { partitionKey, sortKey } = target.keySchema;
      for (const name of conditionAttributeNames(compiled.filter)) {
        if (name === partitionKey.name || name === sortKey?.name) {
          const parameter = req.QueryFilter !== undefined ? 'QueryFilter' : 'Filter Expression';
          throw new ValidationException(`${parameter} can only contain non-primary key attributes: Primary key attribute: ${name}`);
        }
      }
    }
    const bounds = queryBounds(range);
    const startKey = readStartKey(target, req.ExclusiveStartKey);
    const start = startKey ? target.fullKeyBytes(startKey).bytes : undefined;
    if (start && !withinPartition(start, bounds)) {
      throw new ValidationException('The provided starting key is outside query boundaries based on provided conditions');
    }
    const db = target.partitions[findPartitionIndex(target.partitionMap, bounds.hash)]!.db;
    const fetching = needsFetch(target, select, compiled.projection, compiled.filter);
    const metered = reserve(ctx, table, 'read', target.global ? undefined : table.partitionOf(bounds.hash).range.id, readEstimate(target, consistent), target.global ? undefined : bounds.hash);
    const hidden = hiddenTest(table.def.TimeToLive, ctx.now(), table.names);
    const fetcher = fetching ? baseFetcher(txn, target, consistent) : undefined;
    const page = new PageCollector({ limit, filter: compiled.filter, projection: compiled.projection, select, keyNames: target.keyNames, fetch: fetcher?.fetch, hidden, names: table.names });
    const fullKeyOf = (record: Uint8Array) => target.fullKeyBytes(decodeAttributes(recordBody(record), target.keyNameSet)).bytes;
    const visit = (record: Uint8Array): boolean => page.accept(record);
    if (target.keysMayOverflow) orderedWalk(txn, db, bounds, forward, start, fullKeyOf, visit);
    else txn.eachValue(db, walkOptions(bounds, forward, start), visit);
    const fetchUnits = fetcher?.state.units ?? 0;
    metered.settle(readUsage(target, page.bytes, consistent, fetchUnits));
    return page.response(readPageCapacity(capacityMode, req.TableName as string, target, page.bytes, consistent, fetchUnits));
  });
}

function readForward(raw: unknown): boolean {
  if (raw === undefined) return true;
  if (typeof raw !== 'boolean') throw new SerializationException('Unexpected value type for ScanIndexForward: expected a boolean');
  return raw;
}

function withinPartition(key: Uint8Array, bounds: KeyBounds): boolean {
  if (key.length < bounds.prefix.length) return false;
  for (let i = 0; i < bounds.prefix.length; i++) if (key[i] !== bounds.prefix[i]) return false;
  return true;
}
