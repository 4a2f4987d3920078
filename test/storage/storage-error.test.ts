import { describe, expect, it } from 'vitest';
import { EdgetableError } from '../../src/model/errors.js';
import { StorageError, fromNative, lmdbCode, toStorageError } from '../../src/storage/storage-error.js';

const lmdbError = (message: string, code: number) => Object.assign(new Error(message), { code });

describe('toStorageError', () => {
  it.each([
    [-30792, 'MAP_FULL'],
    [-30790, 'READERS_FULL'],
    [-30791, 'DBS_FULL'],
    [-30788, 'TXN_FULL'],
    [-30797, 'CORRUPT'], // MDB_PAGE_NOTFOUND: a damaged page's pointer
    [-30796, 'CORRUPT'], // MDB_CORRUPTED
    [-30795, 'CORRUPT'], // MDB_PANIC
    [-30793, 'CORRUPT'], // MDB_INVALID
    [-30779, 'CORRUPT'], // MDB_PROBLEM
    [-30782, 'INVALID'], // MDB_BAD_TXN: a txn used after a failure
    [-30789, 'READERS_FULL'], // MDB_TLS_FULL
    [-30798, 'NOT_FOUND'],
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

  it.each([
    ['MDB_PAGE_NOTFOUND: Requested page not found', 'CORRUPT', -30797],
    ['MDB_CORRUPTED: Located page was wrong type', 'CORRUPT', -30796],
    ['MDB_MAP_FULL: Environment mapsize limit reached', 'MAP_FULL', -30792],
  ] as const)('names the code of a native error that carries only LMDB\'s text: %s', (message, expected, code) => {
    expect(lmdbCode(new Error(message))).toBe(code);
    expect(toStorageError(new Error(message), 'ctx').code).toBe(expected);
  });

  it('maps Node errno errors (string codes) to IO', () => {
    for (const code of ['EIO', 'ENOSPC', 'EACCES']) expect(toStorageError(Object.assign(new Error(code), { code }), 'ctx').code).toBe('IO');
  });
});

describe('fromNative', () => {
  it('wraps native errors and passes a callback\'s own errors through unchanged', () => {
    expect(fromNative(lmdbError('MDB_PAGE_NOTFOUND: Requested page not found', -30797), 'walk')).toMatchObject({ name: 'StorageError', code: 'CORRUPT' });
    const own = new TypeError('from the visitor');
    expect(fromNative(own, 'walk')).toBe(own);
    const storage = new StorageError('IO', 'x');
    expect(fromNative(storage, 'walk')).toBe(storage);
  });
});
