/** Which endpoint errors the forwarder retries, which it dead-letters, and which are superseded versions. */
import { describe, expect, it } from 'vitest';
import { classifyEndpointError, forwardReason, type ErrorClass } from '../../../src/hub/forward/classify-error.js';

/** An error shaped as the AWS SDK v3 throws them. */
function sdkError(name: string, status?: number, fault?: 'client' | 'server'): Error {
  return Object.assign(new Error(`${name} happened`), { name, ...(fault ? { $fault: fault } : {}), ...(status !== undefined ? { $metadata: { httpStatusCode: status } } : {}) });
}

const cases: [what: string, error: unknown, expected: ErrorClass][] = [
  ['the version condition', sdkError('ConditionalCheckFailedException', 400, 'client'), 'superseded'],
  ['provisioned throughput', sdkError('ProvisionedThroughputExceededException', 400, 'client'), 'throttled'],
  ['throttling', sdkError('ThrottlingException', 400, 'client'), 'throttled'],
  ['request limit', sdkError('RequestLimitExceeded', 400, 'client'), 'throttled'],
  ['an unnamed 429', sdkError('Unknown', 429, 'client'), 'throttled'],
  ['internal server error', sdkError('InternalServerError', 500, 'server'), 'retryable'],
  ['service unavailable', sdkError('ServiceUnavailable', 503, 'server'), 'retryable'],
  ['any 5xx', sdkError('SomethingNew', 502), 'retryable'],
  ['a server fault without status', sdkError('SomethingNew', undefined, 'server'), 'retryable'],
  ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }), 'retryable'],
  ['a timeout', sdkError('TimeoutError'), 'retryable'],
  ['no credentials', sdkError('CredentialsProviderError'), 'retryable'],
  ['a bad signature (setup, not the record)', sdkError('InvalidSignatureException', 400, 'client'), 'retryable'],
  ['an unknown access key', sdkError('UnrecognizedClientException', 400, 'client'), 'retryable'],
  ['access denied', sdkError('AccessDeniedException', 400, 'client'), 'retryable'],
  ['the endpoint table missing', sdkError('ResourceNotFoundException', 400, 'client'), 'retryable'],
  ['validation', sdkError('ValidationException', 400, 'client'), 'permanent'],
  ['validation, by name only', Object.assign(new Error('x'), { name: 'ValidationException' }), 'permanent'],
  ['serialization', sdkError('SerializationException', 400, 'client'), 'permanent'],
  ['item collection too large', sdkError('ItemCollectionSizeLimitExceededException', 400, 'client'), 'permanent'],
  ['any other 4xx', sdkError('SomethingNew', 400, 'client'), 'permanent'],
  ['a plain Error', new Error('boom'), 'retryable'],
  ['not an Error at all', 'boom', 'retryable'],
];

describe('classifyEndpointError', () => {
  it.each(cases)('%s', (_what, error, expected) => {
    expect(classifyEndpointError(error)).toBe(expected);
  });
});

describe('forwardReason', () => {
  it("is the dead letter's reason: forward, the error's name and message", () => {
    expect(forwardReason(sdkError('ValidationException', 400, 'client'))).toBe('forward: ValidationException: ValidationException happened');
  });
});
