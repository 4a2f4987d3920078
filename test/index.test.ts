import { describe, expect, it } from 'vitest';
import * as edgetable from '../src/index.js';

describe('the package entry point (src/index.ts)', () => {
  it('exports exactly the documented values: open, Edgetable, the servers and the errors', () => {
    expect(Object.keys(edgetable).sort()).toEqual(
      [
        'ConditionalCheckFailedException',
        'Edgetable',
        'EdgetableError',
        'IdempotentParameterMismatchException',
        'InternalServerError',
        'ItemCollectionSizeLimitExceededException',
        'LimitExceededException',
        'ObserveOverflowError',
        'OutboxFullError',
        'ProvisionedThroughputExceededException',
        'ResourceInUseException',
        'ResourceNotFoundException',
        'SerializationException',
        'StorageError',
        'StoreFormatError',
        'SyncError',
        'ThrottlingException',
        'TransactionCanceledException',
        'TransactionConflictException',
        'TransactionInProgressException',
        'ValidationException',
        'clearRetainedSchemas',
        'loadAuthFile',
        'open',
        'startBridge',
        'startHub',
        'startServer',
      ].sort(),
    );
  });

  it('keeps internals out: no validation helpers, no operation table', () => {
    for (const name of ['invalid', 'INVALID_PARAMETERS', 'OPERATIONS', 'createRequestHandler']) expect(edgetable).not.toHaveProperty(name);
  });

  it('every exported error is an EdgetableError whose name is its class name', () => {
    const errors = Object.entries(edgetable).filter(([name]) => /(Exception|Error)$/.test(name) && name !== 'EdgetableError');
    expect(errors.length).toBeGreaterThan(15);
    for (const [name, value] of errors) expect((value as { prototype: object }).prototype, name).toBeInstanceOf(edgetable.EdgetableError);
    expect(new edgetable.ValidationException('x')).toBeInstanceOf(edgetable.EdgetableError);
    expect(new edgetable.ValidationException('x').name).toBe('ValidationException');
    expect(new edgetable.OutboxFullError('T', 0, 10, 5)).toBeInstanceOf(edgetable.EdgetableError);
  });
});
