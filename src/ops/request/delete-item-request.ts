/**
 * DeleteItem's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the members DeleteItem uses are read, in their fixed order, into a frozen,
 * typed request. deleteItem reads nothing else of the raw request.
 * Key stays in its wire form: converting it needs the table's key schema, and DynamoDB reports an
 * unknown table before a key that does not match it; the condition members go whole to expr/'s
 * compileRequest, after the key, as before.
 */
import type { WireItem } from '../../model/attribute-value.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { readItemWriteOptions, type ItemWriteOptions } from './item-write-options.js';

export type DeleteItemRequest = ItemWriteOptions & {
  /** The wire Key, its shape checked by the schema pass. */
  readonly key: WireItem;
  /** The checked request, for expr/'s compileRequest only (condition and legacy members). */
  readonly expressionMembers: Readonly<Record<string, unknown>>;
};

export function parseDeleteItemRequest(request: unknown): DeleteItemRequest {
  const req = checkRequest(REQUEST_SCHEMAS.DeleteItem, request);
  return Object.freeze({
    ...readItemWriteOptions(req, ['NONE', 'ALL_OLD']),
    key: req.Key as WireItem, // checked by the schema pass (an attribute map, not null)
    expressionMembers: req,
  });
}
