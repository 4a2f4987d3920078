/**
 * TagResource's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the rules the request alone decides, in DynamoDB's order: the ResourceArn
 * (resource-arn.ts) -> at least one tag -> no reserved `aws:` key. What needs the table (it
 * exists, at most MAX_TAGS_PER_RESOURCE tags afterwards) is the operation's.
 */
import { INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { tableNameOfArn } from './resource-arn.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type Tag = { readonly Key: string; readonly Value: string };

export type TagResourceRequest = {
  /** The ARN as given, for the table's not-found message. */
  readonly resourceArn: string;
  /** The table the ARN names. */
  readonly tableName: string;
  /** At least one, none reserved, in request order. */
  readonly tags: readonly Tag[];
};

export const RESERVED_TAG_PREFIX = 'aws:';

export function parseTagResourceRequest(request: unknown): TagResourceRequest {
  const req = checkRequest(REQUEST_SCHEMAS.TagResource, request);
  // The schema pass has checked both: ResourceArn a string, Tags a list of non-null Tag structures with string members.
  const resourceArn = req.ResourceArn as string;
  const tags = (req.Tags as readonly Tag[]).map((t) => Object.freeze({ Key: t.Key, Value: t.Value }));
  const tableName = tableNameOfArn(resourceArn, 'TagResource');
  if (tags.length === 0) throw new ValidationException('Atleast one Tag needs to be provided as Input.');
  for (const tag of tags) {
    if (tag.Key.startsWith(RESERVED_TAG_PREFIX)) throw new ValidationException(`${INVALID_PARAMETERS}Tag keys beginning with ${RESERVED_TAG_PREFIX} are reserved: ${tag.Key}`);
  }
  return Object.freeze({ resourceArn, tableName, tags: Object.freeze(tags) });
}
