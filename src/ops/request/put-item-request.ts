/**
 * PutItem's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the members PutItem uses are read, in their fixed order, into a frozen, typed
 * request with its Item converted. putItem reads nothing else of the raw request.
 *
 * Without ExpressionAttributeValues the Item is the only attribute map, and it is shape-checked by
 * its one conversion instead of a separate walk first (checkRequestDeferringItemScans): every
 * error raised until it is converted rescans it, so a shape error in it still wins over every
 * other error. With ExpressionAttributeValues, whose conversion comes later (expr/), both maps are
 * scanned up front.
 */
import type { Item } from '../../model/attribute-value.js';
import { readItemParam } from './item-request.js';
import { checkRequest, checkRequestDeferringItemScans } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { readItemWriteOptions, type ItemWriteOptions } from './item-write-options.js';

export type PutItemRequest = ItemWriteOptions & {
  /** The Item, validated and converted to internal values. */
  readonly item: Item;
  /** The checked request, for expr/'s compileRequest only (condition and legacy members). */
  readonly expressionMembers: Readonly<Record<string, unknown>>;
};

export function parsePutItemRequest(request: unknown): PutItemRequest {
  if (hasExpressionValues(request)) return readMembers(checkRequest(REQUEST_SCHEMAS.PutItem, request));
  const { req, shapeErrorFirst } = checkRequestDeferringItemScans(REQUEST_SCHEMAS.PutItem, request);
  try {
    return readMembers(req);
  } catch (e) {
    throw shapeErrorFirst(e);
  }
}

function readMembers(req: Record<string, unknown>): PutItemRequest {
  return Object.freeze({
    ...readItemWriteOptions(req, ['NONE', 'ALL_OLD']),
    item: readItemParam(req.Item),
    expressionMembers: req,
  });
}

/** A peek before the schema pass, to choose how the Item is shape-checked (see above). */
function hasExpressionValues(request: unknown): boolean {
  const values = (request as { ExpressionAttributeValues?: unknown } | null | undefined)?.ExpressionAttributeValues;
  return values !== undefined && values !== null;
}
