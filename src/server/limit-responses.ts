/**
 * The answers of the request limits (request-limits.ts), in DynamoDB's shape so that clients and
 * the AWS SDKs read them as the service's own: a body over the server's in-flight budget is a
 * ThrottlingException (400, retried by the SDKs with backoff), a connection past the cap a
 * ServiceUnavailable (503, retried too). A body over the per-request limit is dynamo-request.ts's
 * 413.
 */
import { namedErrorResponse } from './error-types.js';
import { jsonResponse, JSON_CONTENT_TYPE, type WireResponse } from './wire-response.js';

export function bodyBudgetExceededResponse(maxBodyBytesInFlight: number): WireResponse {
  const r = namedErrorResponse(
    'ThrottlingException',
    `The server is receiving too many request bodies at once (at most ${maxBodyBytesInFlight} bytes in flight); retry later`,
  );
  return jsonResponse(r.statusCode, r.body, JSON_CONTENT_TYPE);
}

/** A whole HTTP/1.1 response, status line to body, for a connection refused at accept. */
export function connectionsFullResponse(maxConnections: number): string {
  const r = namedErrorResponse('ServiceUnavailable', `The server has ${maxConnections} open connections, each with a request in progress; retry later`);
  const response = jsonResponse(r.statusCode, r.body, JSON_CONTENT_TYPE);
  const head = [`HTTP/1.1 ${response.statusCode} Service Unavailable`, ...Object.entries(response.headers).map(([k, v]) => `${k}: ${v}`), 'connection: close'];
  return `${head.join('\r\n')}\r\n\r\n${response.body.toString('utf8')}`;
}
