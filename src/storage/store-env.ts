/**
 * A Store's LMDB environment while it is open: the native env and its catalog, the map size, the
 * reader slot, and the native work that keeps the env alive after close().
 *
 * Reads reuse one reset LMDB read txn (mdb_txn_reset/renew), so a read costs two cheap native
 * calls. One reader slot per process. Dead processes' slots: LMDB clears its reader table when
 * the first process opens the folder; a process that ended without closing (kill -9, OOM) while
 * another still has the folder open leaves its slot taken, and node-lmdb 0.10 does not bind
 * mdb_reader_check. So a writable open, and a write about to grow the map, sweep the table under
 * the writer lock (reader-table.ts): without it every crash of a restarting neighbour costs a
 * slot for good (READERS_FULL after maxReaders of them) and a slot caught mid-read pins its
 * snapshot, so the file grows with every write. lock.mdb stays open here until after the native
 * env closed: closing a descriptor of it would drop this process's fcntl pid lock. Hence also one
 * Store per folder per PROCESS, not per thread: node-lmdb shares one MDB_env per path across
 * worker threads, but its count of users is never raised (env.cpp increments a copy), so the
 * first thread to close closes it for all, and that thread's lock.mdb descriptor would drop the
 * pid lock the others' reads depend on.
 */
import { closeSync } from 'node:fs';
import { Database, invalidateHandles } from './database.js';
import { DatabaseRegistry } from './database-registry.js';
import { openEnv, sweepUnderWriterLock } from './env-open.js';
import type { LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import { readerCensus } from './reader-table.js';
import type { RedoLog } from './redo-log.js';
import { MDB_MAP_RESIZED, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import type { ResolvedStoreOptions } from './store-options.js';
import type { LmdbReadTxn } from './txn.js';

/** What the open sequence (store-open.ts) hands the environment besides the env itself. */
export interface OpenedEnv {
  readonly env: LmdbEnv;
  readonly mainDbi: LmdbDbi;
  /** lock.mdb, or null when it could not be opened. */
  readonly lockFd: number | null;
  readonly staleReadersCleared: number;
  /** The folder LMDB opened: the store's, or a private copy of its data file (read-only-media.ts). */
  readonly envPath: string;
  /** Leaves this process's PID namespace marker (pid-namespace.ts) and removes a copy LMDB read. */
  readonly leaveNamespace: () => void;
  /** Renews the marker; called while the store is open. */
  readonly renewNamespace: () => void;
  readonly namespaceRenewalMs: number;
}

export class StoreEnv {
  /** LMDB's unnamed database, whose keys are the names of the named ones. */
  readonly catalog = new Database('(main)');
  readonly registry: DatabaseRegistry;
  /** Why the Store closed by itself, for every later call (see Store.closeAfterFailure). */
  failure: StorageError | null = null;
  /** env.batchWrite replays running (at most one): the map must not be resized meanwhile. */
  replaysInFlight = 0;
  /** Dead processes' slots this process cleared since it opened the store (reader-table.ts). */
  staleReadersCleared: number;
  /** The redo log whose read pins a resize must first let go of (durability 'log'), or null. */
  pinnedBy: () => RedoLog | null = () => null;
  private native: LmdbEnv | null;
  private mapSizeBytes: number;
  private idleReader: LmdbTxn | null = null;
  private lockFd: number | null;
  /** env.copy and env.batchWrite workers running; the native env closes when the last one ends. */
  private workers = 0;
  private nativeCloseDeferred = false;
  private pageSize: number | undefined;
  private leaveNamespace: (() => void) | null;
  private readonly envPath: string;
  private namespaceTimer: NodeJS.Timeout | null;

  constructor(
    readonly path: string,
    private readonly options: ResolvedStoreOptions,
    opened: OpenedEnv,
  ) {
    this.native = opened.env;
    this.registry = new DatabaseRegistry(opened.env);
    this.catalog.handle = opened.mainDbi;
    this.catalog.logName = new Uint8Array(0); // the main database, in redo log records
    this.mapSizeBytes = opened.env.info().mapSize;
    this.lockFd = opened.lockFd;
    this.staleReadersCleared = opened.staleReadersCleared;
    this.leaveNamespace = opened.leaveNamespace;
    this.envPath = opened.envPath;
    this.namespaceTimer = setInterval(opened.renewNamespace, opened.namespaceRenewalMs).unref();
  }

  get closed(): boolean {
    return this.native === null;
  }

  /** The open native env, or the reason it is not open. */
  checkOpen(): LmdbEnv {
    if (this.native === null) throw this.failure ?? new StorageError('CLOSED', `store ${this.path} is closed`);
    return this.native;
  }

  beginRead(): LmdbTxn {
    const idle = this.idleReader;
    if (idle !== null) {
      this.idleReader = null;
      try {
        idle.renew();
        return idle;
      } catch (err) {
        idle.abort();
        if (lmdbCode(err) !== MDB_MAP_RESIZED) throw toStorageError(err, 'begin read txn');
        this.adoptMapSize();
      }
    }
    return this.begin(true);
  }

  endRead(txn: LmdbReadTxn): void {
    txn.end();
    if (txn.openedHandle) {
      txn.native.commit(); // publishes the handles opened in it; the txn is gone
    } else if (this.idleReader === null && this.native !== null) {
      txn.native.reset();
      this.idleReader = txn.native;
    } else {
      txn.native.abort();
    }
  }

  /** Begins a txn; adopts the map size another process grew the store to (MDB_MAP_RESIZED). */
  begin(readOnly: boolean): LmdbTxn {
    const env = this.checkOpen();
    try {
      return env.beginTxn({ readOnly });
    } catch (err) {
      if (lmdbCode(err) !== MDB_MAP_RESIZED) throw toStorageError(err, 'begin txn');
    }
    this.adoptMapSize();
    try {
      return env.beginTxn({ readOnly });
    } catch (err) {
      throw toStorageError(err, 'begin txn');
    }
  }

  /** Doubles the map (a write found it full), up to maxMapSizeBytes. */
  grow(): void {
    const cap = this.options.maxMapSizeBytes;
    if (this.mapSizeBytes >= cap) {
      throw new StorageError(
        'MAP_FULL',
        `store ${this.path} is full: the map reached maxMapSizeBytes (${cap} bytes); the write was not applied`,
      );
    }
    // A dead process's slot caught mid-read pins its snapshot: free pages may be what it kept.
    if (this.lockFd !== null && this.replaysInFlight === 0) this.staleReadersCleared += sweepUnderWriterLock(this.checkOpen(), this.lockFd);
    this.resize(Math.min(cap, this.mapSizeBytes * 2));
  }

  /**
   * Grows the map (doubling, up to maxMapSizeBytes) until `pages` pages are free beyond its last
   * committed page. LMDB opens a store whose data outgrew the map size asked for with a map just
   * as large as the data, and reuses freed pages for a long while before a write finds it full:
   * until then no room is left to hold writes in (held-writes.ts).
   */
  makeRoom(pages: number): void {
    while (this.freePages() < pages && this.mapSizeBytes < this.options.maxMapSizeBytes) this.grow();
  }

  adoptMapSize(): void {
    this.resize(0); // 0 = the size recorded in the file by the process that grew it
  }

  private resize(bytes: number): void {
    const env = this.checkOpen();
    if (this.replaysInFlight > 0) {
      // LMDB must not remap while the worker's txn may be starting (mdb_env_set_mapsize).
      throw new StorageError('BUSY', `store ${this.path} needs a larger map, which cannot change while an asynchronous commit is in flight; retry the write`);
    }
    this.dropIdleReader(); // env.resize refuses while any txn object is alive
    // ...the redo log's pins included: a checkpoint on this thread first, so no pin is needed meanwhile.
    const redo = this.pinnedBy();
    if (redo?.pinned) redo.checkpointNow();
    try {
      env.resize(bytes);
    } catch (err) {
      throw toStorageError(err, 'resize map');
    } finally {
      redo?.repin();
    }
    this.mapSizeBytes = env.info().mapSize;
  }

  /** Pages of the map beyond its last committed page (a txn open now may have used some of them). */
  freePages(): number {
    const env = this.checkOpen();
    const info = env.info();
    const pageSize = (this.pageSize ??= env.stat().pageSize);
    return Math.floor(info.mapSize / pageSize) - (info.lastPageNumber + 1);
  }

  dropIdleReader(): void {
    const idle = this.idleReader;
    this.idleReader = null;
    idle?.abort();
  }

  /**
   * Closes the native env and opens it again with or without MDB_NOSYNC (node-lmdb cannot change
   * an open env's flags). Handles reopen on first use. Closing drops this process's fcntl locks
   * on lock.mdb with LMDB's descriptor; LMDB takes them again as it opens.
   */
  reopen(logging: boolean): void {
    const old = this.checkOpen();
    this.dropIdleReader();
    invalidateHandles();
    this.catalog.handle = null;
    this.native = null;
    old.close();
    const env = openEnv(this.envPath, this.options, this.mapSizeBytes, logging);
    this.native = env;
    this.registry.env = env;
    this.catalog.handle = env.openDbi({ name: null, create: false, keyIsBuffer: true });
    this.mapSizeBytes = env.info().mapSize;
  }

  /** Live and stale reader slots as lock.mdb has them (null when it cannot be read). */
  readerCensus(): ReturnType<typeof readerCensus> | null {
    return this.lockFd === null ? null : readerCensus(this.lockFd);
  }

  /**
   * Native work on the thread pool that needs the env (a copy, a replay) begins: a close()
   * meanwhile leaves the native env open until the last of them ended (endNativeWork).
   */
  beginNativeWork(): LmdbEnv {
    const env = this.checkOpen();
    this.workers += 1;
    return env;
  }

  endNativeWork(env: LmdbEnv): void {
    this.workers -= 1;
    if (this.nativeCloseDeferred && this.workers === 0) this.closeNative(env);
  }

  /** Native work that may hold the env is running: map size and log ownership must not change. */
  get nativeWorkRunning(): boolean {
    return this.workers > 0 || this.replaysInFlight > 0;
  }

  /** The Store closes: handles die with the env, which closes now or when its last native work ends. */
  close(): void {
    const env = this.native;
    if (env === null) return;
    this.dropIdleReader();
    this.registry.forgetAll();
    this.catalog.handle = null;
    this.native = null;
    if (this.workers > 0) this.nativeCloseDeferred = true;
    else this.closeNative(env);
  }

  /** After the native env was lost (a reopen that failed): lets go of what the env would have. */
  releaseWithoutEnv(): void {
    if (this.lockFd !== null) closeSync(this.lockFd);
    this.lockFd = null;
    this.leavePidNamespace();
  }

  private closeNative(env: LmdbEnv): void {
    this.nativeCloseDeferred = false;
    env.close();
    if (this.lockFd !== null) closeSync(this.lockFd); // only now: see "Dead processes' slots"
    this.lockFd = null;
    this.leavePidNamespace(); // only now: until here this process holds a reader slot
  }

  private leavePidNamespace(): void {
    if (this.namespaceTimer !== null) clearInterval(this.namespaceTimer);
    this.namespaceTimer = null;
    this.leaveNamespace?.();
    this.leaveNamespace = null;
  }
}
