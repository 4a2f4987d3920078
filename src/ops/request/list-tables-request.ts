/**
 * ListTables' request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then its two members are read into a frozen, typed request.
 */
import { MAX_LIST_TABLES_LIMIT } from '../../model/limits.js';
import { ConstraintErrors, checkName, optionalInteger } from './request-checks.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type ListTablesRequest = {
  /** Names after this one, in byte order. */
  readonly exclusiveStartTableName: string | undefined;
  /** The page size, its default applied. */
  readonly limit: number;
};

export function parseListTablesRequest(request: unknown): ListTablesRequest {
  const req = checkRequest(REQUEST_SCHEMAS.ListTables, request);
  const errors = new ConstraintErrors();
  const limit = optionalInteger(req.Limit, 'Limit');
  if (limit !== undefined && limit < 1) errors.add(limit, 'limit', 'Member must have value greater than or equal to 1');
  if (limit !== undefined && limit > MAX_LIST_TABLES_LIMIT) errors.add(limit, 'limit', `Member must have value less than or equal to ${MAX_LIST_TABLES_LIMIT}`);
  if (req.ExclusiveStartTableName !== undefined) checkName(errors, req.ExclusiveStartTableName, 'exclusiveStartTableName');
  errors.throwIfAny();
  return Object.freeze({ exclusiveStartTableName: req.ExclusiveStartTableName as string | undefined, limit: limit ?? MAX_LIST_TABLES_LIMIT });
}
