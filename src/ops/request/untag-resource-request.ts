/**
 * UntagResource's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the ResourceArn (resource-arn.ts) -> at least one key. Whether the table
 * exists is the operation's.
 */
import { ValidationException } from '../../model/errors.js';
import { tableNameOfArn } from './resource-arn.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type UntagResourceRequest = {
  /** The ARN as given, for the table's not-found message. */
  readonly resourceArn: string;
  /** The table the ARN names. */
  readonly tableName: string;
  /** The keys to remove (at least one); a key the table does not have is no error. */
  readonly tagKeys: ReadonlySet<string>;
};

export function parseUntagResourceRequest(request: unknown): UntagResourceRequest {
  const req = checkRequest(REQUEST_SCHEMAS.UntagResource, request);
  // The schema pass has checked both: ResourceArn a string, TagKeys a list of non-null strings.
  const resourceArn = req.ResourceArn as string;
  const tagKeys: ReadonlySet<string> = new Set(req.TagKeys as readonly string[]);
  const tableName = tableNameOfArn(resourceArn, 'UntagResource');
  if (tagKeys.size === 0) throw new ValidationException('Atleast one Tag Key needs to be provided as Input.');
  return Object.freeze({ resourceArn, tableName, tagKeys });
}
