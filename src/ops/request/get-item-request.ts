/**
 * GetItem's request, parsed once (issue 46): the schema pass checks the model constraints
 * (schema/), then the members the operation uses are read here, in their fixed order, into a
 * frozen, typed request. getItem reads nothing else of the raw request.
 * Key stays in its wire form: converting it needs the table's key schema, so getItem converts it
 * once the table is resolved; the expression members go whole to expr/'s compileRequest, which
 * runs after the table lookup, as DynamoDB reports an unknown table first.
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { hasExpressionMembers } from '../../expr/index.js';
import type { WireItem } from '../../model/attribute-value.js';
import { readConsistentRead } from './item-request.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type GetItemRequest = {
  /** TableName as the request spelt it (a name or an ARN), for ConsumedCapacity. */
  readonly requestedName: string;
  /** The table's name (an ARN resolved). */
  readonly tableName: string;
  /** The wire Key, its shape checked by the schema pass. */
  readonly key: WireItem;
  readonly consistent: boolean;
  readonly capacityMode: ReturnConsumedCapacity;
  /** Whether the request has a member expr/'s compileRequest reads (a projection); without one, the GetItem is plain (plain-get.ts). */
  readonly hasExpressionMembers: boolean;
  /** The checked request, for expr/'s compileRequest only (projection and legacy members). */
  readonly expressionMembers: Readonly<Record<string, unknown>>;
};

export function parseGetItemRequest(request: unknown): GetItemRequest {
  const req = checkRequest(REQUEST_SCHEMAS.GetItem, request);
  const tableName = readTableName(req.TableName);
  return Object.freeze({
    requestedName: req.TableName as string,
    tableName,
    key: req.Key as WireItem, // checked by the schema pass (an attribute map)
    consistent: readConsistentRead(req.ConsistentRead),
    capacityMode: readReturnConsumedCapacity(req.ReturnConsumedCapacity),
    hasExpressionMembers: hasExpressionMembers(req, 'GetItem'),
    expressionMembers: req,
  });
}
