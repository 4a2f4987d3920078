/** Every error name maps to its `__type` namespace and status (spec §8.3), from one table. */
import { describe, expect, it } from 'vitest';
import {
  ConditionalCheckFailedException,
  EdgetableError,
  InternalServerError,
  LimitExceededException,
  ProvisionedThroughputExceededException,
  ResourceNotFoundException,
  SerializationException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
  ValidationException,
} from '../../src/model/errors.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { errorResponse } from '../../src/server/error-types.js';

describe('errorResponse', () => {
  it.each([
    [new ValidationException('bad'), 400, 'com.amazon.coral.validate#ValidationException'],
    [new SerializationException('bad'), 400, 'com.amazon.coral.service#SerializationException'],
    [new ThrottlingException('Rate of requests exceeds the allowed throughput.'), 400, 'com.amazon.coral.availability#ThrottlingException'],
    [new ResourceNotFoundException('Requested resource not found'), 400, 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException'],
    [new ProvisionedThroughputExceededException('x'), 400, 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException'],
    [new LimitExceededException('x'), 400, 'com.amazonaws.dynamodb.v20120810#LimitExceededException'],
    [new TransactionConflictException('x'), 400, 'com.amazonaws.dynamodb.v20120810#TransactionConflictException'],
    [new InternalServerError('x'), 500, 'com.amazonaws.dynamodb.v20120810#InternalServerError'],
  ])('%s -> %i %s', (error, status, type) => {
    const r = errorResponse(error);
    expect(r.statusCode).toBe(status);
    expect(r.body).toEqual({ __type: type, message: error.message });
  });

  it('gives an exception the table does not list the DynamoDB namespace', () => {
    class RequestLimitExceeded extends EdgetableError {}
    expect(errorResponse(new RequestLimitExceeded('Throughput exceeds the current throughput limit for your account.')).body.__type).toBe(
      'com.amazonaws.dynamodb.v20120810#RequestLimitExceeded',
    );
  });

  it('adds Item to ConditionalCheckFailedException only when there is one', () => {
    expect(errorResponse(new ConditionalCheckFailedException()).body).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
      message: 'The conditional request failed',
    });
    const item = { id: { S: 'a' } };
    expect(errorResponse(new ConditionalCheckFailedException(undefined, item)).body.Item).toEqual(item);
  });

  it('carries CancellationReasons and Message on TransactionCanceledException', () => {
    const reasons = [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { id: { S: 'a' } } }];
    const r = errorResponse(new TransactionCanceledException(reasons));
    expect(r.statusCode).toBe(400);
    expect(r.body).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
      CancellationReasons: reasons,
    });
  });

  it.each([
    ['a plain Error', new Error('secret path /var/x')],
    ['a StorageError', new StorageError('MAP_FULL', 'map full at /var/x')],
    ['a thrown string', 'oops'],
  ])('hides %s behind a 500 InternalServerError', (_, error) => {
    const r = errorResponse(error);
    expect(r).toEqual({
      statusCode: 500,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
      internal: true,
    });
  });
});
