/**
 * Failures of the storage layer. Callers branch on `code`, never on the message; the LMDB error,
 * when there is one, is kept as `cause`.
 *
 * Codes:
 * - MAP_FULL      the store reached maxMapSizeBytes; the write was aborted, nothing was written
 * - READERS_FULL  every LMDB reader slot is taken (too many processes or open read txns)
 * - DBS_FULL      more named databases than maxDatabases
 * - TXN_FULL      one write txn dirtied more pages than LMDB allows in a single txn
 * - IO            the OS failed a read, write or fsync (also the fault injector's code)
 * - CORRUPT       LMDB found a damaged or incompatible file, or the environment panicked
 * - CLOSED        the store was closed
 * - NOT_FOUND     a named database does not exist and could not be created here (read txn)
 * - BUSY          a txn rule was broken (write inside read, nested write) or the folder is open
 * - READ_ONLY     a write on a store opened with readOnly
 * - INVALID       a bad argument: empty or >511-byte key, a dropped database, a txn used after it ended
 * - FORMAT        the store has a store format this build does not read (store-format.ts,
 *                 StoreFormatError): refused at open, or at a write after a newer build raised it
 */
import { EdgetableError } from '../model/errors.js';

export type StorageErrorCode =
  | 'MAP_FULL'
  | 'READERS_FULL'
  | 'DBS_FULL'
  | 'TXN_FULL'
  | 'IO'
  | 'CORRUPT'
  | 'CLOSED'
  | 'NOT_FOUND'
  | 'BUSY'
  | 'READ_ONLY'
  | 'INVALID'
  | 'FORMAT';

export class StorageError extends EdgetableError {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** LMDB's return codes (lmdb.h) that this layer reacts to. */
export const MDB_NOTFOUND = -30798;
export const MDB_MAP_FULL = -30792;
export const MDB_MAP_RESIZED = -30785;

const LMDB_CODES: ReadonlyMap<number, StorageErrorCode> = new Map([
  [-30799, 'INVALID'], // MDB_KEYEXIST
  [-30797, 'CORRUPT'], // MDB_PAGE_NOTFOUND
  [-30796, 'CORRUPT'], // MDB_CORRUPTED
  [-30795, 'CORRUPT'], // MDB_PANIC
  [-30794, 'CORRUPT'], // MDB_VERSION_MISMATCH
  [-30793, 'CORRUPT'], // MDB_INVALID
  [MDB_MAP_FULL, 'MAP_FULL'],
  [-30791, 'DBS_FULL'],
  [-30790, 'READERS_FULL'],
  [-30788, 'TXN_FULL'],
  [-30787, 'TXN_FULL'], // MDB_CURSOR_FULL
  [-30786, 'TXN_FULL'], // MDB_PAGE_FULL
  [-30784, 'INVALID'], // MDB_INCOMPATIBLE
  [-30783, 'READERS_FULL'], // MDB_BAD_RSLOT
  [-30782, 'INVALID'], // MDB_BAD_TXN
  [-30781, 'INVALID'], // MDB_BAD_VALSIZE
  [-30780, 'INVALID'], // MDB_BAD_DBI
]);

/** The numeric LMDB/errno code node-lmdb attaches to its errors, if any. */
export function lmdbCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Wraps an error thrown by node-lmdb. Positive codes are errno values (EIO, ENOSPC, EACCES...);
 * errors without a code are node-lmdb's own argument and state checks.
 */
export function toStorageError(err: unknown, context: string): StorageError {
  if (err instanceof StorageError) return err;
  const code = lmdbCode(err);
  const message = err instanceof Error ? err.message : String(err);
  let mapped: StorageErrorCode = 'INVALID';
  if (code !== undefined) mapped = LMDB_CODES.get(code) ?? (code > 0 ? 'IO' : 'CORRUPT');
  return new StorageError(mapped, `${context}: ${message}`, { cause: err });
}
