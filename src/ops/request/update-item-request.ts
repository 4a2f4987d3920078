/**
 * UpdateItem's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the members UpdateItem uses are read, in their fixed order, into a frozen,
 * typed request. updateItem reads nothing else of the raw request.
 * Key stays in its wire form (converted once the table is resolved, as DynamoDB reports an unknown
 * table first); the update and condition members go whole to expr/'s compileRequest, after the key.
 */
import type { WireItem } from '../../model/attribute-value.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { readItemWriteOptions, type ItemWriteOptions } from './item-write-options.js';

export type UpdateItemRequest = ItemWriteOptions & {
  /** The wire Key, its shape checked by the schema pass. */
  readonly key: WireItem;
  /** An UpdateExpression was given (not AttributeUpdates): its result is held to the index key rules. */
  readonly byExpression: boolean;
  /** The checked request, for expr/'s compileRequest only (update, condition and legacy members). */
  readonly expressionMembers: Readonly<Record<string, unknown>>;
};

export function parseUpdateItemRequest(request: unknown): UpdateItemRequest {
  const req = checkRequest(REQUEST_SCHEMAS.UpdateItem, request);
  return Object.freeze({
    ...readItemWriteOptions(req, ['NONE', 'ALL_OLD', 'UPDATED_OLD', 'ALL_NEW', 'UPDATED_NEW']),
    key: req.Key as WireItem, // checked by the schema pass (an attribute map, not null)
    byExpression: req.UpdateExpression !== undefined,
    expressionMembers: req,
  });
}
