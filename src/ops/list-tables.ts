/** ListTables: names in ascending byte order, paged by ExclusiveStartTableName and Limit (1-100). */
import { MAX_LIST_TABLES_LIMIT } from '../model/limits.js';
import type { EngineContext } from './engine-context.js';
import { ConstraintErrors, checkName, optionalInteger } from './request-checks.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export function listTables(ctx: EngineContext, request: unknown = {}) {
  const req = checkRequest(REQUEST_SCHEMAS.ListTables, request);
  const errors = new ConstraintErrors();
  const limit = optionalInteger(req.Limit, 'Limit');
  if (limit !== undefined && limit < 1) errors.add(limit, 'limit', 'Member must have value greater than or equal to 1');
  if (limit !== undefined && limit > MAX_LIST_TABLES_LIMIT) errors.add(limit, 'limit', `Member must have value less than or equal to ${MAX_LIST_TABLES_LIMIT}`);
  if (req.ExclusiveStartTableName !== undefined) checkName(errors, req.ExclusiveStartTableName, 'exclusiveStartTableName');
  errors.throwIfAny();
  const start = req.ExclusiveStartTableName as string | undefined;
  const startBytes = start === undefined ? undefined : Buffer.from(start);
  const names = ctx.catalog.names().filter((n) => !startBytes || Buffer.compare(Buffer.from(n), startBytes) > 0);
  const max = limit ?? MAX_LIST_TABLES_LIMIT;
  const page = names.slice(0, max);
  return {
    TableNames: page,
    ...(names.length > max ? { LastEvaluatedTableName: page[page.length - 1] } : {}),
  };
}
