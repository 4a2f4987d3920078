/**
 * The ResourceArn of the tagging operations (TagResource, UntagResource, ListTagsOfResource):
 * a DynamoDB table ARN, `arn:<partition>:dynamodb:<region>:<account>:table/<name>`. Any region
 * and account are accepted (an edge store has none of its own; TableArn reports `ddblocal` and
 * 000000000000). Failures, with DynamoDB's error classes and words:
 *   an ARN of another service            -> AccessDeniedException (IAM's wording)
 *   anything else that is not a table ARN with a legal table name
 *                                        -> ValidationException `Invalid TableArn: Invalid ResourceArn provided as input <arn>`
 *   a table ARN naming no table          -> TagResource, UntagResource: ResourceNotFoundException
 *                                           `Requested resource not found: ResourcArn: <arn> not found` (sic);
 *                                           ListTagsOfResource: AccessDeniedException (IAM's wording), as the
 *                                           service answers it (dynoxide's and floci's captures; dynalite's
 *                                           older tests show ResourceNotFoundException)
 */
import { AccessDeniedException, ResourceNotFoundException, ValidationException } from '../../model/errors.js';
import { ACCOUNT } from '../../table/table-definition.js';
import type { Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';

const TABLE_ARN = /^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d+:table\/([a-zA-Z0-9_.-]{3,255})$/;
const OTHER_SERVICE_ARN = /^arn:[^:]*:([^:]*):/;

/** The table name a ResourceArn names, or DynamoDB's error for its form. */
export function tableNameOfArn(arn: string, operation: string): string {
  const name = TABLE_ARN.exec(arn)?.[1];
  if (name !== undefined) return name;
  const service = OTHER_SERVICE_ARN.exec(arn)?.[1];
  if (service !== undefined && service !== 'dynamodb') {
    throw accessDenied(operation, arn);
  }
  throw new ValidationException(`Invalid TableArn: Invalid ResourceArn provided as input ${arn}`);
}

/** The table named by `arn` (already checked by tableNameOfArn), or ResourceNotFoundException. */
export function requireTableOfArn(ctx: EngineContext, name: string, arn: string): Table {
  const table = ctx.catalog.find(name);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: ResourcArn: ${arn} not found`);
  return table;
}

/** IAM's refusal of `operation` on `arn`, for the store's one caller (the account's root). */
export function accessDenied(operation: string, arn: string): AccessDeniedException {
  return new AccessDeniedException(`User: arn:aws:iam::${ACCOUNT}:root is not authorized to perform: dynamodb:${operation} on resource: ${arn}`);
}
