/**
 * The DynamoDB JSON 1.0 protocol as one synchronous function from a request (method, headers,
 * body bytes) to a response (status, headers, body bytes). The HTTP server and the in-process SDK
 * adapter both call it, so the two paths behave identically. Spec §8.1-§8.3:
 * - GET / is a health check (200, text/plain).
 * - any other non-POST, or a content type other than application/x-amz-json-1.0 or
 *   application/json: 404 `<UnknownOperationException/>`.
 * - X-Amz-Target must be `DynamoDB_20120810.<Operation>` for an operation the engine has
 *   (ops/, or the PartiQL operations of partiql/), or
 *   `DynamoDBStreams_20120810.<Operation>` for a Streams operation (streams-api/): else 400
 *   UnknownOperationException.
 * - a body that is not JSON: 400 SerializationException; over `maxBodyBytes`: 413
 *   ValidationException (edgetable's choice; the service's answer is unverified).
 * - errors thrown by the operation: `__type` and status from ERROR_TYPES.
 * - with `auth`, a request that fails SigV4 verification (sigv4.ts) gets its 400 before the target
 *   and body are looked at; the health check and the 404 answers need no signature.
 *
 * parseDynamoRequest + operationResponse are the two halves of handleDynamoRequest, for callers
 * that run the operation themselves (the server's group commit).
 */
import type { Edgetable, EngineOperationName } from '../edgetable.js';
import { OPERATIONS, type DynamoRequest } from '../ops/operations.js';
import { STREAMS_OPERATIONS, STREAMS_TARGET_PREFIX } from '../streams-api/streams-operations.js';
import { PARTIQL_OPERATIONS } from '../partiql/partiql-operations.js';
import { MAX_REQUEST_BODY_BYTES } from '../model/limits.js';
import { errorResponse, namedErrorResponse, type ErrorResponse } from './error-types.js';
import { verifySigV4, type SigV4Options } from './sigv4.js';
import { jsonResponse, JSON_CONTENT_TYPE, wireResponse, type WireResponse } from './wire-response.js';

export type DynamoWireRequest = {
  readonly method: string;
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Uint8Array;
  /** The raw query string without `?`; only SigV4 reads it. Default ''. */
  readonly query?: string;
};

export type DynamoRequestOptions = {
  maxBodyBytes?: number;
  /** Called with errors that became a 500 (bugs, storage failures); the client sees no detail. */
  onInternalError?: (error: unknown) => void;
  /** Verify SigV4 signatures with these credentials; default off (any Authorization accepted). */
  auth?: SigV4Options;
};

/** Either the answer already (health check, protocol or auth error) or the operation to run. */
export type ParsedDynamoRequest =
  | { readonly kind: 'response'; readonly response: WireResponse }
  | { readonly kind: 'operation'; readonly operation: EngineOperationName; readonly body: DynamoRequest; readonly contentType: string };

/** What running the operation gave: its response, or what it threw. */
export type OperationOutcome = { readonly ok: true; readonly response: unknown } | { readonly ok: false; readonly error: unknown };

export const TARGET_PREFIX = 'DynamoDB_20120810.';
const ACCEPTED_CONTENT_TYPES: ReadonlySet<string> = new Set([JSON_CONTENT_TYPE, 'application/json']);
const HEALTH_TEXT = 'healthy: edgetable';
const decoder = new TextDecoder('utf-8', { fatal: true });

export function handleDynamoRequest(db: Edgetable, request: DynamoWireRequest, options: DynamoRequestOptions = {}): WireResponse {
  const parsed = parseDynamoRequest(request, options);
  if (parsed.kind === 'response') return parsed.response;
  let outcome: OperationOutcome;
  try {
    outcome = { ok: true, response: db.execute(parsed.operation, parsed.body) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  return operationResponse(outcome, parsed.contentType, options);
}

export function parseDynamoRequest(request: DynamoWireRequest, options: DynamoRequestOptions = {}): ParsedDynamoRequest {
  const answer = (response: WireResponse): ParsedDynamoRequest => ({ kind: 'response', response });
  const method = request.method.toUpperCase();
  if (method === 'GET' && request.path === '/') return answer(wireResponse(200, 'text/plain; charset=utf-8', HEALTH_TEXT));
  const contentType = mediaType(request.headers['content-type']);
  if (method !== 'POST' || !ACCEPTED_CONTENT_TYPES.has(contentType)) {
    return answer(wireResponse(404, JSON_CONTENT_TYPE, '<UnknownOperationException/>'));
  }
  const reply = (r: ErrorResponse): ParsedDynamoRequest => answer(jsonResponse(r.statusCode, r.body, contentType));

  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  if (request.body.byteLength > maxBodyBytes) return reply(bodyTooLarge(maxBodyBytes));
  if (options.auth) {
    const failure = verifySigV4({ ...request, query: request.query ?? '' }, options.auth);
    if (failure) return reply(namedErrorResponse(failure.name, failure.message));
  }
  const target = request.headers['x-amz-target'];
  const operation = readTarget(target);
  if (operation === undefined) return reply(namedErrorResponse('UnknownOperationException', `Unknown operation: ${target ?? '(no X-Amz-Target)'}`));
  const body = parseBody(request.body);
  if (body === undefined) return reply(namedErrorResponse('SerializationException', 'Request body is not valid JSON'));
  return { kind: 'operation', operation, body, contentType };
}

/** The wire response for an operation's outcome; errors that become a 500 go to onInternalError. */
export function operationResponse(outcome: OperationOutcome, contentType: string, options: DynamoRequestOptions = {}): WireResponse {
  if (outcome.ok) return jsonResponse(200, outcome.response, contentType);
  const r = errorResponse(outcome.error);
  if (r.internal) options.onInternalError?.(outcome.error);
  return jsonResponse(r.statusCode, r.body, contentType);
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

function readTarget(target: string | undefined): EngineOperationName | undefined {
  if (target === undefined) return undefined;
  if (target.startsWith(TARGET_PREFIX)) {
    const name = target.slice(TARGET_PREFIX.length);
    return Object.hasOwn(OPERATIONS, name) || Object.hasOwn(PARTIQL_OPERATIONS, name) ? (name as EngineOperationName) : undefined;
  }
  if (!target.startsWith(STREAMS_TARGET_PREFIX)) return undefined;
  const name = target.slice(STREAMS_TARGET_PREFIX.length);
  return Object.hasOwn(STREAMS_OPERATIONS, name) ? (name as EngineOperationName) : undefined;
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
