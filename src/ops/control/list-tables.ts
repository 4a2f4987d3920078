/** ListTables: names in ascending byte order, paged by ExclusiveStartTableName and Limit (1-100). */
import type { EngineContext } from '../engine-context.js';
import { parseListTablesRequest } from '../request/list-tables-request.js';

export function listTables(ctx: EngineContext, request: unknown = {}) {
  const { exclusiveStartTableName: start, limit: max } = parseListTablesRequest(request);
  const startBytes = start === undefined ? undefined : Buffer.from(start);
  const names = ctx.catalog.names().filter((n) => !startBytes || Buffer.compare(Buffer.from(n), startBytes) > 0);
  const page = names.slice(0, max);
  return {
    TableNames: page,
    ...(names.length > max ? { LastEvaluatedTableName: page[page.length - 1] } : {}),
  };
}
