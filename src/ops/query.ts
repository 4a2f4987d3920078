/**
 * Query: one partition, one cursor from the first key the condition admits, forward or backward,
 * stopping as soon as the condition ends, Limit items were evaluated, or 1 MB was read (spec §6.3).
 */
import { readUnits } from '../capacity/units.js';
import { consumedCapacity, readReturnConsumedCapacity } from '../capacity/consumed-capacity.js';
import { toWireItem } from '../model/binary.js';
import { SerializationException, ValidationException } from '../model/errors.js';
import { analyzeKeyCondition, compileExpressions, conditionAttributeNames } from '../expr/index.js';
import { compareBytes } from '../codec/key-bytes.js';
import type { CursorOptions } from '../storage/range-cursor.js';
import type { EngineContext } from './engine-context.js';
import { expressionRequest } from './expression-request.js';
import { readConsistentRead } from './item-request.js';
import { queryBounds, type KeyBounds } from './query-range.js';
import { PageCollector } from './read-page.js';
import { checkIndexName, readExclusiveStartKey, readLimitAndSelect } from './read-request.js';
import { requestObject } from './request-checks.js';
import { readTableName } from './table-name.js';

export function query(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const tableName = readTableName(req.TableName);
  const { limit, select } = readLimitAndSelect(req, 'Query');
  const consistent = readConsistentRead(req.ConsistentRead);
  const forward = readForward(req.ScanIndexForward);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  if (req.KeyConditionExpression === undefined && req.KeyConditions === undefined) {
    throw new ValidationException('Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.');
  }
  const table = ctx.catalog.require(tableName);
  checkIndexName(table, req.IndexName);
  const compiled = compileExpressions(expressionRequest(req, ['KeyConditionExpression', 'FilterExpression', 'ProjectionExpression'], 'Query'));
  const range = analyzeKeyCondition(compiled.keyCondition!, table.keySchema);
  if (compiled.filter) {
    for (const name of conditionAttributeNames(compiled.filter)) {
      if (table.keyNames.includes(name)) {
        throw new ValidationException(`Filter Expression can only contain non-primary key attributes: Primary key attribute: ${name}`);
      }
    }
  }
  const bounds = queryBounds(range);
  const startKey = readExclusiveStartKey(table, req.ExclusiveStartKey);
  const start = startKey ? table.keyOf(startKey).bytes : undefined;
  if (start && !withinPartition(start, bounds)) {
    throw new ValidationException('The provided starting key is outside query boundaries based on provided conditions');
  }
  const page = new PageCollector({ limit, filter: compiled.filter, projection: compiled.projection, select, keySchema: table.keySchema });
  const partition = table.partitionOf(bounds.hash);
  ctx.store.read((txn) => {
    for (const entry of txn.cursor(partition.db, cursorOptions(bounds, forward, start))) {
      if (!page.accept(entry.value)) return;
    }
  });

  const capacity = consumedCapacity(capacityMode, tableName, readUnits(page.bytes, consistent));
  return {
    ...(select !== 'COUNT' ? { Items: page.items } : {}),
    Count: page.count,
    ScannedCount: page.scannedCount,
    ...(page.lastEvaluatedKey ? { LastEvaluatedKey: toWireItem(page.lastEvaluatedKey) } : {}),
    ...(capacity ? { ConsumedCapacity: capacity } : {}),
  };
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

/**
 * Cursor bounds for one direction. An ExclusiveStartKey inside the range moves the starting bound
 * to just past it; one beyond the far bound leaves an empty walk.
 */
function cursorOptions(b: KeyBounds, forward: boolean, start: Uint8Array | undefined): CursorOptions {
  if (forward) {
    const useStart = start !== undefined && compareBytes(start, b.lower) >= 0;
    return {
      start: useStart ? start : b.lower,
      startExclusive: useStart ? true : !b.lowerInclusive,
      end: b.upper,
      endInclusive: b.upperInclusive,
    };
  }
  const useStart = start !== undefined && compareBytes(start, b.upper) <= 0;
  return {
    reverse: true,
    start: useStart ? start : b.upper,
    startExclusive: useStart ? true : !b.upperInclusive,
    end: b.lower,
    endInclusive: b.lowerInclusive,
  };
}
