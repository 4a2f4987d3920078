/**
 * Options of Store.open and their defaults.
 *
 * Map size: LMDB maps the whole store into the address space; the map size caps the data file
 * but does not allocate disk (the file grows with the data). The store starts at mapSizeBytes
 * (or, reopened, as large as its data) and doubles on MAP_FULL up to maxMapSizeBytes, and before
 * a held txn begins while it has no room for one (held-writes.ts roomToHold). The default cap is 8 GiB on 64-bit processes and
 * 1 GiB on 32-bit ones (a 32-bit Raspberry Pi OS process has ~3 GiB of address space to share).
 * Running out of disk before the cap surfaces as StorageError('IO') (ENOSPC).
 *
 * Durability:
 * - 'sync' (default): every write txn is on disk when its commit returns: LMDB flushes the data
 *   pages, then writes the meta page through its O_DSYNC descriptor (two flushes per commit).
 * - 'relaxed': a commit flushes its data pages but not the meta page that makes it the store's
 *   state (MDB_NOMETASYNC; see commit-flushes.ts); the next commit's flush, the timer every
 *   syncIntervalMs (off the main thread), store.sync() and close() flush it. Loss bound, proven by
 *   the power-cut harness: a process crash loses nothing (the OS has the pages); an OS crash or
 *   power cut loses at most the LAST commit, and only when neither another commit nor the timer
 *   flushed after it; the file is never corrupted. Costs one flush per commit instead of two.
 * - 'log': every write txn is on disk when its commit returns, as with 'sync', through a redo log
 *   (redo-log.ts): its changes are appended to a log file and flushed (one sequential flush), and
 *   LMDB commits without flushing; checkpoints flush data.mdb behind the commits on the thread
 *   pool. Recovery at the next open replays the log (after a restart, from the last checkpoint).
 *   While another process writes the folder too, every process commits as 'sync' does (the
 *   logging one hands the folder over, redo-handover.ts) and the log resumes once it is alone.
 * - 'interval': 'log' with the log's flush deferred (deferred-flush.ts): a write appends its
 *   record and LMDB commits, neither flushed; the log is flushed at most syncIntervalMs after a
 *   write (on the thread pool), and by every checkpoint, store.sync() and close(). Loss bound,
 *   proven by the power-cut harness: a process crash loses nothing (the page cache holds the
 *   log); a power cut loses at most the writes of the last syncIntervalMs, never a write an
 *   earlier one depends on (the log's valid prefix is replayed), and the store reopens whole.
 *   db.promises writes still resolve once their record is flushed, as in 'log'.
 */
import type { FaultInjector } from './fault-injector.js';
import { checkFileMode, type FileMode } from './file-modes.js';
import { checkCheckOnOpen, type CheckOnOpen } from './open-check.js';
import { DEFAULT_HANDOVER_TIMEOUT_MS } from './redo-handover.js';
import { DEFAULT_CHECKPOINT_POLICY, type CheckpointPolicy } from './redo-log.js';
import { StorageError } from './storage-error.js';

export type Durability = 'sync' | 'relaxed' | 'log' | 'interval';

export interface StoreOptions {
  /** The store's folder; created on first open. One LMDB environment per folder. */
  path: string;
  /** Initial map size. Default 64 MiB (an existing larger store keeps its size). */
  mapSizeBytes?: number;
  /** Growth cap; past it writes fail with StorageError('MAP_FULL'). Default: see above. */
  maxMapSizeBytes?: number;
  /** Named databases the store can hold (tables x partitions x indexes x shards). Default 10,000. */
  maxDatabases?: number;
  /** LMDB reader slots shared by every process that opens the folder. Default 126. */
  maxReaders?: number;
  durability?: Durability;
  /** For 'relaxed' and 'interval': the longest a commit waits for its flush. Default 1,000 ms. */
  syncIntervalMs?: number;
  /** For 'log' and 'interval': when a checkpoint starts (redo-log.ts; tests make it frequent). */
  checkpoint?: CheckpointPolicy;
  /**
   * For 'log' and 'interval': how many logged writes of the synchronous API one LMDB txn holds before it commits
   * (held-txn.ts). Each write is as durable when it returns as its durability makes it (by its
   * log record) either way; with more than 1 the txn stays open between them (this process reads through it; other
   * processes see the writes once it commits: after this many, or when the event loop turns).
   * Default 1: LMDB commits every write.
   */
  logWritesPerCommit?: number;
  /** How long a writable open waits for a process logging the folder to hand it over (redo-handover.ts). Default 15,000 ms. */
  handoverTimeoutMs?: number;
  /**
   * Open without writing; the store must exist (StorageError('NOT_FOUND') otherwise). write()
   * throws StorageError('READ_ONLY'). On a read-only file system LMDB reads a private copy of
   * data.mdb under os.tmpdir(), removed at close (read-only-media.ts).
   */
  readOnly?: boolean;
  /**
   * Who besides the owner may access the store's files (file-modes.ts): 0o600 (nobody), 0o640
   * (a group reads them), 0o660 (a group opens and writes the store). Default: a new folder is
   * private and an existing one keeps its group access.
   */
  fileMode?: FileMode;
  /** When the store is checked for damage before LMDB reads it (open-check.ts). Default 'unclean'. */
  checkOnOpen?: CheckOnOpen;
  /** Checks the open store for damage every this many ms, in a child process (periodic-check.ts). Default 0: never; serve, sync and the hub use SERVICE_CHECK_INTERVAL_MS. */
  checkIntervalMs?: number;
  /** The fault seam for tests. */
  faults?: FaultInjector;
}

