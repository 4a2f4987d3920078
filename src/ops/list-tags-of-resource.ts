/**
 * ListTagsOfResource: a table's tags, `{ Tags: [{ Key, Value }, ...] }` in the order they were
 * first added (a table has at most 50, so one page: no NextToken).
 */
import type { EngineContext } from './engine-context.js';
import { requireTableOfArn, tableNameOfArn } from './resource-arn.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export function listTagsOfResource(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.ListTagsOfResource, request);
  const arn = req.ResourceArn as string;
  const table = requireTableOfArn(ctx, tableNameOfArn(arn, 'ListTagsOfResource'), arn);
  return { Tags: table.def.Tags.map((t) => ({ Key: t.Key, Value: t.Value })) };
}
