/**
 * BatchGetItem's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then RequestItems is read, table by table in the request's order, with the checks
 * DynamoDB makes of the request as a whole (each table's key count, the total, expressions not
 * mixed with legacy projections across tables) into a frozen, typed request. batchGetItem reads
 * nothing else of the raw request.
 * Keys stay in wire form (converted once each table is resolved, as DynamoDB reports an unknown
 * table first); each table's projection members, read into a typed value, go to expr/'s
 * compileRequest after its table.
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
  /** For expr/'s compileRequest, which judges them (null included) after the table is resolved. */
  readonly projection: BatchGetProjection;
  /**
   * The table's KeysAndAttributes but its Keys, each member given (not null): echoed with the
   * keys not read in UnprocessedKeys (DynamoDB's contract: retry by passing it back).
   */
  readonly echo: Readonly<Omit<KeysAndAttributes, 'Keys'>>;
};

/** A table's projection members as given, their types checked by the schema pass. */
export type BatchGetProjection = {
  readonly ProjectionExpression?: string | null;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string | null>> | null;
  readonly AttributesToGet?: readonly (string | null)[];
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
    const consistent = readConsistentRead(block.ConsistentRead);
    const projection = readProjectionMembers(block);
    return Object.freeze({
      requestedName: name,
      tableName,
      keys: Object.freeze(keys as WireItem[]), // each an attribute map: checked by the schema pass
      consistent,
      projection,
      echo: echoOf(block.ConsistentRead !== undefined ? consistent : undefined, projection),
    });
  });
  return Object.freeze({ capacityMode, tables: Object.freeze(tables) });
}

/** The projection members of a KeysAndAttributes, each as given (the schema pass checked their types). */
function readProjectionMembers(block: Record<string, unknown>): BatchGetProjection {
  const { ProjectionExpression, ExpressionAttributeNames, AttributesToGet } = block as BatchGetProjection;
  return Object.freeze({
    ...(ProjectionExpression !== undefined ? { ProjectionExpression } : {}),
    ...(ExpressionAttributeNames !== undefined ? { ExpressionAttributeNames: ExpressionAttributeNames && Object.freeze({ ...ExpressionAttributeNames }) } : {}),
    ...(AttributesToGet !== undefined ? { AttributesToGet: Object.freeze([...AttributesToGet]) } : {}),
  });
}

/**
 * What UnprocessedKeys echoes besides the keys: the members given, not null. It is echoed only
 * once compileRequest has accepted the projection, which refuses a null name or attribute, so
 * leaving those out changes nothing of what is echoed.
 */
function echoOf(consistent: boolean | undefined, p: BatchGetProjection): Readonly<Omit<KeysAndAttributes, 'Keys'>> {
  const names = p.ExpressionAttributeNames;
  return Object.freeze({
    ...(consistent !== undefined ? { ConsistentRead: consistent } : {}),
    ...(typeof p.ProjectionExpression === 'string' ? { ProjectionExpression: p.ProjectionExpression } : {}),
    ...(names ? { ExpressionAttributeNames: Object.fromEntries(Object.entries(names).filter((e): e is [string, string] => e[1] !== null)) } : {}),
    ...(p.AttributesToGet ? { AttributesToGet: p.AttributesToGet.filter((a): a is string => a !== null) } : {}),
  });
}
