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
 * - CORRUPT       LMDB found a damaged or incompatible file (one written on a host of another word
 *                 size: data-file-layout.ts), or the environment panicked
 * - CLOSED        the store was closed
 * - NOT_FOUND     a named database does not exist and could not be created here (read txn), or
 *                 a readOnly open found no store at its path (store-folder.ts)
 * - BUSY          a txn rule was broken (write inside read, nested write) or the folder is open
 * - READ_ONLY     a write on a store opened with readOnly, or a writable open on a read-only file system
 * - INVALID       a bad argument: empty or >511-byte key, a dropped database, a txn used after it ended,
 *                 a store path that is a file
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
  [-30789, 'READERS_FULL'], // MDB_TLS_FULL
  [MDB_NOTFOUND, 'NOT_FOUND'],
  [-30788, 'TXN_FULL'],
  [-30787, 'TXN_FULL'], // MDB_CURSOR_FULL
  [-30786, 'TXN_FULL'], // MDB_PAGE_FULL
  [-30784, 'INVALID'], // MDB_INCOMPATIBLE
  [-30783, 'READERS_FULL'], // MDB_BAD_RSLOT
  [-30782, 'INVALID'], // MDB_BAD_TXN
  [-30781, 'INVALID'], // MDB_BAD_VALSIZE
  [-30780, 'INVALID'], // MDB_BAD_DBI
  [MDB_MAP_RESIZED, 'BUSY'], // another process grew the map: handled where it can happen, retried
  [-30779, 'CORRUPT'], // MDB_PROBLEM
]);

/** LMDB's names for its codes, as mdb_strerror starts its text ("MDB_PAGE_NOTFOUND: ..."). */
const LMDB_NAMES: ReadonlyMap<string, number> = new Map([
  ['MDB_KEYEXIST', -30799],
  ['MDB_NOTFOUND', MDB_NOTFOUND],
  ['MDB_PAGE_NOTFOUND', -30797],
  ['MDB_CORRUPTED', -30796],
  ['MDB_PANIC', -30795],
  ['MDB_VERSION_MISMATCH', -30794],
  ['MDB_INVALID', -30793],
  ['MDB_MAP_FULL', MDB_MAP_FULL],
  ['MDB_DBS_FULL', -30791],
  ['MDB_READERS_FULL', -30790],
  ['MDB_TLS_FULL', -30789],
  ['MDB_TXN_FULL', -30788],
  ['MDB_CURSOR_FULL', -30787],
  ['MDB_PAGE_FULL', -30786],
  ['MDB_MAP_RESIZED', MDB_MAP_RESIZED],
  ['MDB_INCOMPATIBLE', -30784],
  ['MDB_BAD_RSLOT', -30783],
  ['MDB_BAD_TXN', -30782],
  ['MDB_BAD_VALSIZE', -30781],
  ['MDB_BAD_DBI', -30780],
  ['MDB_PROBLEM', -30779],
]);

/**
 * The numeric LMDB/errno code of a native error: the `code` node-lmdb attaches, or for its errors
 * that carry only mdb_strerror's text (batchWrite's callback), the code that text names.
 */
export function lmdbCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return code;
  const name = err instanceof Error ? /^(MDB_[A-Z_]+):/.exec(err.message)?.[1] : undefined;
  return name === undefined ? undefined : LMDB_NAMES.get(name);
}

/** Whether `err` came from LMDB or the OS (an LMDB code, or a Node errno error such as EIO), not from a caller. */
export function isNativeError(err: unknown): boolean {
  if (err instanceof StorageError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  return lmdbCode(err) !== undefined || (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code));
}

/**
 * Wraps an error thrown by node-lmdb or the OS. Positive codes are errno values (EIO, ENOSPC,
 * EACCES...), as are Node's string codes; errors without a code are node-lmdb's own argument
 * and state checks. MDB_TLS_FULL and MDB_BAD_RSLOT concern reader slots; MDB_PROBLEM and
 * unknown negative codes are LMDB finding its own state inconsistent.
 */
export function toStorageError(err: unknown, context: string): StorageError {
  if (err instanceof StorageError) return err;
  const code = lmdbCode(err);
  const message = err instanceof Error ? err.message : String(err);
  let mapped: StorageErrorCode = 'INVALID';
  if (code !== undefined) mapped = LMDB_CODES.get(code) ?? (code > 0 ? 'IO' : 'CORRUPT');
  else if (typeof (err as { code?: unknown } | null)?.code === 'string' && /^E[A-Z0-9]+$/.test((err as { code: string }).code)) mapped = 'IO';
  return new StorageError(mapped, `${context}: ${message}`, { cause: err });
}

/**
 * For code that runs a caller's callback between native calls (cursor walks): a native error
 * becomes a StorageError, anything else (the callback's own errors) is returned unchanged.
 */
export function fromNative(err: unknown, context: string): unknown {
  return isNativeError(err) ? toStorageError(err, context) : err;
}
