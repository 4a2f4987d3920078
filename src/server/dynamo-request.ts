/**
 * The DynamoDB JSON 1.0 protocol as one synchronous function from a request (method, headers,
 * body bytes) to a response (status, headers, body bytes). The HTTP server and the in-process SDK
 * adapter both call it, so the two paths behave identically. Spec §8.1-§8.3:
 * - GET / is a health check (200, text/plain).
 * - any other non-POST, or a content type other than application/x-amz-json-1.0 or
 *   application/json: 404 `<UnknownOperationException/>`.
 * - X-Amz-Target must be `DynamoDB_20120810.<Operation>` for an operation the engine has:
 *   else 400 UnknownOperationException.
 * - a body that is not JSON: 400 SerializationException; over `maxBodyBytes`: 413
 *   ValidationException (edgetable's choice; the service's answer is unverified).
 * - errors thrown by the operation: `__type` and status from ERROR_TYPES.
 */
import type { Edgetable } from '../edgetable.js';
import { OPERATIONS, type DynamoRequest, type OperationName } from '../ops/operations.js';
import { MAX_REQUEST_BODY_BYTES } from '../model/limits.js';
import { errorResponse, namedErrorResponse, type ErrorResponse } from './error-types.js';
import { jsonResponse, JSON_CONTENT_TYPE, wireResponse, type WireResponse } from './wire-response.js';

export type DynamoWireRequest = {
  readonly method: string;
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Uint8Array;
};

export type DynamoRequestOptions = {
  maxBodyBytes?: number;
  /** Called with errors that became a 500 (bugs, storage failures); the client sees no detail. */
  onInternalError?: (error: unknown) => void;
};

export const TARGET_PREFIX = 'DynamoDB_20120810.';
const ACCEPTED_CONTENT_TYPES: ReadonlySet<string> = new Set([JSON_CONTENT_TYPE, 'application/json']);
const HEALTH_TEXT = 'healthy: edgetable';
const decoder = new TextDecoder('utf-8', { fatal: true });

export function handleDynamoRequest(db: Edgetable, request: DynamoWireRequest, options: DynamoRequestOptions = {}): WireResponse {
  const method = request.method.toUpperCase();
  if (method === 'GET' && request.path === '/') return wireResponse(200, 'text/plain; charset=utf-8', HEALTH_TEXT);
  const contentType = mediaType(request.headers['content-type']);
  if (method !== 'POST' || !ACCEPTED_CONTENT_TYPES.has(contentType)) {
    return wireResponse(404, JSON_CONTENT_TYPE, '<UnknownOperationException/>');
  }
  const reply = (r: ErrorResponse): WireResponse => jsonResponse(r.statusCode, r.body, contentType);

  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  if (request.body.byteLength > maxBodyBytes) return reply(bodyTooLarge(maxBodyBytes));
  const target = request.headers['x-amz-target'];
  const operation = readTarget(target);
  if (operation === undefined) return reply(namedErrorResponse('UnknownOperationException', `Unknown operation: ${target ?? '(no X-Amz-Target)'}`));
  const parsed = parseBody(request.body);
  if (parsed === undefined) return reply(namedErrorResponse('SerializationException', 'Request body is not valid JSON'));

  try {
    return jsonResponse(200, db.execute(operation, parsed), contentType);
  } catch (error) {
    const r = errorResponse(error);
    if (r.internal) options.onInternalError?.(error);
    return reply(r);
  }
}

/** 413 for a body over the limit; the server also sends it before reading the whole body. */
export function bodyTooLarge(maxBodyBytes: number): ErrorResponse {
  const r = namedErrorResponse('ValidationException', `Request size exceeded the limit of ${maxBodyBytes} bytes`);
  return { ...r, statusCode: 413 };
}

export function bodyTooLargeResponse(maxBodyBytes: number, contentTypeHeader: string | undefined): WireResponse {
  const r = bodyTooLarge(maxBodyBytes);
  const type = mediaType(contentTypeHeader);
  return jsonResponse(r.statusCode, r.body, ACCEPTED_CONTENT_TYPES.has(type) ? type : JSON_CONTENT_TYPE);
}

function readTarget(target: string | undefined): OperationName | undefined {
  if (target === undefined || !target.startsWith(TARGET_PREFIX)) return undefined;
  const name = target.slice(TARGET_PREFIX.length);
  return Object.hasOwn(OPERATIONS, name) ? (name as OperationName) : undefined;
}

/** `application/x-amz-json-1.0; charset=utf-8` -> `application/x-amz-json-1.0`. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** An empty body is `{}`; the operation then reports what is missing. */
function parseBody(body: Uint8Array): DynamoRequest | undefined {
  if (body.byteLength === 0) return {};
  try {
    return JSON.parse(decoder.decode(body)) as DynamoRequest;
  } catch {
    return undefined;
  }
}
