/** Opening a Store's native env: the writer handshake, the env itself, lock.mdb, the format it holds. */
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { sweepDeadReaders } from './reader-table.js';
import { createEnv, type LmdbDbi, type LmdbEnv, type LmdbTxn } from './lmdb-binding.js';
import { logsThroughRedo, type ResolvedStoreOptions } from './store-options.js';
import { lmdbCode } from './storage-error.js';
import { STORE_FORMAT_KEY, TEXT_VALUES_KEY, decodeStoreFormat } from './store-format.js';
import { currentBootId } from './redo-log-file.js';
import { awaitHandover, otherWriters, registerWriter, releaseOwner, tryClaimOwner, unregisterWriter } from './redo-handover.js';

/** lock.mdb for the reader-table sweep and census, or null (a read-only folder, a lock file elsewhere). */
export function openLockFile(path: string, readOnly: boolean): number | null {
  try {
    return openSync(join(path, 'lock.mdb'), readOnly ? 'r' : 'r+');
  } catch {
    return null;
  }
}

/**
 * Clears dead processes' reader slots inside a write txn that is then aborted (it holds LMDB's
 * writer lock, which serializes sweeps; reader-table.ts). Returns how many it cleared. A sweep
 * that fails clears nothing and fails nothing: the store works as before, slots stay taken.
 */
export function sweepUnderWriterLock(env: LmdbEnv, lockFd: number): number {
  let txn: LmdbTxn | null = null;
  try {
    txn = env.beginTxn();
    return sweepDeadReaders(lockFd).cleared;
  } catch {
    return 0;
  } finally {
    txn?.abort();
  }
}

/** errno EINVAL, as LMDB returns it from a destroyed mutex. */
const EINVAL = 22;

/** Opens of one env that found lock.mdb's mutexes destroyed, before the open gives up (openEnv). */
const DESTROYED_LOCKS_ATTEMPTS = 100;

/**
 * The native env on `path`: MDB_NOSYNC while this process logs, MDB_NOMETASYNC for 'relaxed'.
 *
 * LMDB's last process to close an env destroys the mutexes in lock.mdb while it holds the file's
 * exclusive lock. An open that begins in that window waits for the lock, then takes it shared
 * (another process had it) and does not initialize the mutexes: every txn of that env fails with
 * EINVAL. Seen when a 'log' process took its log back up (closed and reopened LMDB) as the
 * writer it had handed the folder to closed, and possible for any open beside a closing process.
 * So the open begins a read txn (the reader mutex) and, on EINVAL, closes and opens again: with
 * the closing process gone, the next open takes the exclusive lock and initializes them.
 */
export function openEnv(path: string, options: ResolvedStoreOptions, mapSize: number, logging: boolean): LmdbEnv {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    const env = createEnv();
    env.open({
      path,
      mapSize,
      maxDbs: options.maxDatabases,
      maxReaders: options.maxReaders,
      readOnly: options.readOnly,
      noMetaSync: !logging && options.durability === 'relaxed', // see commit-flushes.ts
      noSync: logging,
    });
    try {
      env.openDbi({ name: null, create: false, keyIsBuffer: true }); // a read txn: takes the reader mutex
      return env;
    } catch (err) {
      // Anything else (a reader table full of dead slots, swept next) is for the open to meet.
      if (lmdbCode(err) !== EINVAL) return env;
      env.close();
      if (attempt >= DESTROYED_LOCKS_ATTEMPTS) throw err;
    }
    Atomics.wait(pause, 0, 0, 1);
  }
}

/**
 * A writable open's place among the folder's writers (redo-handover.ts): 'log' claims the folder
 * and logs when no other writer is registered; everybody else registers and waits until no
 * process logs. Before LMDB opens the folder.
 */
export function joinWriters(path: string, options: ResolvedStoreOptions): { logging: boolean; registered: boolean } {
  const bootId = currentBootId();
  if (logsThroughRedo(options.durability) && tryClaimOwner(path, bootId)) {
    if (otherWriters(path, bootId).length === 0) return { logging: true, registered: false };
    releaseOwner(path);
  } else {
    otherWriters(path, bootId); // sweeps registrations of processes that ended without closing
  }
  registerWriter(path, bootId);
  try {
    awaitHandover(path, bootId, options.handoverTimeoutMs);
  } catch (err) {
    unregisterWriter(path);
    throw err;
  }
  return { logging: false, registered: true };
}

/** The store format and text-values marker a native read txn sees (store-format.ts); at open, before the Store exists. */
export function readFormat(env: LmdbEnv, main: LmdbDbi): { format: number; textValues: boolean } {
  const txn = env.beginTxn({ readOnly: true });
  try {
    return { format: decodeStoreFormat(txn.getBinary(main, STORE_FORMAT_KEY)), textValues: txn.getBinary(main, TEXT_VALUES_KEY) !== null };
  } finally {
    txn.abort();
  }
}
