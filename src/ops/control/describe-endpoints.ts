/**
 * DescribeEndpoints: where to send this account's requests, and for how long a client may cache
 * the answer (DynamoDB answers one endpoint, cached 1,440 minutes). The embedded store has no
 * address of its own and answers `localhost`; the HTTP server answers the Host its client used
 * (server/dynamo-request.ts), which is what an SDK with endpoint discovery must call next.
 */
import type { EngineContext } from '../engine-context.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export const ENDPOINT_CACHE_MINUTES = 1440;

export function describeEndpoints(_ctx: EngineContext, request: unknown) {
  checkRequest(REQUEST_SCHEMAS.DescribeEndpoints, request);
  return { Endpoints: [{ Address: 'localhost', CachePeriodInMinutes: ENDPOINT_CACHE_MINUTES }] };
}
