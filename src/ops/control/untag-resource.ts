/**
 * UntagResource: removes the given keys from a table's tags; a key the table does not have is
 * no error. Checks in order: request shape -> ResourceArn -> at least one key -> the table.
 * Returns `{}`.
 */
import { ValidationException } from '../../model/errors.js';
import type { EngineContext } from '../engine-context.js';
import { requireTableOfArn, tableNameOfArn } from '../request/resource-arn.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';
import { saveTags } from './tag-resource.js';

export function untagResource(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.UntagResource, request);
  const keys = new Set(req.TagKeys as string[]);
  const arn = req.ResourceArn as string;
  const name = tableNameOfArn(arn, 'UntagResource');
  if (keys.size === 0) throw new ValidationException('Atleast one Tag Key needs to be provided as Input.');
  const table = requireTableOfArn(ctx, name, arn);
  const kept = table.def.Tags.filter((t) => !keys.has(t.Key));
  if (kept.length !== table.def.Tags.length) saveTags(ctx, table, kept);
  return {};
}