const MIB = 1024 * 1024;
export const DEFAULT_MAP_SIZE_BYTES = 64 * MIB;
export const DEFAULT_MAX_MAP_SIZE_BYTES = is32BitProcess() ? 1024 * MIB : 8192 * MIB;
export const DEFAULT_MAX_DATABASES = 10_000;
export const DEFAULT_MAX_READERS = 126;
export const DEFAULT_SYNC_INTERVAL_MS = 1000;
export const DEFAULT_LOG_WRITES_PER_COMMIT = 1;
/** setTimeout's longest delay: a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The periodic structural check of long-running services: a read of the whole file every 6 hours (docs/reliability.md has its cost). */
export const SERVICE_CHECK_INTERVAL_MS = 6 * 60 * 60_000;

export type ResolvedStoreOptions = Required<Omit<StoreOptions, 'faults' | 'fileMode'>> & { faults: FaultInjector | undefined; fileMode: FileMode | undefined };

const DURABILITIES: readonly Durability[] = ['sync', 'relaxed', 'log', 'interval'];

/** Whether a store of this durability commits through the redo log while it is the folder's only writer. */
export function logsThroughRedo(durability: Durability): boolean {
  return durability === 'log' || durability === 'interval';
}

export function resolveStoreOptions(options: StoreOptions): ResolvedStoreOptions {
  if (options.durability !== undefined && !DURABILITIES.includes(options.durability)) {
    throw new StorageError('INVALID', `durability ${JSON.stringify(options.durability)} is not one of ${DURABILITIES.map((d) => `'${d}'`).join(', ')}`);
  }
  const logWritesPerCommit = options.logWritesPerCommit ?? DEFAULT_LOG_WRITES_PER_COMMIT;
  if (!Number.isInteger(logWritesPerCommit) || logWritesPerCommit < 1) {
    throw new StorageError('INVALID', `logWritesPerCommit ${JSON.stringify(options.logWritesPerCommit)} must be a whole number of 1 or more`);
  }
  const syncIntervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
  if (typeof syncIntervalMs !== 'number' || !(syncIntervalMs > 0 && syncIntervalMs <= MAX_TIMER_MS)) {
    throw new StorageError('INVALID', `syncIntervalMs ${JSON.stringify(options.syncIntervalMs)} must be a number of milliseconds above 0 and at most ${MAX_TIMER_MS}`);
  }
  const maxMapSizeBytes = options.maxMapSizeBytes ?? DEFAULT_MAX_MAP_SIZE_BYTES;
  return {
    path: options.path,
    mapSizeBytes: Math.min(options.mapSizeBytes ?? DEFAULT_MAP_SIZE_BYTES, maxMapSizeBytes),
    maxMapSizeBytes,
    maxDatabases: options.maxDatabases ?? DEFAULT_MAX_DATABASES,
    maxReaders: options.maxReaders ?? DEFAULT_MAX_READERS,
    durability: options.durability ?? 'sync',
    syncIntervalMs,
    checkpoint: options.checkpoint ?? DEFAULT_CHECKPOINT_POLICY,
    logWritesPerCommit,
    handoverTimeoutMs: options.handoverTimeoutMs ?? DEFAULT_HANDOVER_TIMEOUT_MS,
    readOnly: options.readOnly ?? false,
    fileMode: checkFileMode(options.fileMode),
    checkOnOpen: checkCheckOnOpen(options.checkOnOpen ?? 'unclean'),
    checkIntervalMs: options.checkIntervalMs ?? 0,
    faults: options.faults,
  };
}

function is32BitProcess(): boolean {
  return process.arch === 'arm' || process.arch === 'ia32';
}
