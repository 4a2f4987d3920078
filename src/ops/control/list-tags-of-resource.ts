/**
 * ListTagsOfResource: a table's tags, `{ Tags: [{ Key, Value }, ...] }` in the order they were
 * first added (a table has at most 50, so one page: no NextToken). An ARN of a table that does not
 * exist is refused with AccessDeniedException (resource-arn.ts).
 */
import type { EngineContext } from '../engine-context.js';
import { parseListTagsOfResourceRequest } from '../request/list-tags-of-resource-request.js';
import { accessDenied } from '../request/resource-arn.js';

export function listTagsOfResource(ctx: EngineContext, request: unknown) {
  const { resourceArn, tableName } = parseListTagsOfResourceRequest(request);
  const table = ctx.catalog.find(tableName);
  // Not TagResource's ResourceNotFoundException: the service answers a missing table as IAM does.
  if (!table) throw accessDenied('ListTagsOfResource', resourceArn);
  return { Tags: table.def.Tags.map((t) => ({ Key: t.Key, Value: t.Value })) };
}
