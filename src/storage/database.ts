/**
 * A named LMDB sub-database as callers hold it. The object is stable for the store's life: LMDB's
 * native handle behind it is opened lazily and reopened when LMDB invalidated it (the txn that
 * created it aborted, or the database was dropped), so holding a Database across txns is safe.
 * Keys are raw bytes compared as unsigned bytes, 1 to MAX_LMDB_KEY_BYTES long.
 */
import type { LmdbDbi } from './lmdb-binding.js';
import { StorageError } from './storage-error.js';

/** LMDB's compiled key limit (MDB_MAXKEYSIZE); also bounds database names. */
export const MAX_LMDB_KEY_BYTES = 511;

/**
 * Bumped when a Store closes its native env and opens it again (a 'log' handover,
 * redo-handover.ts): every handle opened before is then stale, including those of Database
 * objects held outside the Store's registry (stream/shard-database.ts). Another store of this
 * process only reopens its handles once.
 */
let handleEpoch = 0;

export function invalidateHandles(): void {
  handleEpoch += 1;
}

export class Database {
  readonly name: string;
  private native: LmdbDbi | null = null;
  private epoch = handleEpoch;
  /** Declared to hold only text values (Store.database, text-values.ts). */
  textValues = false;
  /** The name as the redo log records it (redo-log-file.ts): UTF-8, empty for LMDB's main database. */
  logName: Uint8Array;

  constructor(name: string) {
    this.name = name;
    this.logName = Buffer.from(name, 'utf8');
  }

  /** Internal to storage/: the native handle, or null when it must be (re)opened in the current txn. */
  get handle(): LmdbDbi | null {
    return this.epoch === handleEpoch ? this.native : null;
  }

  set handle(handle: LmdbDbi | null) {
    this.native = handle;
    this.epoch = handleEpoch;
  }
}

/** Database names are keys of LMDB's main database, passed to C as NUL-terminated strings. */
export function checkDatabaseName(name: string): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0 || bytes > MAX_LMDB_KEY_BYTES || name.includes('\0')) {
    throw new StorageError('INVALID', `invalid database name ${JSON.stringify(name)}: 1 to ${MAX_LMDB_KEY_BYTES} UTF-8 bytes, no NUL`);
  }
}
