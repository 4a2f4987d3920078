/**
 * UntagResource: removes the given keys from a table's tags; a key the table does not have is
 * no error. Checks in order: the request (untag-resource-request.ts: shape, ResourceArn, at least
 * one key) -> the table. Returns `{}`.
 */
import type { EngineContext } from '../engine-context.js';
import { requireTableOfArn } from '../request/resource-arn.js';
import { parseUntagResourceRequest } from '../request/untag-resource-request.js';
import { saveTags } from './tag-resource.js';

export function untagResource(ctx: EngineContext, request: unknown) {
  const { resourceArn, tableName, tagKeys } = parseUntagResourceRequest(request);
  const table = requireTableOfArn(ctx, tableName, resourceArn);
  const kept = table.def.Tags.filter((t) => !tagKeys.has(t.Key));
  if (kept.length !== table.def.Tags.length) saveTags(ctx, table, kept);
  return {};
}
