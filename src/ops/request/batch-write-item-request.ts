/**
 * BatchWriteItem's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then RequestItems is read, table by table in the request's order, with the checks
 * DynamoDB makes of the batch as a whole (each table's request count, the table names, the
 * total), into a frozen, typed request. batchWriteItem reads nothing else of the raw request.
 *
 * Items and keys stay in wire form: converting them needs each table's key schema, and DynamoDB
 * answers a batch in table order, an unknown table before the requests under it. A WriteRequest
 * that is refused on its own (neither or both of PutRequest and DeleteRequest) is kept as its
 * error, so the operation reports it at the same place in that order.
 * Items are shape-checked by their conversion, not by a second walk first
 * (checkRequestDeferringItemScans): until every one is converted, an error goes through
 * `shapeErrorFirst`, so a shape error anywhere in the batch wins.
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import type { WriteRequest } from '../../api/item-operations.js';
import type { WireItem } from '../../model/attribute-value.js';
import { EdgetableError, ValidationException } from '../../model/errors.js';
import { MAX_BATCH_WRITE_REQUESTS } from '../../model/limits.js';
import { readReturnItemCollectionMetrics } from './item-request.js';
import { ConstraintErrors, optionalObject, readRequestItems } from './request-checks.js';
import { MAP_KEYS_CONSTRAINT, hasBadTableKey, javaRequestItems } from './request-item-tables.js';
import { readTableName } from './table-name.js';
import { checkRequestDeferringItemScans } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

/** One WriteRequest: its wire item or key, or the error it is refused with. */
export type BatchWrite = (
  | { readonly kind: 'put'; readonly item: WireItem }
  | { readonly kind: 'delete'; readonly key: WireItem }
  | { readonly kind: 'refused'; readonly error: EdgetableError }
) & {
  /** As given, checked by the schema pass: echoed in UnprocessedItems (retried by passing it back). */
  readonly source: WriteRequest;
};

/** One table's part of the batch. */
export type BatchWriteTable = {
  /** The RequestItems key as the request spelt it (a name or an ARN). */
  readonly requestedName: string;
  /** The table's name (an ARN resolved). */
  readonly tableName: string;
  readonly writes: readonly BatchWrite[];
};

export type BatchWriteItemRequest = {
  readonly capacityMode: ReturnConsumedCapacity;
  readonly collectionsAsked: boolean;
  readonly tables: readonly BatchWriteTable[];
  /**
   * Until every item is converted, each error goes through this (see above): it throws the
   * batch's first shape error, if any, else returns the error to be thrown.
   */
  readonly shapeErrorFirst: (error: unknown) => unknown;
};

export function parseBatchWriteItemRequest(request: unknown): BatchWriteItemRequest {
  const { req, shapeErrorFirst } = checkRequestDeferringItemScans(REQUEST_SCHEMAS.BatchWriteItem, request);
  try {
    return Object.freeze({ ...readMembers(req), shapeErrorFirst });
  } catch (e) {
    throw shapeErrorFirst(e);
  }
}

function readMembers(req: Record<string, unknown>): Omit<BatchWriteItemRequest, 'shapeErrorFirst'> {
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const collectionsAsked = readReturnItemCollectionMetrics(req.ReturnItemCollectionMetrics);
  const requestItems = readRequestItems(req.RequestItems, 'BatchWriteItem');
  const entries = Object.entries(requestItems);
  // Coral's constraint is per table: each list 1..25 requests. Lists that each keep it but add up
  // to more than 25 pass Coral and are refused by the service itself, as BatchGetItem's are.
  let total = 0;
  let listOutOfRange = false;
  for (const [, list] of entries) {
    if (!Array.isArray(list)) throw new ValidationException('Unexpected value type for RequestItems: expected a list of WriteRequest');
    total += list.length;
    if (list.length < 1 || list.length > MAX_BATCH_WRITE_REQUESTS) listOutOfRange = true;
  }
  // Both are constraints on the one member, each shown with the map in Java's toString form.
  const errors = new ConstraintErrors();
  if (hasBadTableKey(requestItems)) errors.addShown(javaRequestItems(requestItems), 'requestItems', MAP_KEYS_CONSTRAINT);
  if (listOutOfRange) {
    errors.addShown(
      javaRequestItems(requestItems),
      'requestItems',
      `Map value must satisfy constraint: [Member must have length less than or equal to ${MAX_BATCH_WRITE_REQUESTS}, Member must have length greater than or equal to 1]`,
    );
  }
  errors.throwIfAny();
  if (total > MAX_BATCH_WRITE_REQUESTS) throw new ValidationException('Too many items requested for the BatchWriteItem call');
  const tables = entries.map(([name, list]): BatchWriteTable => Object.freeze({
    requestedName: name,
    // Cannot fail once the keys have passed the map-keys constraint above.
    tableName: readTableName(name, 'requestItems'),
    writes: Object.freeze((list as unknown[]).map(readWrite)),
  }));
  return { capacityMode, collectionsAsked, tables: Object.freeze(tables) };
}

function readWrite(raw: unknown): BatchWrite {
  const source = raw as WriteRequest;
  try {
    const wr = optionalObject(raw, 'WriteRequest') ?? {};
    const put = optionalObject(wr.PutRequest, 'PutRequest');
    const del = optionalObject(wr.DeleteRequest, 'DeleteRequest');
    if ((put ? 1 : 0) + (del ? 1 : 0) !== 1) {
      throw new ValidationException('A WriteRequest must contain exactly one of PutRequest or DeleteRequest');
    }
    // Item and Key are not null: checked by the schema pass (their shapes by their conversion).
    if (put) return Object.freeze({ kind: 'put', item: put.Item as WireItem, source });
    return Object.freeze({ kind: 'delete', key: del!.Key as WireItem, source });
  } catch (error) {
    if (!(error instanceof EdgetableError)) throw error;
    return Object.freeze({ kind: 'refused', error, source });
  }
}
