/**
 * BatchGetItem's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then RequestItems is read, table by table in the request's order, with the checks
 * DynamoDB makes of the request as a whole (each table's key count, the total, expressions not
 * mixed with legacy projections across tables) into a frozen, typed request. batchGetItem reads
 * nothing else of the raw request.
 * Keys stay in wire form (converted once each table is resolved, as DynamoDB reports an unknown
 * table first); each table's projection members go whole to expr/'s compileRequest, after its table.
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import type { KeysAndAttributes } from '../../api/item-operations.js';
import { checkExpressionMixing } from '../../expr/legacy-mixing.js';
import type { WireItem } from '../../model/attribute-value.js';
import { SerializationException, ValidationException } from '../../model/errors.js';
import { MAX_BATCH_GET_KEYS } from '../../model/limits.js';
import { readConsistentRead } from './item-request.js';
import { optionalArray, optionalObject, readRequestItems } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

/** One table's part of the batch. */
export type BatchGetTable = {
  /** The RequestItems key as the request spelt it (a name or an ARN): responses are keyed by it. */
  readonly requestedName: string;
  /** The table's name (an ARN resolved). */
  readonly tableName: string;
  /** The wire keys, their shapes checked by the schema pass. */
  readonly keys: readonly WireItem[];
  readonly consistent: boolean;
  /**
   * The table's KeysAndAttributes as given, checked by the schema pass: compiled by expr/ for its
   * projection, and echoed in UnprocessedKeys (DynamoDB's contract: retry by passing it back).
   */
  readonly block: Readonly<KeysAndAttributes>;
};

export type BatchGetItemRequest = {
  readonly capacityMode: ReturnConsumedCapacity;
  readonly tables: readonly BatchGetTable[];
};

export function parseBatchGetItemRequest(request: unknown): BatchGetItemRequest {
  const req = checkRequest(REQUEST_SCHEMAS.BatchGetItem, request);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const requestItems = readRequestItems(req.RequestItems, 'BatchGetItem');
  let total = 0;
  const plans = Object.entries(requestItems).map(([name, raw]) => {
    const tableName = readTableName(name, 'requestItems');
    const block = optionalObject(raw, `RequestItems.${name}`) ?? {};
    const keys = optionalArray(block.Keys, `RequestItems.${name}.Keys`) ?? [];
    if (keys.length < 1 || keys.length > MAX_BATCH_GET_KEYS) {
      throw new ValidationException(
        `1 validation error detected: Value at 'RequestItems.${name}.member.Keys' failed to satisfy constraint: Member must have length ${keys.length < 1 ? 'greater than or equal to 1' : `less than or equal to ${MAX_BATCH_GET_KEYS}`}`,
      );
    }
    total += keys.length;
    return { tableName, name, block, keys };
  });
  if (total > MAX_BATCH_GET_KEYS) throw new ValidationException('Too many items requested for the BatchGetItem call');
  // The service refuses expression and legacy projections across the whole request, even when
  // each table's block is consistent on its own.
  const present = (member: string) => plans.some(({ block }) => block[member] !== undefined && block[member] !== null);
  checkExpressionMixing(
    { ProjectionExpression: present('ProjectionExpression') || undefined, AttributesToGet: present('AttributesToGet') || undefined },
    ['ProjectionExpression'],
    ['AttributesToGet'],
  );
  const tables = plans.map(({ tableName, name, block, keys }): BatchGetTable => {
    if (block.AttributesToGet !== undefined && !Array.isArray(block.AttributesToGet)) {
      throw new SerializationException('Unexpected value type for AttributesToGet: expected a list');
    }
    return Object.freeze({
      requestedName: name,
      tableName,
      keys: keys as WireItem[], // each an attribute map: checked by the schema pass
      consistent: readConsistentRead(block.ConsistentRead),
      block: block as KeysAndAttributes,
    });
  });
  return Object.freeze({ capacityMode, tables: Object.freeze(tables) });
}
