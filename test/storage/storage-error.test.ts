import { describe, expect, it } from 'vitest';
import { EdgetableError } from '../../src/model/errors.js';
import { StorageError, toStorageError } from '../../src/storage/storage-error.js';

const lmdbError = (message: string, code: number) => Object.assign(new Error(message), { code });

describe('toStorageError', () => {
  it.each([
    [-30792, 'MAP_FULL'],
    [-30790, 'READERS_FULL'],
    [-30791, 'DBS_FULL'],
    [-30788, 'TXN_FULL'],
    [-30796, 'CORRUPT'],
    [-30795, 'CORRUPT'],
    [-30781, 'INVALID'],
    [5, 'IO'], // EIO
    [28, 'IO'], // ENOSPC
  ] as const)('maps LMDB/errno code %i to %s and keeps the cause', (code, expected) => {
    const cause = lmdbError('native text', code);
    const error = toStorageError(cause, 'put into d');
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toBeInstanceOf(EdgetableError);
    expect(error.name).toBe('StorageError');
    expect(error.code).toBe(expected);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('put into d: native text');
  });

  it('passes StorageErrors through and maps code-less binding errors to INVALID', () => {
    const original = new StorageError('IO', 'x');
    expect(toStorageError(original, 'ctx')).toBe(original);
    expect(toStorageError(new Error('The transaction is already closed.'), 'ctx').code).toBe('INVALID');
  });
});
