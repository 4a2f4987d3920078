/**
 * What the forwarder does with an endpoint's error, from the AWS SDK's error `name`, `$fault` and
 * `$metadata.httpStatusCode` (a plain Error without them, as a network failure or a test's fake,
 * is judged by name alone):
 *
 * - 'superseded': ConditionalCheckFailedException from the version condition: the endpoint already
 *   holds this version or a newer one. Not a failure.
 * - 'throttled': throughput and request-rate limits. Retried with back-off.
 * - 'retryable': 5xx, the service's own transient names, network and timeout errors, and anything
 *   about the connection rather than the record: credentials, signatures, permissions, a missing
 *   endpoint table. Retrying (or the operator fixing the setup) can make these succeed, and
 *   dead-lettering every record while credentials are wrong would empty the log into the dead
 *   letters; the shard waits, visibly (errors, lastError).
 * - 'permanent': the endpoint refuses this record and will refuse it again (ValidationException,
 *   SerializationException, ItemCollectionSizeLimitExceededException, any other 4xx). The record
 *   goes to the dead letters and the cursor moves past it.
 */
export type ErrorClass = 'superseded' | 'throttled' | 'retryable' | 'permanent';

const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TooManyRequestsException']);

const TRANSIENT = new Set([
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'AbortError',
  'TransactionConflictException',
  'LimitExceededException',
]);

/** 4xx names about the setup, not the record: fixing credentials, permissions or the table makes them pass. */
const SETUP = new Set([
  'CredentialsProviderError',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'ExpiredTokenException',
  'ExpiredToken',
  'AccessDeniedException',
  'InvalidClientTokenId',
  'ResourceNotFoundException',
  'ResourceInUseException',
]);

const PERMANENT = new Set(['ValidationException', 'SerializationException', 'ItemCollectionSizeLimitExceededException']);

type SdkErrorShape = { name?: unknown; $fault?: unknown; $metadata?: { httpStatusCode?: unknown } };

export function classifyEndpointError(err: unknown): ErrorClass {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkErrorShape;
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'ConditionalCheckFailedException') return 'superseded';
  if (THROTTLING.has(name)) return 'throttled';
  if (TRANSIENT.has(name) || SETUP.has(name)) return 'retryable';
  if (PERMANENT.has(name)) return 'permanent';
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  if (status === 429) return 'throttled';
  if (e.$fault === 'server' || (status !== undefined && status >= 500)) return 'retryable';
  if (e.$fault === 'client' || (status !== undefined && status >= 400)) return 'permanent';
  return 'retryable'; // no HTTP answer: the network, the SDK loading, a timeout
}

/** `forward: ValidationException: One or more parameter values were invalid`, the dead letter's reason. */
export function forwardReason(err: unknown): string {
  const e = err as Error;
  return `forward: ${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
}
