/**
 * Scan: parses the request once (request/scan-request.ts), then walks the table's partitions in
 * hash order (as DynamoDB does). A parallel-scan segment is a hash range,
 * floor(hash * TotalSegments / 2^32) = Segment, so one partition key's items always fall in one
 * segment.
 */
import { baseFetcher, checkGlobalProjection, needsFetch } from './index-fetch.js';
import { readPageCapacity } from './read-capacity.js';
import { readStartKey, resolveReadTarget } from './read-target.js';
import { ValidationException } from '../../model/errors.js';
import { HASH_SPACE, segmentHashRange } from '../../partition/partition-map.js';
import { hashBound, placedPrefix, readHash, type EncodedKey } from '../../codec/item-key.js';
import type { CursorOptions } from '../../storage/range-cursor.js';
import type { Database } from '../../storage/database.js';
import type { ReadTxn } from '../../storage/txn.js';
import type { Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { PageCollector } from './read-page.js';
import { readEstimate, readUsage, reserve } from '../write/throttle-guard.js';
import { hiddenTest } from '../../ttl/expiry.js';
import { parseScanRequest } from '../request/scan-request.js';

export function scan(ctx: EngineContext, request: unknown) {
  const { requestedName, tableName, indexName, limit, select, selectAsked, consistent, capacityMode, segment, compiled, exclusiveStartKey } = parseScanRequest(request);
  const { filter, projection } = compiled;
  const table = ctx.catalog.require(tableName);
  const target = resolveReadTarget(table, indexName, consistent, selectAsked);
  const startKey = readStartKey(target, exclusiveStartKey, 'older');
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
  return page.response(readPageCapacity(capacityMode, requestedName, target, page.bytes, consistent, fetchUnits));
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
