/**
 * The DynamoDB JSON 1.0 protocol as one synchronous function from a request (method, headers,
 * body bytes) to a response (status, headers, body bytes). The HTTP server and the in-process SDK
 * adapter both call it, so the two paths behave identically. Spec §8.1-§8.3, in the order the
 * service answers (dynalite's captures of it):
 * - GET / is a health check: 200 `healthy: dynamodb.us-east-1.amazonaws.com ` (as the service).
 * - any other non-POST, or a non-empty body whose media type is not application/x-amz-json-1.0 or
 *   application/json (parameters such as `; charset=utf-8` allowed): 404 `<UnknownOperationException/>`.
 * - over `maxBodyBytes`: 413 (edgetable's body; the service resets such connections).
 * - a body that is not JSON: 400 SerializationException (no message, as the service).
 * - X-Amz-Target must be `DynamoDB_20120810.<Operation>` for an operation the engine has
 *   (ops/, or the PartiQL operations of partiql/), or `DynamoDBStreams_20120810.<Operation>` for a
 *   Streams operation (streams-api/): else 400 UnknownOperationException (no message).
 * - Authorization: always required and checked for form, as DynamoDB Local does
 *   (MissingAuthenticationTokenException, IncompleteSignatureException); the signature itself is
 *   verified only with `auth` (sigv4.ts).
 * - an empty body: 400 SerializationException.
 * - errors thrown by the operation: `__type` and status from ERROR_TYPES.
 * Every answer carries `x-amzn-RequestId` and `x-amz-crc32` (wire-response.ts).
 *
 * parseDynamoRequest + operationResponse are the two halves of handleDynamoRequest, for callers
 * that run the operation themselves (the server's group commit).
 */
import type { Edgetable, EngineOperationName } from '../edgetable.js';
import { isOperationName, type DynamoRequest } from '../ops/operations.js';
import { ENDPOINT_CACHE_MINUTES } from '../ops/control/describe-endpoints.js';
import { STREAMS_OPERATIONS, STREAMS_TARGET_PREFIX } from '../streams-api/streams-operations.js';
import { PARTIQL_OPERATIONS } from '../partiql/partiql-operations.js';
import { MAX_REQUEST_BODY_BYTES } from '../model/limits.js';
import { errorResponse, namedErrorResponse, type ErrorResponse } from './error-types.js';
import { checkAuthorizationHeader, verifySigV4, type AuthFailure, type SigV4Options } from './sigv4.js';
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

/**
 * Either the answer already (health check, protocol or auth error) or the operation to run.
 * `refused` is set when the answer is an authentication error, for the server to count and log.
 */
export type ParsedDynamoRequest =
  | { readonly kind: 'response'; readonly response: WireResponse; readonly refused?: AuthFailure & { readonly operation: EngineOperationName } }
  | { readonly kind: 'operation'; readonly operation: EngineOperationName; readonly body: DynamoRequest; readonly contentType: string };

/** What running the operation gave: its response, or what it threw. */
export type OperationOutcome = { readonly ok: true; readonly response: unknown } | { readonly ok: false; readonly error: unknown };

export const TARGET_PREFIX = 'DynamoDB_20120810.';
const ACCEPTED_CONTENT_TYPES: ReadonlySet<string> = new Set([JSON_CONTENT_TYPE, 'application/json']);
export const HEALTH_TEXT = 'healthy: dynamodb.us-east-1.amazonaws.com ';
export const UNKNOWN_OPERATION_BODY = '<UnknownOperationException/>\n';
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
  if (method === 'GET' && request.path === '/') return answer(wireResponse(200, 'text/plain', HEALTH_TEXT));
  const contentType = mediaType(request.headers['content-type']);
  const accepted = ACCEPTED_CONTENT_TYPES.has(contentType);
  if (method !== 'POST' || (request.body.byteLength > 0 && !accepted)) {
    return answer(wireResponse(404, 'text/html', UNKNOWN_OPERATION_BODY));
  }
  const responseType = accepted ? contentType : 'application/json';
  const reply = (r: ErrorResponse): ParsedDynamoRequest => answer(jsonResponse(r.statusCode, r.body, responseType));
  const bare = (name: string): ParsedDynamoRequest => {
    const r = namedErrorResponse(name, '');
    return reply({ ...r, body: { __type: r.body.__type } });
  };

  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  if (request.body.byteLength > maxBodyBytes) return reply(bodyTooLarge(maxBodyBytes));
  const body = parseBody(request.body);
  if (body === undefined) return bare('SerializationException');
  const operation = readTarget(request.headers['x-amz-target']);
  if (operation === undefined) return bare('UnknownOperationException');
  const failure = options.auth ? verifySigV4({ ...request, query: request.query ?? '' }, options.auth) : checkAuthorizationHeader(request.headers);
  if (failure) {
    const r = namedErrorResponse(failure.name, failure.message);
    return { kind: 'response', response: jsonResponse(r.statusCode, r.body, responseType), refused: { ...failure, operation } };
  }
  if (body === EMPTY) return bare('SerializationException');
  // The address this client reached the server by is the one to discover (ops/control/describe-endpoints.ts).
  const host = request.headers['host'];
  if (operation === 'DescribeEndpoints' && host) return answer(jsonResponse(200, { Endpoints: [{ Address: host, CachePeriodInMinutes: ENDPOINT_CACHE_MINUTES }] }, responseType));
  return { kind: 'operation', operation, body, contentType: responseType };
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
    return isOperationName(name) || Object.hasOwn(PARTIQL_OPERATIONS, name) ? (name as EngineOperationName) : undefined;
  }
  if (!target.startsWith(STREAMS_TARGET_PREFIX)) return undefined;
  const name = target.slice(STREAMS_TARGET_PREFIX.length);
  return Object.hasOwn(STREAMS_OPERATIONS, name) ? (name as EngineOperationName) : undefined;
}

/** `application/x-amz-json-1.0; charset=utf-8` -> `application/x-amz-json-1.0`. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** Stands for an empty body, which the service refuses once the request is authenticated. */
const EMPTY: DynamoRequest = Object.freeze({});

function parseBody(body: Uint8Array): DynamoRequest | undefined {
  if (body.byteLength === 0) return EMPTY;
  try {
    return JSON.parse(decoder.decode(body)) as DynamoRequest;
  } catch {
    return undefined;
  }
}
