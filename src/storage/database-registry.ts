/**
 * Owns the Database objects of one store and the rule for their native handles.
 *
 * The rule: a handle is opened inside the txn that first needs it (LMDB's mdb_dbi_open always
 * runs in a txn, and a second write txn from this thread would deadlock on LMDB's writer lock).
 * - In a write txn it is created if missing. If that txn aborts, LMDB closes every handle it
 *   opened, so the registry forgets them and the next use reopens.
 * - In a read txn it is only opened (NOT_FOUND if missing) and the read txn then ends with commit
 *   instead of reset, which is how LMDB publishes a handle opened by a reader.
 * - Dropping a database closes its handle at once (mdb_drop), whatever becomes of the txn.
 * A stale native handle is never reused: LMDB recycles handle slots for other databases.
 */
import { Database, checkDatabaseName } from './database.js';
import type { LmdbDbi, LmdbEnv } from './lmdb-binding.js';
import { MDB_NOTFOUND, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import { LmdbWriteTxn, type LmdbReadTxn } from './txn.js';

export class DatabaseRegistry {
  private readonly byName = new Map<string, Database>();

  /** The native env handles are opened in; replaced when the Store reopens LMDB (a 'log' handover). */
  constructor(public env: LmdbEnv) {}

  /** The stable object for `name`; its handle may still be closed. */
  get(name: string): Database {
    let db = this.byName.get(name);
    if (db === undefined) {
      checkDatabaseName(name);
      db = new Database(name);
      this.byName.set(name, db);
    }
    return db;
  }

  openHandle(db: Database, txn: LmdbReadTxn): LmdbDbi {
    let handle: LmdbDbi;
    try {
      handle = this.env.openDbi({ name: db.name, create: txn.writable, keyIsBuffer: true, txn: txn.native });
    } catch (err) {
      if (lmdbCode(err) === MDB_NOTFOUND) {
        throw new StorageError('NOT_FOUND', `database ${JSON.stringify(db.name)} does not exist`, { cause: err });
      }
      const context = `open database ${JSON.stringify(db.name)}`;
      throw txn instanceof LmdbWriteTxn ? txn.failed(err, context) : toStorageError(err, context);
    }
    db.handle = handle;
    if (txn instanceof LmdbWriteTxn) {
      txn.openedDatabases.push(db);
      txn.changed = true; // it may have created the database
      txn.log?.whole('create', db.logName);
    }
    else txn.openedHandle = true;
    return handle;
  }

  /** After a write txn aborted: LMDB closed the handles it opened. */
  forgetOpenedIn(txn: { readonly openedDatabases: readonly Database[] }): void {
    for (const db of txn.openedDatabases) db.handle = null;
  }

  /** On close: every handle dies with the environment. */
  forgetAll(): void {
    for (const db of this.byName.values()) db.handle = null;
  }
}
