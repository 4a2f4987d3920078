/**
 * Scan: walks the table's partitions in hash order (as DynamoDB does). A parallel-scan segment is
 * a hash range, floor(hash * TotalSegments / 2^32) = Segment, so one partition key's items always
 * fall in one segment.
 */
import { readReturnConsumedCapacity } from '../capacity/consumed-capacity.js';
import { baseFetcher, checkGlobalProjection, needsFetch } from './index-fetch.js';
import { readPageCapacity } from './read-capacity.js';
import { readStartKey, resolveReadTarget } from './read-target.js';
import { ValidationException } from '../model/errors.js';
import { compileRequest } from '../expr/index.js';
import { HASH_SPACE, segmentHashRange } from '../partition/partition-map.js';
import { hashBound, placedPrefix, readHash, type EncodedKey } from '../codec/item-key.js';
import type { CursorOptions } from '../storage/range-cursor.js';
import type { Database } from '../storage/database.js';
import type { ReadTxn } from '../storage/txn.js';
import type { Table } from '../table/table.js';
import type { EngineContext } from './engine-context.js';
import { readConsistentRead } from './item-request.js';
import { PageCollector, type Select } from './read-page.js';
import { readLimitAndSelect } from './read-request.js';
import { ConstraintErrors, optionalInteger } from './request-checks.js';
import { readTableName } from './table-name.js';
import { readEstimate, readUsage, reserve } from './throttle-guard.js';
import { hiddenTest } from '../ttl/expiry.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

const MAX_TOTAL_SEGMENTS = 1_000_000;

export function scan(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.Scan, request);
  const tableName = readTableName(req.TableName);
  const { limit, select } = readLimitAndSelect(req);
  const consistent = readConsistentRead(req.ConsistentRead);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const segment = readSegments(req);
  // Expressions are request rules: DynamoDB reports them before it looks the table up.
  const { filter, projection } = compileRequest(req, 'Scan');
  const table = ctx.catalog.require(tableName);
  const target = resolveReadTarget(table, req.IndexName, consistent, req.Select as Select | undefined);
  const startKey = readStartKey(target, req.ExclusiveStartKey, 'older');
  checkGlobalProjection(target, projection);

  const range = segment ? segmentHashRange(segment.segment, segment.total) : { start: 0, end: HASH_SPACE };
  const start = startKey ? target.startKeyBytes(startKey) : undefined;
  if (start && segment && (start.hash < range.start || start.hash >= range.end)) {
    throw new ValidationException(
      `The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: ${segment.total} Segment: ${segment.segment}`,
    );
  }
  const fetching = needsFetch(target, select, projection, filter);
  // A scan walks many partitions: its units are the table's, not attributed to one partition.
  const metered = reserve(ctx, table, 'read', undefined, readEstimate(target, consistent));
  const hidden = hiddenTest(table.def.TimeToLive, ctx.now(), table.names);
  const { page, fetchUnits } = ctx.store.read((txn) => {
    const fetcher = fetching ? baseFetcher(txn, target, consistent) : undefined;
    const page = new PageCollector({ limit, filter, projection, select, keyNames: target.keyNames, fetch: fetcher?.fetch, hidden, names: table.names });
    const walkFrom = start ? start.hash : range.start;
    const placed = target.local === undefined && target.global === undefined && table.ids !== undefined;
    for (const partition of target.partitions) {
      if (partition.end <= walkFrom || partition.start >= range.end) continue;
      const lower = Math.max(partition.start, range.start);
      const upper = Math.min(partition.end, range.end);
      const fromStart = start !== undefined && start.hash >= partition.start && start.hash < partition.end;
      let more = true;
      if (placed) {
        more = scanPlaced(txn, table, partition.db, fromStart ? start : undefined, lower === partition.start && upper === partition.end ? undefined : { lower, upper }, (value) => page.accept(value));
      } else {
        const options = { start: fromStart ? start.bytes : hashBound(lower), startExclusive: fromStart, ...(upper < HASH_SPACE ? { end: hashBound(upper) } : {}) };
        txn.eachValue(partition.db, options, (value) => (more = page.accept(value)));
      }
      if (!more) break;
    }
    return { page, fetchUnits: fetcher?.state.units ?? 0 };
  }, 'range-read');

  ctx.pageRead?.(page.bytes);
  metered.settle(readUsage(target, page.bytes, consistent, fetchUnits));
  return page.response(readPageCapacity(capacityMode, req.TableName as string, target, page.bytes, consistent, fetchUnits));
}

/**
 * One partition of a partition-id table (codec/item-key.ts placedKey), whose items are in id order,
 * not hash order: the whole partition, or only the partition keys whose hash is in `segment` (a
 * parallel-scan segment that covers part of it), after `start` (an ExclusiveStartKey in this
 * partition). A start whose partition key has no id names no item and has no place in id order:
 * the walk goes on with the next partition. False when `accept` stopped the walk.
 */
function scanPlaced(
  txn: ReadTxn,
  table: Table,
  db: Database,
  start: EncodedKey | undefined,
  segment: { lower: number; upper: number } | undefined,
  accept: (value: Uint8Array) => boolean,
): boolean {
  let options: CursorOptions = {};
  if (start !== undefined) {
    const stored = table.storedKeyIn(txn, start);
    if (stored === undefined) return true;
    options = { start: stored, startExclusive: true };
  }
  let more = true;
  if (segment === undefined) {
    txn.eachValue(db, options, (value) => (more = accept(value)));
    return more;
  }
  // Only the segment's partition keys, found in the dictionary (one entry per partition key), each
  // walked by its id prefix: the other segments' items are never read.
  const from = options.start === undefined ? 0 : readHash(options.start, 0);
  table.ids!.eachPartitionKey(txn, from, (id, hash) => {
    if (hash < segment.lower || hash >= segment.upper) return true;
    const walk: CursorOptions = { ...(id === from && options.start !== undefined ? options : { start: placedPrefix(id) }), end: placedPrefix(id + 1) };
    txn.eachValue(db, walk, (value) => (more = accept(value)));
    return more;
  });
  return more;
}

function readSegments(req: Record<string, unknown>): { segment: number; total: number } | undefined {
  const segment = optionalInteger(req.Segment, 'Segment');
  const total = optionalInteger(req.TotalSegments, 'TotalSegments');
  const errors = new ConstraintErrors();
  if (segment !== undefined && segment < 0) errors.add(segment, 'segment', 'Member must have value greater than or equal to 0');
  if (segment !== undefined && segment > MAX_TOTAL_SEGMENTS - 1) errors.add(segment, 'segment', `Member must have value less than or equal to ${MAX_TOTAL_SEGMENTS - 1}`);
  if (total !== undefined && total < 1) errors.add(total, 'totalSegments', 'Member must have value greater than or equal to 1');
  if (total !== undefined && total > MAX_TOTAL_SEGMENTS) errors.add(total, 'totalSegments', `Member must have value less than or equal to ${MAX_TOTAL_SEGMENTS}`);
  errors.throwIfAny();
  if (segment !== undefined && total === undefined) {
    throw new ValidationException('The TotalSegments parameter is required but was not present in the request when Segment parameter is present');
  }
  if (total !== undefined && segment === undefined) {
    throw new ValidationException('The Segment parameter is required but was not present in the request when parameter TotalSegments is present');
  }
  if (segment === undefined || total === undefined) return undefined;
  if (segment >= total) {
    throw new ValidationException(`The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: ${segment} is not less than TotalSegments: ${total}`);
  }
  return { segment, total };
}
