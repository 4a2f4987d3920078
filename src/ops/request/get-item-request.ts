/**
 * GetItem's request, parsed once (issue 46): the schema pass checks the model constraints
 * (schema/), then the members the operation uses are read here, in their fixed order, into a
 * frozen, typed request. getItem reads nothing else of the raw request.
 * Key stays in its wire form: converting it needs the table's key schema, so getItem converts it
 * once the table is resolved; the expression members go whole to expr/'s compileRequest, which
 * runs after the table lookup, as DynamoDB reports an unknown table first.
 *
 * The common request (TableName, Key, and at most ConsistentRead and ReturnConsumedCapacity, each
 * of a value the schema pass accepts as is) is parsed in one walk of its members that leaves the
 * Key's shape scan to getItem (`keyShape: 'deferred'`): a plain Key (plain-get.ts) needs none, as
 * PutItem's Item is checked by its own conversion. Any other request, or a member of another
 * value, takes the schema pass. Both give the same answer: the walk is only ever a shortcut.
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { hasExpressionMembers } from '../../expr/index.js';
import type { WireItem } from '../../model/attribute-value.js';
import { scanMap } from '../../model/wire-shape.js';
import { readConsistentRead } from './item-request.js';
import { requestObject } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { passesDataPlaneTableName } from './schema/passes-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type GetItemRequest = {
  /** TableName as the request spelt it (a name or an ARN), for ConsumedCapacity. */
  readonly requestedName: string;
  /** The table's name (an ARN resolved). */
  readonly tableName: string;
  /** The wire Key: an object; its members' shape checked unless `keyShape` is 'deferred' (then use checkedKey before converting it). */
  readonly key: WireItem;
  /** 'deferred': the schema pass's scan of the Key's shape is still to run (checkedKey), before any other error is reported. */
  readonly keyShape: 'checked' | 'deferred';
  readonly consistent: boolean;
  readonly capacityMode: ReturnConsumedCapacity;
  /** Whether the request has a member expr/'s compileRequest reads (a projection); without one, the GetItem is plain (plain-get.ts). */
  readonly hasExpressionMembers: boolean;
  /** The checked request, for expr/'s compileRequest only (projection and legacy members). */
  readonly expressionMembers: Readonly<Record<string, unknown>>;
};

export function parseGetItemRequest(request: unknown): GetItemRequest {
  const req = requestObject(request);
  return parseCommon(req) ?? parseChecked(checkRequest(REQUEST_SCHEMAS.GetItem, req));
}

/**
 * The request's Key with its shape checked: scanned now when the parse deferred it (the
 * SerializationException the schema pass would have thrown first, before anything else).
 */
export function checkedKey(req: GetItemRequest): WireItem {
  if (req.keyShape === 'deferred') scanMap(req.key, 0);
  return req.key;
}

function parseChecked(req: Record<string, unknown>): GetItemRequest {
  return Object.freeze({
    requestedName: req.TableName as string,
    tableName: readTableName(req.TableName),
    key: req.Key as WireItem, // checked by the schema pass (an attribute map)
    keyShape: 'checked',
    consistent: readConsistentRead(req.ConsistentRead),
    capacityMode: readReturnConsumedCapacity(req.ReturnConsumedCapacity),
    hasExpressionMembers: hasExpressionMembers(req, 'GetItem'),
    expressionMembers: req,
  });
}

/** The common request's parse (see the header), or undefined for the schema pass to take it. */
function parseCommon(req: Record<string, unknown>): GetItemRequest | undefined {
  let name: string | undefined;
  let key: object | undefined;
  let consistent = false;
  let capacityMode: ReturnConsumedCapacity = 'NONE';
  // for-in sees inherited members too, as the schema pass reads them.
  for (const member in req) {
    const value = req[member];
    if (member === 'Key') {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return undefined;
      key = value;
    } else if (member === 'TableName') {
      if (typeof value !== 'string' || !passesDataPlaneTableName(value)) return undefined;
      name = value;
    } else if (member === 'ConsistentRead') {
      if (typeof value !== 'boolean') return undefined;
      consistent = value;
    } else if (member === 'ReturnConsumedCapacity') {
      if (value !== 'NONE' && value !== 'TOTAL' && value !== 'INDEXES') return undefined;
      capacityMode = value;
    } else return undefined;
  }
  if (name === undefined || key === undefined) return undefined;
  return Object.freeze({
    requestedName: name,
    tableName: readTableName(name),
    key: key as WireItem,
    keyShape: 'deferred',
    consistent,
    capacityMode,
    hasExpressionMembers: false,
    expressionMembers: req,
  });
}
