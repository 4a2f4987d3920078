/**
 * ListTagsOfResource: a table's tags, `{ Tags: [{ Key, Value }, ...] }` in the order they were
 * first added (a table has at most 50, so one page: no NextToken). An ARN of a table that does not
 * exist is refused with AccessDeniedException (resource-arn.ts).
 */
import type { EngineContext } from '../engine-context.js';
import { accessDenied, tableNameOfArn } from '../request/resource-arn.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export function listTagsOfResource(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.ListTagsOfResource, request);
  const arn = req.ResourceArn as string;
  const table = ctx.catalog.find(tableNameOfArn(arn, 'ListTagsOfResource'));
  // Not TagResource's ResourceNotFoundException: the service answers a missing table as IAM does.
  if (!table) throw accessDenied('ListTagsOfResource', arn);
  return { Tags: table.def.Tags.map((t) => ({ Key: t.Key, Value: t.Value })) };
}
