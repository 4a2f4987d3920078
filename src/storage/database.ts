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

export class Database {
  readonly name: string;
  /** Internal to storage/: the native handle, or null when it must be (re)opened in the current txn. */
  handle: LmdbDbi | null = null;
  /** Declared to hold only text values (Store.database, text-values.ts). */
  textValues = false;
  /** The name as the redo log records it (redo-log-file.ts): UTF-8, empty for LMDB's main database. */
  logName: Uint8Array;

  constructor(name: string) {
    this.name = name;
    this.logName = Buffer.from(name, 'utf8');
  }
}

/** Database names are keys of LMDB's main database, passed to C as NUL-terminated strings. */
export function checkDatabaseName(name: string): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes === 0 || bytes > MAX_LMDB_KEY_BYTES || name.includes('\0')) {
    throw new StorageError('INVALID', `invalid database name ${JSON.stringify(name)}: 1 to ${MAX_LMDB_KEY_BYTES} UTF-8 bytes, no NUL`);
  }
}
