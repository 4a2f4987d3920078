/**
 * The sequence that opens a store's folder, each step undone if a later one fails: the folder
 * (store-folder.ts), the data file's word size (data-file-layout.ts), the PID namespace marker, the writers' handshake (redo-handover.ts), the redo log's recovery
 * plan, the structural check of the data file (open-check.ts), LMDB's env (on a private copy of
 * the data file when a readOnly open meets read-only media: read-only-media.ts), the file checks and
 * modes, lock.mdb and its sweep of dead readers, the format, and the redo log's replay.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { checkDataFileNotEmptied, checkDataFileNotTruncated } from './data-file-check.js';
import { checkDataFileLayout } from './data-file-layout.js';
import { joinWriters, openEnv, openLockFile, readFormat, sweepUnderWriterLock } from './env-open.js';
import { prepareStoreFolder, settleFileModes } from './file-modes.js';
import type { LmdbDbi, LmdbEnv } from './lmdb-binding.js';
import { checkBeforeOpen } from './open-check.js';
import { PID_NAMESPACE_LEASE_MS, currentPidNamespace, joinPidNamespace } from './pid-namespace.js';
import { releaseOwner, unregisterWriter } from './redo-handover.js';
import { copyForReading, type ReadingCopy } from './read-only-media.js';
import { prepareRecovery, type RedoLog } from './redo-log.js';
import { toStorageError } from './storage-error.js';
import { StoreFormatError, isSupportedStoreFormat } from './store-format.js';
import type { OpenedEnv } from './store-env.js';
import { checkStoreFolder, onReadOnlyFileSystem } from './store-folder.js';
import type { ResolvedStoreOptions } from './store-options.js';

/** A folder opened for a Store: everything its parts are built from. */
export interface OpenedFolder extends OpenedEnv {
  /** data.mdb opened by this process for the commit's meta-page flush (null when read-only). */
  readonly flushFd: number | null;
  /** This process logs ('log' durability, and no other writer). */
  readonly redo: RedoLog | null;
  /** Registered as a writer beside a logging process (redo-handover.ts). */
  readonly registered: boolean;
  readonly format: number;
  readonly textValues: boolean;
}

/** Opens the folder at `path` (resolved) as `options` say; throws with nothing left open or claimed. */
export function openFolder(path: string, options: ResolvedStoreOptions): OpenedFolder {
  checkStoreFolder(path, options.readOnly);
  if (!options.readOnly) prepareStoreFolder(path, options.fileMode);
  checkDataFileNotEmptied(path);
  checkDataFileLayout(path);
  const namespace = joinPidNamespace(path, currentPidNamespace());
  let joined: { logging: boolean; registered: boolean };
  try {
    joined = options.readOnly ? { logging: false, registered: false } : joinWriters(path, options);
  } catch (err) {
    namespace.leave();
    throw err;
  }
  const { logging, registered } = joined;
  let recovery: ReturnType<typeof prepareRecovery>;
  try {
    recovery = prepareRecovery(path, options.readOnly, logging, options.handoverTimeoutMs);
  } catch (err) {
    if (logging) releaseOwner(path);
    if (registered) unregisterWriter(path);
    namespace.leave();
    throw err;
  }
  let copy: ReadingCopy | null = null;
  const leave = (): void => {
    namespace.leave();
    copy?.remove();
  };
  const unregister = (): void => {
    recovery.release();
    if (registered) unregisterWriter(path);
    leave();
  };
  try {
    if (options.readOnly && onReadOnlyFileSystem(path)) copy = copyForReading(path);
    // After recovery put the checkpoint's meta page back: a 'log' store's newest meta may name
    // pages a power cut never let reach the card, which only the redo log's replay makes whole.
    checkBeforeOpen(path, options.checkOnOpen, copy?.path);
  } catch (err) {
    unregister();
    throw err;
  }
  let env: LmdbEnv;
  try {
    env = openEnv(copy?.path ?? path, options, options.mapSizeBytes, logging);
  } catch (err) {
    unregister();
    throw toStorageError(err, `open store ${path}`);
  }
  try {
    checkDataFileNotTruncated(env, path);
    if (!options.readOnly) settleFileModes(path, ['data.mdb', 'lock.mdb']);
  } catch (err) {
    env.close();
    unregister();
    throw err;
  }
  const lockFd = openLockFile(copy?.path ?? path, options.readOnly); // the lock file LMDB uses
  const closeEnv = (): void => {
    env.close();
    if (lockFd !== null) closeSync(lockFd); // only now: see "Dead processes' slots" in store-env.ts
    unregister();
  };
  // Before the first txn that needs a reader slot, which a full table of dead slots would refuse.
  const cleared = options.readOnly || lockFd === null ? 0 : sweepUnderWriterLock(env, lockFd);
  let mainDbi: LmdbDbi;
  let format: number;
  let textValues: boolean;
  try {
    mainDbi = env.openDbi({ name: null, create: false, keyIsBuffer: true });
    ({ format, textValues } = readFormat(env, mainDbi));
  } catch (err) {
    closeEnv();
    throw toStorageError(err, `open store ${path}`);
  }
  if (!isSupportedStoreFormat(format)) {
    closeEnv(); // before anything was written: the store is left exactly as it was
    throw new StoreFormatError(path, format);
  }
  let flushFd: number | null = null;
  let redo: RedoLog | null = null;
  if (!options.readOnly) {
    try {
      flushFd = openSync(join(path, 'data.mdb'), 'r+');
      redo = recovery.finish(env, mainDbi, options);
    } catch (err) {
      if (flushFd !== null) closeSync(flushFd);
      closeEnv();
      throw toStorageError(err, `open store ${path}`);
    }
  }
  return {
    env,
    mainDbi,
    lockFd,
    staleReadersCleared: cleared,
    envPath: copy?.path ?? path,
    leaveNamespace: leave,
    renewNamespace: namespace.renew,
    namespaceRenewalMs: PID_NAMESPACE_LEASE_MS / 3,
    flushFd,
    redo,
    registered,
    format,
    textValues,
  };
}
