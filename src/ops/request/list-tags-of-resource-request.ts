/**
 * ListTagsOfResource's request, parsed once (issue 46): the schema pass (schema/) checks the
 * model constraints, then the ResourceArn (resource-arn.ts). NextToken is accepted and unused: a
 * table has at most 50 tags, one page.
 */
import { tableNameOfArn } from './resource-arn.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type ListTagsOfResourceRequest = {
  /** The ARN as given, for the refusal of a table that does not exist. */
  readonly resourceArn: string;
  /** The table the ARN names. */
  readonly tableName: string;
};

export function parseListTagsOfResourceRequest(request: unknown): ListTagsOfResourceRequest {
  const req = checkRequest(REQUEST_SCHEMAS.ListTagsOfResource, request);
  const resourceArn = req.ResourceArn as string; // a string: checked by the schema pass
  return Object.freeze({ resourceArn, tableName: tableNameOfArn(resourceArn, 'ListTagsOfResource') });
}
