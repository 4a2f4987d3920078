/**
 * One LMDB environment in one folder, as bytes in named databases, through callback txns.
 *
 * Txn rules:
 * - read(fn) and write(fn) run fn synchronously inside one txn; nothing stays open after they
 *   return, so another process (e.g. `edgetable sync`) can open the same folder at any time.
 * - write(fn) commits when fn returns and aborts when it throws, rethrowing. With durability
 *   'sync' the commit is on disk when write() returns.
 * - write(fn) may run fn MORE THAN ONCE: when the map is full, the txn is aborted, the map grows
 *   (doubling, up to maxMapSizeBytes) and fn re-runs from the start on a fresh txn. fn must
 *   therefore have no effects outside the txn, or effects that are safe to repeat. Past the cap
 *   write() throws StorageError('MAP_FULL') and nothing of fn was written.
 * - read() inside write() runs on the write txn (it sees the txn's own writes); read() inside
 *   read() shares the outer txn. write() inside read() or inside write() throws
 *   StorageError('BUSY'): LMDB allows one writer and the map cannot grow under a live reader.
 * - fn must not return a promise: an LMDB txn cannot span an await.
 *
 * Group writes: writeGroup(fn) opens ONE write txn and, while fn runs, every write(inner) made
 * inside it JOINS that txn: inner runs on the group's txn, commits nothing, and its writes become
 * part of the group; the group commits once when fn returns (one fsync for all of them). Contract:
 * - An inner write that throws must have written nothing. The engine's item operations hold to
 *   this: they validate and plan everything (condition, update, item size, every index key)
 *   before their first put, so a ConditionalCheckFailed or Validation error inside a group leaves
 *   no partial state and fn may catch it and go on. The store enforces the contract: when an
 *   inner write throws after a put, delete or clear, the txn is poisoned and the whole group
 *   aborts with StorageError('BUSY') (cause: the inner error); nothing of the group is written.
 * - A StorageError (IO, TXN_FULL...) thrown by an inner write fails the group: it aborts and
 *   writeGroup rethrows that error, even if fn caught it.
 * - MAP_FULL re-runs the WHOLE group fn on a fresh txn, as for write(); so must its inner writes.
 * - writeGroup() inside writeGroup() joins too; writeGroup() inside write() or read() throws BUSY.
 * stats().commits counts the write txns this Store committed: a group counts once.
 *
 * Flushes (what survives a power cut; proven by `npm run torture -- --power-cut`). LMDB's commit
 * writes the txn's pages, flushes them (fdatasync) and only then writes the meta page that makes
 * the txn the store's state, so a meta page never reaches the disk before the pages it points to:
 * a power cut can only lose commits whose meta page was not flushed yet (the store reopens whole
 * at an earlier commit), never corrupt the file. How the meta page is flushed is the durability:
 * - 'sync': by LMDB itself, inside the commit, through its O_DSYNC descriptor (LMDB's default
 *   mode): a commit is durable when it returns, wherever it ran: write() on this thread, or an
 *   asynchronous commit's replay on a libuv worker, which then needs no second trip to the thread
 *   pool for a separate flush. Two flushes per commit.
 * - 'relaxed': the env is opened with MDB_NOMETASYNC, so the commit writes the meta page without
 *   flushing it; the next commit's data flush, the syncIntervalMs timer, sync() or close() does.
 *   One flush per commit.
 * - 'log': the env is opened with MDB_NOSYNC and every changing write txn's changes are appended
 *   to the redo log and flushed BEFORE LMDB commits it (redo-log.ts): one flush of one sequential
 *   append per commit, and nothing a reader sees is less durable than the log. Checkpoints flush
 *   data.mdb on the thread pool behind the commits; a read txn pins the last durable checkpoint's
 *   pages, so after a power cut the next open writes its meta page back and replays the log. One
 *   process logs at a time (redo.owner); it hands the folder over to another writer and logs again
 *   once alone (redo-handover.ts, reconsiderLogging). writeAsync records fn (as below), appends and flushes
 *   the record on the thread pool, then applies it on this thread without a flush.
 *
 * Held writes ('log' with logWritesPerCommit > 1; docs/performance.md, "The write txn as the
 * staging level"): a logged write of the synchronous API, once its record is flushed, leaves its
 * native txn open instead of committing it, and the next such write goes on in it. The write is
 * durable when it returns (its record), its afterCommit callbacks run then, and this process's
 * reads see it (read() reads through the held txn); LMDB commits the txn after that many writes
 * or HELD_MAX_PAYLOAD_BYTES of records, when the event loop turns (setImmediate), and before
 * anything that needs LMDB's committed state or a txn of its own: another kind of write
 * (db.promises, an apply), a checkpoint (only after a commit), a handover, sync(), copyTo(),
 * stats(), close(). Pages the txn dirtied are written over
 * in memory, so K writes to the same leaves, branches and free-page records write them once. A
 * write that fails inside it (fn throws, MAP_FULL, its log flush fails) cannot abort alone (no
 * nested txns in node-lmdb): the txn aborts and the writes held before it are applied again from
 * their records and committed at once (settleHeld), before any checkpoint could retire the log
 * file that holds them. Other processes see held writes when the txn commits.
 *
 * Asynchronous commits: writeAsync(fn) (db.promises' group commit, see ops/commit-queue.ts) keeps
 * every flush off the main thread. fn runs as a writeGroup in a real LMDB write txn on this
 * thread, which records its puts and deletes (so every read, cursor and count in fn sees fn's own
 * writes exactly as in any write txn) and is then ABORTED: no page is written on this thread. The
 * recorded changes are replayed by batch-commit.ts as one txn on a libuv worker (begin, changes,
 * commit with both its flushes in 'sync' durability), conditional on the store-wide write
 * sequence still being the value fn's txn saw; in 'relaxed' durability sync() then flushes the
 * meta page on the thread pool. Contract:
 * - The promise resolves with fn's result only once the changes are durable: one trip to the
 *   thread pool for a lone write in 'sync' durability. It rejects with fn's error (nothing
 *   written) or a StorageError (nothing written, or for a failed final flush: committed but not
 *   known to be on disk).
 * - fn may run several times (as for write()): when another commit (this process's synchronous
 *   write txns, another process) came between the recording and the replay, the replay applies
 *   nothing and fn re-runs on the new state; also after map growth. After MAX_REPLAY_CONFLICTS
 *   conflicts, and when fn did something a replay cannot express (it created or dropped a
 *   database, or cleared one), fn runs once more in an ordinary write txn committed on this
 *   thread (its flushes then do run here: both in 'sync' durability; the data flush in
 *   'relaxed', then sync()).
 * - One writeAsync at a time per store: fn runs at once (in the caller's turn) when none is
 *   pending, else after the previous one settled, so fn never runs while a replay is in flight
 *   (its write txn would wait on this thread for the worker's commit). A synchronous write() made
 *   meanwhile does wait for it (LMDB has one writer lock), and if it commits before the worker's
 *   txn began, the replay finds the sequence moved and fn re-runs.
 * - While a replay is in flight the map cannot be resized: a write() that finds the map full then
 *   throws StorageError('BUSY') instead of growing it (retrying succeeds once the replay ended).
 * - close() while a replay is in flight lets it finish and flush; the native env closes after.
 *
 * Reads reuse one reset LMDB read txn (mdb_txn_reset/renew), so read() costs two cheap native
 * calls plus fn. This store uses one reader slot per process. Dead processes' slots: LMDB clears
 * its reader table when the first process opens the folder; a process that ended without closing
 * (kill -9, OOM) while another still has the folder open leaves its slot taken, and node-lmdb 0.10
 * does not bind mdb_reader_check. So a writable open, and a write about to grow the map, sweep the
 * table under the writer lock (reader-table.ts): without it every crash of a restarting neighbour
 * costs a slot for good (READERS_FULL after maxReaders of them) and a slot caught mid-read pins
 * its snapshot, so the file grows with every write. lock.mdb stays open here until after the
 * native env closed: closing a descriptor of it would drop this process's fcntl pid lock. Hence
 * also one Store per folder per PROCESS, not per thread: node-lmdb shares one MDB_env per path
 * across worker threads, but its count of users is never raised (env.cpp increments a copy), so
 * the first thread to close closes it for all, and that thread's lock.mdb descriptor would drop
 * the pid lock the others' reads depend on.
 */
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, statSync } from 'node:fs';
import { PID_NAMESPACE_LEASE_MS, currentPidNamespace, joinPidNamespace } from './pid-namespace.js';
import { prepareStoreFolder, settleCreatedFile, settleFileModes } from './file-modes.js';
import { readerCensus } from './reader-table.js';
import { join, resolve } from 'node:path';
import { Database, checkDatabaseName, invalidateHandles } from './database.js';
import { DatabaseRegistry } from './database-registry.js';
import { checkDataFileNotEmptied, checkDataFileNotTruncated } from './data-file-check.js';
import { checkBeforeOpen } from './open-check.js';
import { markOpen, unmarkOpen } from './open-marks.js';
import { startPeriodicCheck } from './periodic-check.js';
import { explainDiskFull } from './disk-space.js';
import { type LmdbDbi, type LmdbEnv, type LmdbTxn } from './lmdb-binding.js';
import { resolveStoreOptions, type ResolvedStoreOptions, type StoreOptions } from './store-options.js';
import { MDB_MAP_FULL, MDB_MAP_RESIZED, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import { LmdbReadTxn, LmdbWriteTxn, type ReadTxn, type RecordedChange, type TxnHost, type WriteTxn } from './txn.js';
import type { RecordRef } from './redo-log.js';
import { replayChanges, type ReplayOutcome } from './batch-commit.js';
import { WRITE_SEQUENCE_KEY, isWriteSequenceKey, nextWriteSequence } from './write-sequence.js';
import { STORE_FORMAT_KEY, StoreFormatError, TEXT_VALUES_KEY, TEXT_VALUES_STORE_FORMAT, decodeStoreFormat, encodeStoreFormat, isSupportedStoreFormat } from './store-format.js';
import { TEXT_READS_SUPPORTED, TextValues, isTextValue } from './text-values.js';
import { ChangeWriter, currentBootId, decodeChanges } from './redo-log-file.js';
import { RedoLog, prepareRecovery, readRecoveryPlan, sequenceOf } from './redo-log.js';
import { InFlight } from './in-flight.js';
import { HeldPayloads } from './held-payloads.js';
import { relogApplied, settleLoggedWrite, settledAtReopen } from './redo-log-failure.js';
import { otherWriters, registerWriter, releaseOwner, tryClaimOwner, unregisterWriter, watchWriters } from './redo-handover.js';
import { CountingWriteTxn } from './counting-write-txn.js';
import { HELD_MARGIN_PAGES, HELD_MAX_PAYLOAD_BYTES, dirtiedPages, type HeldWrites } from './held-writes.js';
import { joinWriters, metaFlushedByCommit, openEnv, openLockFile, readFormat, sweepUnderWriterLock } from './env-open.js';

export { HELD_MAX_PAYLOAD_BYTES };

/** Replays of one writeAsync that may find another commit in between before it commits on this thread. */
export const MAX_REPLAY_CONFLICTS = 3;

/** What writeAsync's recording run of fn leaves behind (see "Asynchronous commits"). */
type Recording = { changes: RecordedChange[]; sequence: Uint8Array | undefined; opened: Database[]; unreplayable: string | null; committed: (() => void)[]; payload?: Uint8Array };

export interface StoreStats {
  path: string;
  mapSizeBytes: number;
  maxMapSizeBytes: number;
  /** Bytes of the map in use (last page + 1, free pages included). */
  usedBytes: number;
  pageSize: number;
  lastTxnId: number;
  /** Reader slots held by live processes that have the folder open (LMDB's high-water mark of slots when lock.mdb cannot be read). */
  readers: number;
  /** Slots still held by processes that ended without closing the store (a writable open or map growth clears them). */
  staleReaders: number;
  /** Stale slots this process cleared since it opened the store (reader-table.ts). */
  staleReadersCleared: number;
  maxReaders: number;
  /** Named databases in the store. */
  databases: number;
  /** Write txns committed by this Store since it was opened (a write group counts once). */
  commits: number;
  /** write() calls that joined a write group instead of committing on their own. */
  joinedWrites: number;
}

/** Folders open in this process: a second Env on one folder in one thread can deadlock LMDB. */
const openPaths = new Set<string>();

/** What an outermost txn is about to do, as Store.beforeTxn is told. */
export type TxnKind = 'write' | 'read' | 'range-read';

export class Store {
  readonly path: string;
  private env: LmdbEnv | null;
  private readonly options: ResolvedStoreOptions;
  private readonly registry: DatabaseRegistry;
  private readonly host: TxnHost;
  /** LMDB's unnamed database, whose keys are the names of the named ones. */
  private readonly catalog = new Database('(main)');
  private mapSizeBytes: number;
  private idleReader: LmdbTxn | null = null;
  private activeRead: LmdbReadTxn | null = null;
  private activeWrite: LmdbWriteTxn | null = null;
  /** True while activeWrite is a writeGroup's txn, which write() joins. */
  private grouping = false;
  private commits = 0;
  /** Told how long each commit (with its fsync when durable) and each sync() flush took; metrics/ sets it. */
  onFlush: ((kind: 'commit' | 'flush', seconds: number) => void) | undefined;
  /** Called before each outermost read and write txn begins; open() sets it (young-generation.ts). Must be cheap. */
  beforeTxn: ((kind: TxnKind) => void) | undefined;
  private joinedWrites = 0;
  /** Puts, deletes and clears made by joined writes of the current group. */
  private groupChanges = 0;
  private syncTimer: NodeJS.Timeout | null = null;
  /** data.mdb opened by this process for the commit's meta-page flush (null when read-only). */
  private flushFd: number | null;
  /** 'sync' durability (and 'log' while handed over): LMDB flushes each commit's meta page itself (see "Flushes" in the header). */
  private metaFlushedByCommit: boolean;
  private unsynced = false;
  private flushes = 0;
  /** sync() flushes running on flushFd; close() leaves the descriptor to the last of them. */
  private fdUsers = 0;
  /** env.copy and env.batchWrite workers running; the native env closes when the last one ends. */
  private syncsInFlight = 0;
  /** env.batchWrite replays running (at most one): the map must not be resized meanwhile. */
  private replaysInFlight = 0;
  /** The last writeAsync call's settlement: the next one starts after it (one at a time). */
  private asyncTail: Promise<unknown> = Promise.resolve();
  private asyncPending = 0;
  /** Asynchronous commits: replays that applied, and replays that found another commit first. */
  private replays = { committed: 0, conflicts: 0, onThisThread: 0 };
  private nativeCloseDeferred = false;
  /** Work on the thread pool that holds the native env or a descriptor of the folder (released()). */
  private readonly work = new InFlight();
  /** Redo logs this store closed (at close() or a handover) whose flushes may still be running. */
  private readonly retiredLogs = new Set<RedoLog>();
  /** lock.mdb, open until after the native env closed (see "Dead processes' slots" above); null if it could not be opened. */
  private lockFd: number | null = null;
  private staleReadersCleared = 0;
  /** afterCommit callbacks of txns committed while a replay was in flight (see afterCommit). */
  private readonly heldCallbacks: (() => void)[] = [];
  private storeFormat = 1;
  /** The text-values marker (store-format.ts) as read at open or committed by this process since. */
  private textValuesMarked = false;
  /** Scratch readers of text values lent to txns (text-values.ts); a few, reused. */
  private readonly textPool: TextValues[] = [];
  /**
   * The write sequence as this process's last committed changing txn left it: a write txn that
   * finds another value follows another process's commit and re-checks the format. Set only after
   * a commit: an aborted txn's next value may well be the one another process commits.
   */
  private knownSequence: Uint8Array | undefined = undefined;
  /** Durability 'log': the redo log every changing write txn is appended to and flushed through (redo-log.ts). */
  private redo: RedoLog | null = null;
  /** Durability 'log': the write txn held open across logged writes (see "Held writes"), or null. */
  private held: HeldWrites | null = null;
  /** Held writes whose commit failed and could not be applied again yet (a full disk): applyHeldAgain. */
  private unapplied: HeldWrites | null = null;
  /** The held writes' log records (see "Held writes"), one buffer reused from held txn to held txn. */
  private readonly heldPayloads = new HeldPayloads(HELD_MAX_PAYLOAD_BYTES);
  /** A setImmediate is queued that commits whatever is held when the event loop turns. */
  private heldTurnPending = false;
  private pageSize: number | undefined;
  /** The current write txn's redo record, reused from txn to txn. */
  private readonly logWriter = new ChangeWriter();
  /** Why the Store closed by itself (closeAfterFailure), for every later call. */
  private failure: StorageError | null = null;
  /** Registered as a writer beside a logging process (redo-handover.ts): commits as 'sync' does. */
  private registered = false;
  /** Durability 'log': the folder's mtime when this process last looked for other writers (noticeWriters). */
  private folderMtime = 0;
  /** Durability 'log': stops watching for other writers (redo-handover.ts). */
  private stopWatching: (() => void) | null = null;
  /** This process's PID namespace marker (pid-namespace.ts): renewed while open, removed at close. */
  private leaveNamespace: (() => void) | null = null;
  private namespaceTimer: NodeJS.Timeout | null = null;

  private constructor(path: string, env: LmdbEnv, mainDbi: LmdbDbi, options: ResolvedStoreOptions, flushFd: number | null) {
    this.path = path;
    this.flushFd = flushFd;
    this.env = env;
    this.options = options;
    this.metaFlushedByCommit = metaFlushedByCommit(options);
    this.registry = new DatabaseRegistry(env);
    this.catalog.handle = mainDbi;
    this.catalog.logName = new Uint8Array(0); // the main database, in redo log records
    this.mapSizeBytes = env.info().mapSize;
    const registry = this.registry;
    const store = this;
    this.host = {
      get env() {
        return store.checkOpen();
      },
      faults: options.faults,
      openHandle: (db, txn) => registry.openHandle(db, txn),
      get textReads() {
        return store.textReads;
      },
      takeTextValues: () => store.textPool.pop() ?? new TextValues(),
      giveTextValues: (reader) => {
        if (store.textPool.length < 8) store.textPool.push(reader);
      },
      beforeTextPut: (txn, db, value) => store.beforeTextPut(txn, db, value),
    };
    if (options.durability === 'relaxed' && !options.readOnly) {
      this.syncTimer = setInterval(() => {
        if (this.unsynced) this.sync().catch(() => undefined);
      }, options.syncIntervalMs);
      this.syncTimer.unref();
    }
  }

  /** The store format (store-format.ts) as read at open, or as raised by this process since (once committed). */
  get format(): number {
    return this.storeFormat;
  }

  /**
   * Raises the store format to `version` inside `txn` (a write txn of this store, which may be a
   * group's or a recording one) unless the store already has it or a higher one supported here.
   * Call it in the txn that writes the first value needing `version`: the marker then commits
   * with that value or not at all. Costs one get when the format is already high enough.
   */
  raiseFormat(txn: WriteTxn, version: number): void {
    if (!isSupportedStoreFormat(version)) throw new StorageError('INVALID', `store format ${version} is not one this build writes`);
    const stored = decodeStoreFormat(txn.get(this.catalog, STORE_FORMAT_KEY));
    if (!isSupportedStoreFormat(stored)) throw new StoreFormatError(this.path, stored);
    if (stored >= version) {
      // Raised by another process since this one opened (or earlier in this txn): take it in.
      txn.afterCommit(() => {
        this.storeFormat = Math.max(this.storeFormat, stored);
      });
      return;
    }
    txn.put(this.catalog, STORE_FORMAT_KEY, encodeStoreFormat(version));
    txn.afterCommit(() => {
      this.storeFormat = Math.max(this.storeFormat, version);
    });
  }

  /**
   * Whether databases declared with `textValues` are read as text (text-values.ts): the store
   * holds the text-values marker (every value of theirs is a text value) and this host reads
   * text back byte for byte.
   */
  get textReads(): boolean {
    return this.textValuesMarked && TEXT_READS_SUPPORTED;
  }

  /** Whether the store holds the text-values marker (store-format.ts), as this process last saw it. */
  get hasTextValuesMarker(): boolean {
    return this.textValuesMarked;
  }

  /**
   * Records in `txn` that every value of every database declared `textValues` is a text value
   * (table/text-records.ts calls it once it made them so); reads take the text path once it
   * commits. Raises the store format to TEXT_VALUES_STORE_FORMAT in the same txn.
   */
  markTextValues(txn: WriteTxn): void {
    this.raiseFormat(txn, TEXT_VALUES_STORE_FORMAT);
    txn.put(this.catalog, TEXT_VALUES_KEY, new Uint8Array([1]));
    txn.afterCommit(() => {
      this.textValuesMarked = true;
    });
  }

  /**
   * A put into a text database: a text value raises the store format first (builds before format
   * 3 would misread it), and once the marker promises text values only, anything else is refused.
   */
  private beforeTextPut(txn: LmdbWriteTxn, db: Database, value: Uint8Array): void {
    if (!isTextValue(value)) {
      if (this.textValuesMarked) throw new StorageError('INVALID', `put into ${db.name}: the value is not a text value (even length, ending in two zero bytes), which this store promises its text databases hold`);
      return;
    }
    if (this.storeFormat < TEXT_VALUES_STORE_FORMAT) this.raiseFormat(txn, TEXT_VALUES_STORE_FORMAT);
  }

  /** True when the store was opened read-only: write() throws. */
  get readOnly(): boolean {
    return this.options.readOnly;
  }

  /** Opens (creating the folder and files on first use) the store at options.path. */
  static open(options: StoreOptions): Store {
    const resolved = resolveStoreOptions(options);
    const path = resolve(resolved.path);
    if (openPaths.has(path)) throw new StorageError('BUSY', `store ${path} is already open in this process`);
    if (!resolved.readOnly) prepareStoreFolder(path, resolved.fileMode);
    checkDataFileNotEmptied(path);
    const namespace = joinPidNamespace(path, currentPidNamespace());
    let joined: { logging: boolean; registered: boolean };
    try {
      joined = resolved.readOnly ? { logging: false, registered: false } : joinWriters(path, resolved);
    } catch (err) {
      namespace.leave();
      throw err;
    }
    const { logging, registered } = joined;
    let recovery: ReturnType<typeof prepareRecovery>;
    try {
      recovery = prepareRecovery(path, resolved.readOnly, logging, resolved.handoverTimeoutMs);
    } catch (err) {
      if (logging) releaseOwner(path);
      if (registered) unregisterWriter(path);
      namespace.leave();
      throw err;
    }
    const unregister = (): void => {
      recovery.release();
      if (registered) unregisterWriter(path);
      namespace.leave();
    };
    let env: LmdbEnv;
    let mainDbi: LmdbDbi;
    try {
      // After recovery put the checkpoint's meta page back: a 'log' store's newest meta may name
      // pages a power cut never let reach the card, which only the redo log's replay makes whole.
      checkBeforeOpen(path, resolved.checkOnOpen);
    } catch (err) {
      unregister();
      throw err;
    }
    try {
      env = openEnv(path, resolved, resolved.mapSizeBytes, logging);
    } catch (err) {
      unregister();
      throw toStorageError(err, `open store ${path}`);
    }
    try {
      checkDataFileNotTruncated(env, path);
    } catch (err) {
      env.close();
      unregister();
      throw err;
    }
    if (!resolved.readOnly) {
      try {
        settleFileModes(path, ['data.mdb', 'lock.mdb']);
      } catch (err) {
        env.close();
        unregister();
        throw err;
      }
    }
    const lockFd = openLockFile(path, resolved.readOnly);
    const closeEnv = (): void => {
      env.close();
      if (lockFd !== null) closeSync(lockFd); // only now: see "Dead processes' slots"
      unregister();
    };
    // Before the first txn that needs a reader slot, which a full table of dead slots would refuse.
    const cleared = resolved.readOnly || lockFd === null ? 0 : sweepUnderWriterLock(env, lockFd);
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
    if (!resolved.readOnly) {
      try {
        flushFd = openSync(join(path, 'data.mdb'), 'r+');
        redo = recovery.finish(env, mainDbi, resolved);
      } catch (err) {
        if (flushFd !== null) closeSync(flushFd);
        closeEnv();
        throw toStorageError(err, `open store ${path}`);
      }
    }
    openPaths.add(path);
    const store = new Store(path, env, mainDbi, resolved, flushFd);
    store.redo = redo;
    if (redo !== null) redo.faults = resolved.faults;
    store.registered = registered;
    if (registered && resolved.durability === 'log') store.metaFlushedByCommit = true; // handed over: as 'sync' until alone
    if (resolved.durability === 'log' && !resolved.readOnly) store.stopWatching = watchWriters(path, () => store.reconsiderLogging());
    store.storeFormat = format;
    store.textValuesMarked = textValues;
    store.lockFd = lockFd;
    store.staleReadersCleared = cleared;
    store.leaveNamespace = namespace.leave;
    store.namespaceTimer = setInterval(namespace.renew, PID_NAMESPACE_LEASE_MS / 3).unref();
    markOpen(path);
    startPeriodicCheck(store, resolved.checkIntervalMs); // ends with the store
    return store;
  }

  get closed(): boolean {
    return this.env === null;
  }

  /** Whether this process commits through the redo log now ('log', and no other writer registered). */
  get logging(): boolean {
    return this.redo !== null;
  }

  /**
   * Durability 'log', when a writer registers or goes (redo-handover.ts): hands the folder over
   * while another writer is registered, takes the log back up once none is. Only between txns,
   * with no native work in flight (the poll comes back otherwise).
   */
  private reconsiderLogging(): void {
    if (this.env === null || this.activeRead !== null || this.activeWrite !== null) return;
    if (this.syncsInFlight > 0 || this.replaysInFlight > 0) return;
    const bootId = currentBootId();
    // Called from the folder watcher and after commits: a failure to register or claim (a full
    // disk) must neither crash the process nor fail the write that just committed. Nothing has
    // changed then, and the next poll tries again; a half-done handover closes the Store instead.
    try {
      if (this.redo !== null) {
        if (otherWriters(this.path, bootId).length > 0) this.handOver(bootId);
      } else if (this.registered && otherWriters(this.path, bootId).length === 0) {
        this.takeLogBack(bootId);
      }
    } catch {
      /* retried at the next poll */
    }
  }

  /**
   * After a commit in durability 'log': a writer that registers changes the folder's mtime, so a
   * process that writes in a loop without yielding (its watcher never runs) still hands over
   * within one commit. One stat per commit.
   */
  private noticeWriters(): void {
    let mtime: number;
    try {
      mtime = statSync(this.path).mtimeMs;
    } catch {
      return;
    }
    if (mtime === this.folderMtime) return;
    this.folderMtime = mtime;
    this.reconsiderLogging();
  }

  /**
   * Another writer registered: close the log (data.mdb flushed, log files removed: every commit is
   * in data.mdb, durably), reopen LMDB with its durable commits, and only then drop the claim the
   * other writer waits on. Logged db.promises writes in flight re-run on the durable path.
   */
  private handOver(bootId: string): void {
    try {
      if (this.unapplied !== null) this.applyHeldAgain(this.unapplied, undefined);
      this.commitHeld();
    } catch {
      return; // held writes durable in the log only (a full disk): the handover waits until they are committed
    }
    const redo = this.redo!;
    registerWriter(this.path, bootId);
    this.registered = true;
    this.redo = null;
    try {
      this.retire(redo);
      this.reopenEnv(false);
    } catch (err) {
      // The log (if it could not be closed) stays for the next open to recover; this Store is done.
      this.closeAfterFailure(err, 'hand the folder over to another writer');
      return;
    }
    this.metaFlushedByCommit = true;
    releaseOwner(this.path);
  }

  /** No other writer is registered: claim the folder, check once more, and log again. */
  private takeLogBack(bootId: string): void {
    if (!tryClaimOwner(this.path, bootId)) return;
    if (otherWriters(this.path, bootId).length > 0) {
      releaseOwner(this.path);
      return;
    }
    try {
      this.reopenEnv(true);
      this.redo = RedoLog.start(this.path, this.env!, this.catalog.handle!, readRecoveryPlan(this.path, bootId), this.options.checkpoint);
      this.redo.faults = this.options.faults;
    } catch (err) {
      this.closeAfterFailure(err, 'take the redo log back up');
      return;
    }
    unregisterWriter(this.path);
    this.registered = false;
  }

  /**
   * Closes the native env and opens it again with or without MDB_NOSYNC (node-lmdb cannot change
   * an open env's flags). Handles reopen on first use. Closing drops this process's fcntl locks
   * on lock.mdb with LMDB's descriptor; LMDB takes them again as it opens.
   */
  private reopenEnv(logging: boolean): void {
    const old = this.checkOpen();
    this.dropIdleReader();
    invalidateHandles();
    this.catalog.handle = null;
    this.env = null;
    old.close();
    const env = openEnv(this.path, this.options, this.mapSizeBytes, logging);
    this.env = env;
    this.registry.env = env;
    this.catalog.handle = env.openDbi({ name: null, create: false, keyIsBuffer: true });
    this.mapSizeBytes = env.info().mapSize;
    this.metaFlushedByCommit = !logging; // only 'log' stores reopen: handed over, they commit as 'sync' does
  }

  /**
   * A handover that failed half-way: the Store closes (every later call says why) and lets the
   * folder go; a log it could not close stays for the next writable open to recover.
   */
  private closeAfterFailure(err: unknown, what: string): void {
    this.failure = new StorageError('IO', `store ${this.path}: could not ${what} (${(err as Error).message}); the store was closed: reopen it`, { cause: err });
    this.redo = null;
    if (this.env !== null) {
      try {
        this.close();
      } catch {
        /* closing what is left */
      }
    } else {
      // The native env is gone already (the reopen failed).
      this.stopWatching?.();
      this.stopWatching = null;
      this.leavePidNamespace();
      if (this.flushFd !== null && this.fdUsers === 0) closeSync(this.flushFd);
      this.flushFd = null;
      if (this.lockFd !== null) closeSync(this.lockFd);
      this.lockFd = null;
      openPaths.delete(this.path);
    }
    if (this.registered) unregisterWriter(this.path);
    this.registered = false;
    releaseOwner(this.path);
  }

  /**
   * The named database `name` (1-511 UTF-8 bytes), created if missing. Outside a txn it is
   * created in its own write txn; inside write() it is created in that txn (and vanishes if the
   * txn aborts); inside read() it must already exist (else StorageError('NOT_FOUND')).
   * A Database belongs to the store that returned it. `textValues`: every value put into it is a
   * text value (text-values.ts), so it can be read without Buffers once the store is marked
   * (markTextValues); a declaration for the store's life, made by every caller that writes it.
   */
  database(name: string, options?: { readonly textValues?: boolean }): Database {
    this.checkOpen();
    const db = this.registry.get(name);
    if (options?.textValues === true) db.textValues = true;
    if (db.handle !== null) return db;
    const txn = this.activeWrite ?? this.activeRead;
    if (txn !== null) this.registry.openHandle(db, txn);
    else if (this.options.readOnly) this.read((t) => this.registry.openHandle(db, t as LmdbReadTxn));
    else this.write((t) => this.registry.openHandle(db, t as LmdbWriteTxn));
    return db;
  }

  /** Whether the named database exists (as seen by the current txn, if any). */
  hasDatabase(name: string): boolean {
    checkDatabaseName(name);
    const key = Buffer.from(name, 'utf8');
    return this.read((txn) => txn.getCopy(this.catalog, key) !== undefined);
  }

  /** Names of the named databases starting with `prefix`, in byte order. */
  listDatabases(prefix = ''): string[] {
    const start = Buffer.from(prefix, 'utf8');
    return this.read((txn) => {
      const names: string[] = [];
      for (const { key } of txn.cursor(this.catalog, start.length > 0 ? { start } : {})) {
        if (isWriteSequenceKey(key)) continue;
        const name = Buffer.from(key.buffer, key.byteOffset, key.length);
        if (!name.subarray(0, start.length).equals(start)) break;
        names.push(name.toString('utf8'));
      }
      return names;
    });
  }

  /** Deletes the named database and its contents; false if it did not exist. Joins an active write txn. */
  dropDatabase(name: string): boolean {
    const db = this.registry.get(name);
    const key = Buffer.from(name, 'utf8');
    const drop = (txn: LmdbWriteTxn): boolean => {
      if (txn.getCopy(this.catalog, key) === undefined) return false;
      const handle = db.handle ?? this.registry.openHandle(db, txn);
      try {
        handle.drop({ txn: txn.native });
      } catch (err) {
        throw txn.failed(err, `drop database ${JSON.stringify(name)}`);
      }
      txn.changed = true;
      txn.log?.whole('drop', db.logName);
      txn.unreplayable ??= `drop database ${name}`;
      db.handle = null; // mdb_drop closed it, even if this txn later aborts
      return true;
    };
    if (this.activeWrite !== null) return drop(this.activeWrite);
    return this.write((txn) => drop(txn as LmdbWriteTxn));
  }

  /** `kind` 'range-read' says fn reads a page of many items (Query, Scan), for beforeTxn. */
  read<T>(fn: (txn: ReadTxn) => T, kind: 'read' | 'range-read' = 'read'): T {
    const outer = this.activeWrite ?? this.activeRead;
    if (outer !== null) return fn(outer);
    this.checkOpen();
    this.beforeTxn?.(kind);
    if (this.unapplied !== null) this.applyHeldAgain(this.unapplied, undefined);
    if (this.held !== null) return this.readHeld(fn);
    const txn = new LmdbReadTxn(this.host, this.beginRead(), false);
    this.activeRead = txn;
    try {
      return fn(txn);
    } finally {
      this.activeRead = null;
      this.endRead(txn);
    }
  }

  write<T>(fn: (txn: WriteTxn) => T): T {
    if (this.grouping && this.activeWrite !== null) return this.joinGroup(this.activeWrite, fn);
    return this.runWrite(fn, false, null);
  }

  /** One write txn shared by every write() made inside fn, committed once; see the header. */
  writeGroup<T>(fn: (txn: WriteTxn) => T): T {
    if (this.grouping && this.activeWrite !== null) return fn(this.activeWrite);
    return this.runWrite(fn, true, null);
  }

  /**
   * fn as a writeGroup whose commit and flushes all run off the main thread; resolves when its
   * changes are durable. See "Asynchronous commits" in the header.
   */
  writeAsync<T>(fn: (txn: WriteTxn) => T): Promise<T> {
    // When none is pending, fn runs now, in the caller's turn (as write() would); else after the last.
    const run = this.asyncPending === 0 ? this.writeAsyncNow(fn) : this.asyncTail.then(() => this.writeAsyncNow(fn));
    this.asyncPending += 1;
    const settled = run.then(
      () => void (this.asyncPending -= 1),
      () => void (this.asyncPending -= 1),
    );
    this.asyncTail = settled;
    return run;
  }

  /** Asynchronous commits since open: replays committed, replays that met another commit, fallbacks to this thread. */
  get asyncCommitStats(): { committed: number; conflicts: number; onThisThread: number } {
    return { ...this.replays };
  }

  private async writeAsyncNow<T>(fn: (txn: WriteTxn) => T): Promise<T> {
    if (this.redo !== null) return this.writeAsyncLogged(this.redo, fn);
    for (let conflicts = 0; ; ) {
      const recording: Recording = { changes: [], sequence: undefined, opened: [], unreplayable: null, committed: [] };
      const result = this.runWrite(fn, true, recording);
      const handlesOpen = this.reopenHandles(recording.opened);
      if (recording.unreplayable !== null || !handlesOpen || conflicts >= MAX_REPLAY_CONFLICTS) {
        this.replays.onThisThread += 1;
        const value = this.runWrite(fn, true, null);
        if (this.unsynced) await this.sync();
        return value;
      }
      if (recording.changes.length === 0) {
        if (this.unsynced) await this.sync(); // what fn read may be a commit not flushed yet
        return result;
      }
      this.options.faults?.betweenRecordAndReplay?.();
      const outcome = await this.work.track(this.replay(recording));
      if (outcome === 'committed') {
        this.replays.committed += 1;
        if (this.unsynced && !this.closed) await this.sync(); // 'relaxed' (else replay() flushed it)
        return result;
      }
      if (outcome === 'conflict') {
        this.replays.conflicts += 1;
        conflicts += 1;
      } else if (outcome === 'map-full') {
        this.grow();
      } else {
        this.adoptMapSize();
      }
    }
  }

  /**
   * writeAsync with durability 'log': fn runs as a recording txn (aborted), its record is appended
   * and flushed on the thread pool (one flush for every write appended meanwhile), and only then
   * applied here, without a flush, if the write sequence is still the one fn saw. Another commit
   * in between (a synchronous write() of this process) makes the record void and fn re-runs.
   */
  private async writeAsyncLogged<T>(redo: RedoLog, fn: (txn: WriteTxn) => T): Promise<T> {
    for (let conflicts = 0; ; conflicts++) {
      // Handed over to another writer (redo-handover.ts) since: the log is gone, fn runs on the durable path.
      if (this.redo !== redo) return this.writeAsyncNow(fn);
      if (conflicts >= MAX_REPLAY_CONFLICTS) {
        this.replays.onThisThread += 1;
        return this.runWrite(fn, true, null);
      }
      const recording: Recording = { changes: [], sequence: undefined, opened: [], unreplayable: null, committed: [] };
      const result = this.runWrite(fn, true, recording);
      const payload = recording.payload;
      if (payload === undefined) return result; // nothing to write; what fn read is durable already
      const sequence = sequenceOf(nextWriteSequence(recording.sequence));
      let record = redo.append(sequence, payload);
      try {
        await redo.flush();
      } catch (err) {
        throw this.settleLogged(err);
      }
      if (this.failure !== null) throw settledAtReopen(this.failure, undefined); // closed by a failure: the log was kept, with this record
      if (this.closed) throw new StorageError('CLOSED', `store ${this.path} was closed before this write committed; nothing of it was written`);
      // Handed over to another writer meanwhile (redo-handover.ts): the log is gone; fn re-runs on the durable path.
      if (this.redo !== redo) return this.writeAsyncNow(fn);
      // Another write's flush that failed meanwhile: the new generation begins now, before the
      // apply (the apply's own recover() would retire this record's file after it committed), or
      // this write fails with nothing of it applied.
      // A checkpoint that began meanwhile will retire the file the record is in, without covering
      // this commit: the record goes into the current file too (the later copy wins on replay).
      try {
        redo.recover();
        if (!redo.isCurrent(record.file)) {
          record = redo.append(sequence, payload);
          redo.flushSync();
        }
      } catch (err) {
        throw this.settleLogged(err);
      }
      let applied: boolean;
      // Whether the record's file was still current when the apply committed: a checkpoint begun
      // after the commit covers it, one made inside the apply before it (map growth) does not.
      let coveredByLog = true;
      try {
        applied = this.runWrite((txn) => {
          coveredByLog = redo.isCurrent(record.file);
          return this.applyRecorded(txn as LmdbWriteTxn, recording, payload);
        }, true, null, false);
      } catch (err) {
        if (this.redo === redo) {
          try {
            redo.void(record, sequence);
            redo.flushSync();
          } catch (voidErr) {
            throw this.settleLogged(voidErr);
          }
        }
        throw err;
      }
      // The apply's commit may have handed the folder over (noticeWriters): its close flushed
      // data.mdb after this commit and removed the log, so nothing more is logged.
      const handedOver = this.redo !== redo;
      if (applied) {
        // Map growth inside the apply checkpoints on this thread, before this commit: log it again.
        if (!handedOver && !coveredByLog) relogApplied(redo, sequence, payload);
        this.replays.committed += 1;
        return result;
      }
      if (!handedOver) redo.void(record, sequence); // durable with the next flush; a later record with its sequence would win anyway
      this.replays.conflicts += 1;
    }
  }

  /** A logged write failed, its txn ended: its outcome made definite before its error is returned (redo-log-failure.ts). */
  private settleLogged(err: unknown): unknown {
    if (this.failure !== null) return settledAtReopen(this.failure, err); // closed by a failure: the log was kept
    return settleLoggedWrite(this.redo, err, {
      commitHeld: () => this.commitHeld(),
      closeStore: (cause) => {
        this.closeAfterFailure(cause, 'begin a new redo log generation after a failed flush');
        return this.failure!;
      },
    });
  }

  /** Applies a recorded txn's changes if the store is still at the write sequence it saw (see writeAsyncLogged). */
  private applyRecorded(txn: LmdbWriteTxn, recording: Recording, payload: Uint8Array): boolean {
    const now = txn.getCopy(this.catalog, WRITE_SEQUENCE_KEY);
    const then = recording.sequence;
    if ((now === undefined) !== (then === undefined) || (now !== undefined && Buffer.compare(now, then!) !== 0)) return false;
    this.applyChanges(txn, payload);
    for (const callback of recording.committed) txn.afterCommit(callback);
    return true;
  }

  /** Applies a log record's changes in `txn` (this store's activeWrite), as the write that logged them made them. */
  private applyChanges(txn: LmdbWriteTxn, payload: Uint8Array): void {
    for (const change of decodeChanges(payload)) {
      const db = change.db === '' ? this.catalog : this.registry.get(change.db);
      if (change.op === 'put') txn.put(db, change.key, change.value);
      else if (change.op === 'delete') txn.delete(db, change.key);
      else if (change.op === 'clear') txn.clear(db);
      else if (change.op === 'drop') this.dropDatabase(change.db);
      else if (db.handle === null) this.registry.openHandle(db, txn);
    }
  }

  /**
   * After a recording txn aborted, LMDB closed the handles it opened: reopen them in a read txn
   * so the replay can name them. False when one does not exist outside that txn (fn created it).
   */
  private reopenHandles(opened: readonly Database[]): boolean {
    if (opened.length === 0) return true;
    return this.read((txn) => {
      for (const db of opened) {
        if (db.handle !== null) continue;
        try {
          this.registry.openHandle(db, txn as LmdbReadTxn);
        } catch (err) {
          if (err instanceof StorageError && err.code === 'NOT_FOUND') return false;
          throw err;
        }
      }
      return true;
    });
  }

  /**
   * Runs one replay on a libuv worker (batch-commit.ts); counts it as a commit and its data flush.
   * It holds the native env and the flush descriptor: if close() comes meanwhile, both stay open
   * until the replay ended, and a committed replay is flushed here (sync() needs an open store).
   */
  private async replay(recording: Recording): Promise<ReplayOutcome> {
    const env = this.checkOpen();
    const fd = this.flushFd;
    if (fd === null) throw new StorageError('READ_ONLY', `store ${this.path} was opened read-only`);
    this.options.faults?.beforeCommit();
    const started = process.hrtime.bigint();
    this.replaysInFlight += 1;
    this.syncsInFlight += 1;
    this.fdUsers += 1;
    let outcome: ReplayOutcome;
    try {
      outcome = await replayChanges(env, this.catalog.handle!, recording.changes, recording.sequence);
    } catch (err) {
      this.releaseDescriptor(fd);
      throw err instanceof StorageError ? explainDiskFull(err, this.path) : err;
    } finally {
      this.replaysInFlight -= 1;
      this.syncsInFlight -= 1;
      if (this.nativeCloseDeferred && this.syncsInFlight === 0) this.closeNative(env);
      // The replay's callbacks when it committed, then those of the txns committed after it.
      this.afterCommit(outcome! === 'committed' ? recording.committed : [], true);
    }
    if (outcome === 'committed') {
      this.commits += 1;
      this.knownSequence = nextWriteSequence(recording.sequence); // what the replay wrote
      this.flushes += this.metaFlushedByCommit ? 2 : 1; // LMDB's flushes, on the worker
      this.onFlush?.('commit', Number(process.hrtime.bigint() - started) / 1e9);
      if (!this.metaFlushedByCommit) {
        if (this.env === null) {
          await this.flushDescriptor(fd); // closed meanwhile: its meta page is flushed here
          return outcome;
        }
        this.unsynced = true;
      }
    } else if (this.env === null) {
      this.releaseDescriptor(fd);
      throw new StorageError('CLOSED', `store ${this.path} was closed before this write committed; nothing of it was written`);
    }
    this.releaseDescriptor(fd);
    return outcome;
  }

  private releaseDescriptor(fd: number): void {
    this.fdUsers -= 1;
    if (this.flushFd === null && this.fdUsers === 0) closeSync(fd);
  }

  /** `logged` false: a redo-logged write's apply, whose record is already in the log (writeAsyncLogged). */
  private runWrite<T>(fn: (txn: WriteTxn) => T, group: boolean, recording: Recording | null, logged = true): T {
    this.checkOpen();
    if (this.options.readOnly) throw new StorageError('READ_ONLY', `store ${this.path} was opened read-only`);
    if (this.activeWrite !== null) throw new StorageError('BUSY', 'write() cannot be nested: use the outer write txn');
    if (this.activeRead !== null) throw new StorageError('BUSY', 'write() cannot run inside read()');
    this.beforeTxn?.('write');
    if (this.unapplied !== null) this.applyHeldAgain(this.unapplied, undefined);
    // Only the synchronous API's logged writes share the held txn; any other write commits it first.
    const holding = recording === null && logged && this.redo !== null && this.options.logWritesPerCommit > 1;
    if (!holding || this.redo?.failed) this.commitHeld();
    if (logged) this.redo?.recover(); // after a failed flush (a full disk): a new generation first, or this write fails
    // A write that finds the map full inside the held txn would take the held writes down with
    // it, and growing the map needs a checkpoint, which must not come before they are committed:
    // the held txn commits first while the map is short of room.
    if (holding && this.held !== null && !this.hasRoomToHold(this.held.pages)) this.commitHeld();
    for (;;) {
      const held = holding ? this.held : null;
      const txn = new LmdbWriteTxn(this.host, held?.native ?? this.beginWrite(), true);
      let sequence: Uint8Array | undefined;
      // A logged write's record is its log payload (writeAsyncLogged): no second copy of each change.
      if (this.redo !== null && logged) txn.log = this.logWriter.reset();
      else if (recording !== null) txn.recorded = [];
      this.activeWrite = txn;
      this.grouping = group;
      let result: T;
      try {
        result = fn(txn);
        if (isPromiseLike(result)) throw new StorageError('INVALID', 'write() callbacks must be synchronous');
        if (txn.broken !== null) throw txn.broken;
        if (recording !== null) {
          recording.changes = txn.recorded ?? [];
          recording.sequence = txn.getCopy(this.catalog, WRITE_SEQUENCE_KEY);
          if (txn.changed) this.checkFormatSince(txn, recording.sequence);
          recording.opened = [...txn.openedDatabases];
          recording.unreplayable = txn.unreplayable;
          recording.committed = txn.committed; // run by replay() if, and when, the replay commits
          if (txn.log !== null && txn.changed) recording.payload = Uint8Array.prototype.slice.call(txn.log.payload());
          this.endWrite(txn, false); // nothing of it is written here: batch-commit.ts replays it
          return result;
        }
        sequence = txn.changed ? this.bumpWriteSequence(txn) : undefined;
        this.options.faults?.beforeCommit();
      } catch (err) {
        if (held !== null) this.settleHeld(txn, held);
        else this.endWrite(txn, false);
        if (txn.mapFull) {
          this.grow();
          continue;
        }
        throw err;
      }
      const started = this.onFlush && process.hrtime.bigint();
      // Durability 'log': the record is durable before LMDB commits, so nothing a reader can see is less so.
      let record: RecordRef | undefined;
      if (txn.log !== null && sequence !== undefined) {
        try {
          record = this.redo!.append(sequenceOf(sequence), txn.log.payload());
          this.redo!.flushSync();
        } catch (err) {
          if (held !== null) this.settleHeld(txn, held);
          else this.endWrite(txn, false);
          const settled = this.settleLogged(err);
          throw settled instanceof StorageError ? explainDiskFull(settled, this.path) : settled;
        }
      }
      // A txn of its own is only held with room to spare: its commit must not find the map full.
      if (holding && (held !== null || (sequence !== undefined && this.hasRoomToHold(dirtiedPages(txn.log!))))) {
        this.hold(txn, held, sequence, started);
        return result;
      }
      try {
        this.endWrite(txn, true);
      } catch (err) {
        if (record !== undefined) {
          try {
            this.redo!.undo(record);
          } catch (undoErr) {
            throw this.settleLogged(undoErr);
          }
        }
        if (lmdbCode(err) === MDB_MAP_FULL) {
          this.grow();
          continue;
        }
        throw explainDiskFull(toStorageError(err, 'commit'), this.path);
      }
      this.commits += 1;
      // Only once committed: a sequence value of an aborted txn may be another process's next one.
      if (sequence !== undefined) this.knownSequence = sequence;
      if (started) this.onFlush?.('commit', Number(process.hrtime.bigint() - started) / 1e9);
      this.afterCommit(txn.committed);
      this.redo?.afterCommit();
      if (this.stopWatching !== null) this.noticeWriters();
      return result;
    }
  }

  /**
   * A logged write, durable by its record, stays in the held txn instead of committing (see "Held
   * writes"): its callbacks run now; LMDB commits after logWritesPerCommit writes, or when the
   * event loop turns. A write that changed nothing leaves the held txn as it was.
   */
  private hold(txn: LmdbWriteTxn, held: HeldWrites | null, sequence: Uint8Array | undefined, started: bigint | undefined): void {
    txn.end();
    this.activeWrite = null;
    this.grouping = false;
    const h = held ?? { native: txn.native, writes: 0, sequence: sequence!, openedDatabases: [], pages: 0 };
    if (held === null) {
      this.held = h;
      // One pending turn per store, not one per held txn: a loop that never yields would queue a
      // callback per txn, each keeping its txn's payloads alive until the loop ends.
      if (!this.heldTurnPending) {
        this.heldTurnPending = true;
        setImmediate(() => {
          this.heldTurnPending = false;
          try {
            this.commitHeld();
          } catch {
            /* the store closed itself (closeAfterFailure): every later call says why; the log has the writes */
          }
        });
      }
    }
    h.openedDatabases.push(...txn.openedDatabases);
    if (sequence !== undefined) {
      const payload = txn.log!.payload();
      h.writes += 1;
      h.pages += dirtiedPages(txn.log!);
      this.heldPayloads.append(payload);
      h.sequence = sequence;
      this.knownSequence = sequence;
    }
    if (started) this.onFlush?.('commit', Number(process.hrtime.bigint() - started) / 1e9);
    this.afterCommit(txn.committed);
    if (h.writes >= this.options.logWritesPerCommit || this.heldPayloads.byteLength >= HELD_MAX_PAYLOAD_BYTES) {
      try {
        this.commitHeld();
      } catch (err) {
        if (this.unapplied === null) throw err; // else this write is durable in the log and committed with them, later
      }
    }
    if (this.stopWatching !== null) this.noticeWriters();
  }

  /** Whether the map has room, beyond its last committed page, for twice `pages` (what a held txn dirtied, by dirtiedPages) and a margin. */
  private hasRoomToHold(pages: number): boolean {
    const info = this.env!.info();
    const pageSize = (this.pageSize ??= this.env!.stat().pageSize);
    return info.mapSize - (info.lastPageNumber + 1) * pageSize > (2 * pages + HELD_MARGIN_PAGES) * pageSize;
  }

  /** Commits the held txn, if there is one (see "Held writes"). */
  private commitHeld(): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    try {
      try {
        this.options.faults?.beforeHeldCommit();
      } catch (err) {
        held.native.abort(); // as LMDB does to a txn whose commit fails
        throw err;
      }
      held.native.commit();
    } catch (err) {
      // LMDB aborted it: the writes it held are durable in the log only.
      this.registry.forgetOpenedIn(held);
      this.applyHeldAgain(held, err);
      return;
    }
    this.heldPayloads.clear();
    this.commits += 1;
    this.redo?.afterCommit();
  }

  /**
   * A write in the held txn failed before it could be held (fn threw, the map was full, its log
   * flush failed): node-lmdb has no nested txns, so the txn aborts with it, and the writes held
   * before it are applied again from their records and committed, as a recovery would.
   */
  private settleHeld(txn: LmdbWriteTxn, held: HeldWrites): void {
    this.held = null;
    this.endWrite(txn, false);
    this.registry.forgetOpenedIn(held);
    this.applyHeldAgain(held, undefined);
  }

  /**
   * Applies held writes again in a txn of their own and commits it (no checkpoint may come
   * between: their records are the only durable copy). If that fails (a full disk) they stay
   * `unapplied`, and every read and write first tries again, failing until it succeeds.
   */
  private applyHeldAgain(held: HeldWrites, cause: unknown): void {
    this.unapplied = held;
    let txn: LmdbWriteTxn | null = null;
    try {
      txn = new LmdbWriteTxn(this.host, this.beginWrite(), true);
      this.activeWrite = txn;
      for (const payload of this.heldPayloads) this.applyChanges(txn, payload);
      txn.native.putBinary(this.catalog.handle!, WRITE_SEQUENCE_KEY, held.sequence);
      if (txn.broken !== null) throw txn.broken;
      const ending = txn;
      txn = null;
      this.endWrite(ending, true);
    } catch (err) {
      if (txn !== null) this.endWrite(txn, false);
      const why = `${cause === undefined ? '' : `after their commit failed (${(cause as Error).message}), `}they could not be committed again (${(err as Error).message})`;
      throw explainDiskFull(new StorageError('IO', `store ${this.path}: ${held.writes} acknowledged writes held in its write txn are durable in its redo log only: ${why}; every read and write commits them first, and fails until it can`, { cause: err }), this.path);
    }
    this.unapplied = null;
    this.heldPayloads.clear();
    this.commits += 1;
  }

  /** Reads through the held txn: this process sees its held writes. */
  private readHeld<T>(fn: (txn: ReadTxn) => T): T {
    const txn = new LmdbReadTxn(this.host, this.held!.native, false);
    this.activeRead = txn;
    try {
      return fn(txn);
    } finally {
      this.activeRead = null;
      txn.end();
      // A handle opened in the held txn lives only if it commits: commit it now.
      if (txn.openedHandle) this.commitHeld();
    }
  }

  /**
   * Runs a commit's afterCommit callbacks (txn.ts), in commit order: while a replay is in flight, a
   * txn committed on this thread meanwhile committed after it (LMDB's writer lock) or made it
   * conflict, so its callbacks wait until the replay settled and its own callbacks (if it
   * committed) ran.
   */
  private afterCommit(callbacks: readonly (() => void)[], replaySettled = false): void {
    if (!replaySettled && this.replaysInFlight > 0) {
      this.heldCallbacks.push(...callbacks);
      return;
    }
    const run = replaySettled ? [...callbacks, ...this.heldCallbacks.splice(0)] : callbacks;
    for (const fn of run) {
      try {
        fn();
      } catch {
        /* the commit happened; a callback's failure must not turn it into an error */
      }
    }
  }

  /**
   * The last change of every changing write txn (write-sequence.ts); not a counted put for the
   * fault seam. Checks the store format first if another process wrote since (checkFormatSince).
   * Returns the new sequence.
   */
  private bumpWriteSequence(txn: LmdbWriteTxn): Uint8Array {
    const main = this.catalog.handle!;
    let next: Uint8Array;
    try {
      const current = txn.native.getBinary(main, WRITE_SEQUENCE_KEY) ?? undefined;
      this.checkFormatSince(txn, current);
      next = nextWriteSequence(current);
      txn.native.putBinary(main, WRITE_SEQUENCE_KEY, next);
    } catch (err) {
      if (err instanceof StoreFormatError) throw err;
      throw txn.failed(err, 'bump the write sequence');
    }
    return next;
  }

  /**
   * A changing write txn that sees a write sequence other than the last one this process saw
   * follows another process's commit, which may have raised the store format (store-format.ts):
   * re-read it, and refuse (the txn aborts, nothing is written) a format this build does not know.
   * One byte comparison when no other process wrote; one get more when one did.
   */
  private checkFormatSince(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): void {
    const known = this.knownSequence;
    if (known !== undefined && sequence !== undefined && Buffer.compare(known, sequence) === 0) return;
    const format = decodeStoreFormat(txn.native.getBinary(this.catalog.handle!, STORE_FORMAT_KEY));
    if (!isSupportedStoreFormat(format)) throw new StoreFormatError(this.path, format);
    // Raised by another process (committed: it never goes down), so `format` reports it at once.
    if (format > this.storeFormat) this.storeFormat = format;
    // Another process marked the text values (committed: this txn sees it); the marker never goes.
    if (!this.textValuesMarked && txn.native.getBinary(this.catalog.handle!, TEXT_VALUES_KEY) !== null) this.textValuesMarked = true;
  }

  /** Runs a write() made inside a group on the group's txn; poisons the group if it fails half-done. */
  private joinGroup<T>(txn: LmdbWriteTxn, fn: (txn: WriteTxn) => T): T {
    this.joinedWrites += 1;
    const before = this.groupChanges;
    const counted = new CountingWriteTxn(txn, () => {
      this.groupChanges += 1;
    });
    try {
      const result = fn(counted);
      if (isPromiseLike(result)) throw new StorageError('INVALID', 'write() callbacks must be synchronous');
      return result;
    } catch (err) {
      if (err instanceof StorageError) {
        txn.broken ??= err; // a storage failure fails the group, even if fn catches it
      } else if (this.groupChanges !== before && txn.broken === null) {
        const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        txn.broken = new StorageError('BUSY', `write group aborted: a write in it failed after changing the store (${detail})`, { cause: err });
      }
      throw err;
    }
  }

  /**
   * Flushes every txn committed so far to disk on libuv's thread pool (the event loop runs on
   * meanwhile): when the promise resolves, those commits survive a power cut. What 'relaxed'
   * durability leaves for later.
   */
  sync(): Promise<void> {
    this.checkOpen();
    this.commitHeld(); // other processes see what this one wrote
    if (this.redo !== null) return this.redo.flush(); // every commit is durable already; this flushes what is appended
    const fd = this.flushFd;
    if (fd === null) return Promise.reject(new StorageError('READ_ONLY', `store ${this.path} was opened read-only`));
    this.unsynced = false;
    this.fdUsers += 1;
    return this.work.track(this.flushDescriptor(fd));
  }

  /**
   * fdatasync of data.mdb on the thread pool, through this Store's own descriptor rather than
   * env.sync: the worker then holds no native env, so close() (and a reopen of the folder right
   * after it) never races a flush still running; the descriptor closes after the last one. The
   * caller has counted itself in fdUsers; this releases it.
   */
  private flushDescriptor(fd: number): Promise<void> {
    this.flushes += 1;
    const started = process.hrtime.bigint();
    return new Promise((resolvePromise, reject) => {
      fdatasync(fd, (err) => {
        this.fdUsers -= 1;
        this.onFlush?.('flush', Number(process.hrtime.bigint() - started) / 1e9);
        if (this.flushFd === null && this.fdUsers === 0) closeSync(fd);
        if (err) reject(explainDiskFull(toStorageError(err, 'sync'), this.path));
        else resolvePromise();
      });
    });
  }

  /** True when a commit is not yet known to be on disk ('relaxed'): sync() would flush it. */
  get hasUnflushedCommits(): boolean {
    return this.unsynced;
  }

  /** Flushes to disk this Store asked for (on its commits and in sync()), since it was opened. */
  get flushCount(): number {
    return this.flushes + (this.redo?.flushes ?? 0);
  }

  /** Durability 'log': checkpoints completed since open (redo-log.ts); 0 otherwise. */
  get checkpointCount(): number {
    return this.redo?.checkpoints ?? 0;
  }

  /**
   * A consistent copy of the whole store (every named database, as of one read snapshot taken
   * when the copy starts) written to `<targetDir>/data.mdb` off the main thread, compacted (free
   * pages left out), then fsynced. targetDir must exist and hold no data.mdb. Writers of this and
   * other processes go on meanwhile; the copy only pins its snapshot's pages until it ends.
   * close() waits for it, as for sync().
   */
  copyTo(targetDir: string): Promise<void> {
    this.commitHeld(); // the copy is of what LMDB committed
    this.read(() => undefined); // adopts a map another process grew, so the copy's txn can begin
    const env = this.checkOpen();
    const target = resolve(targetDir);
    this.syncsInFlight += 1;
    return this.work.track(new Promise((resolvePromise, reject) => {
      env.copy(target, true, (err) => {
        this.syncsInFlight -= 1;
        if (this.nativeCloseDeferred && this.syncsInFlight === 0) this.closeNative(env);
        if (err) return reject(new StorageError('IO', `copy store ${this.path} to ${target} failed (LMDB's code is on stderr)`, { cause: err }));
        try {
          const fd = openSync(join(target, 'data.mdb'), 'r+');
          try {
            settleCreatedFile(fd, this.path); // the copy holds the same items: the store's access, not LMDB's 0666
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
          resolvePromise();
        } catch (error) {
          reject(toStorageError(error, `flush copy ${target}`));
        }
      });
    }));
  }

  stats(): StoreStats {
    const env = this.checkOpen();
    this.commitHeld(); // lastTxnId and the commit count as LMDB has them
    const info = env.info();
    const stat = env.stat();
    const census = this.lockFd === null ? null : readerCensus(this.lockFd);
    return {
      path: this.path,
      mapSizeBytes: info.mapSize,
      maxMapSizeBytes: this.options.maxMapSizeBytes,
      usedBytes: (info.lastPageNumber + 1) * stat.pageSize,
      pageSize: stat.pageSize,
      lastTxnId: info.lastTxnId,
      readers: census?.live ?? info.numReaders,
      staleReaders: census?.stale ?? 0,
      staleReadersCleared: this.staleReadersCleared,
      maxReaders: info.maxReaders,
      databases: stat.entryCount - this.read((txn) => [WRITE_SEQUENCE_KEY, STORE_FORMAT_KEY, TEXT_VALUES_KEY].filter((key) => txn.getCopy(this.catalog, key) !== undefined).length),
      commits: this.commits,
      joinedWrites: this.joinedWrites,
    };
  }

  /** Idempotent. Relaxed stores flush first. Must not be called inside a txn. */
  close(): void {
    const env = this.env;
    if (env === null) return;
    if (this.activeRead !== null || this.activeWrite !== null) {
      throw new StorageError('BUSY', 'close() cannot run inside read() or write()');
    }
    let heldFailure: unknown;
    try {
      if (this.unapplied !== null) this.applyHeldAgain(this.unapplied, undefined);
      this.commitHeld();
    } catch (err) {
      heldFailure = err; // the log keeps the held writes for the next open to replay: it is not retired
      this.redo = null;
      releaseOwner(this.path);
    }
    if (this.syncTimer !== null) clearInterval(this.syncTimer);
    this.syncTimer = null;
    this.stopWatching?.();
    this.stopWatching = null;
    this.dropIdleReader();
    // The redo log's close flushes data.mdb, logs a last checkpoint and removes the log; if that
    // fails the log stays for the next open to recover from, and the store still closes (the error
    // is thrown after).
    let redoFailure: unknown;
    if (this.redo !== null) {
      const redo = this.redo;
      this.redo = null;
      try {
        this.retire(redo);
      } catch (err) {
        redoFailure = err;
      }
      releaseOwner(this.path);
    }
    if (this.unsynced) this.flushSync();
    if (this.registered) unregisterWriter(this.path);
    this.registered = false;
    if (this.flushFd !== null && this.fdUsers === 0) closeSync(this.flushFd); // else the last sync() closes it
    this.flushFd = null;
    this.registry.forgetAll();
    this.catalog.handle = null;
    this.env = null;
    openPaths.delete(this.path);
    if (redoFailure === undefined) unmarkOpen(this.path); // a failed close counts as unclean: the next open checks
    // An env.sync worker still holds the native env: close it when the last one reports.
    if (this.syncsInFlight > 0) this.nativeCloseDeferred = true;
    else this.closeNative(env);
    if (redoFailure !== undefined || heldFailure !== undefined) throw redoFailure ?? heldFailure;
  }

  private leavePidNamespace(): void {
    if (this.namespaceTimer !== null) clearInterval(this.namespaceTimer);
    this.namespaceTimer = null;
    this.leaveNamespace?.();
    this.leaveNamespace = null;
  }

  /**
   * Resolves once this closed store holds nothing of its folder: no flush, copy or replay left on
   * the thread pool, the native env closed, every descriptor closed. close() returns before work
   * in flight does (it cannot wait for the thread pool), so an unmount right after it can fail
   * with EBUSY; after this resolves it cannot, for this process.
   */
  async released(): Promise<void> {
    if (this.env !== null) throw new StorageError('BUSY', `store ${this.path} is open: released() waits for a closed store`);
    await this.work.idle();
    await Promise.all([...this.retiredLogs].map((log) => log.released()));
  }

  /** Closes a redo log (close() or a handover) and keeps it until its flushes in flight have returned (released()). */
  private retire(log: RedoLog): void {
    this.retiredLogs.add(log);
    void log.released().then(() => this.retiredLogs.delete(log));
    log.close();
  }

  private checkOpen(): LmdbEnv {
    if (this.env === null) throw this.failure ?? new StorageError('CLOSED', `store ${this.path} is closed`);
    return this.env;
  }

  private beginRead(): LmdbTxn {
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

  private endRead(txn: LmdbReadTxn): void {
    txn.end();
    if (txn.openedHandle) {
      txn.native.commit(); // publishes the handles opened in it; the txn is gone
    } else if (this.idleReader === null && this.env !== null) {
      txn.native.reset();
      this.idleReader = txn.native;
    } else {
      txn.native.abort();
    }
  }

  private beginWrite(): LmdbTxn {
    return this.begin(false);
  }

  /** Begins a txn; adopts the map size another process grew the store to (MDB_MAP_RESIZED). */
  private begin(readOnly: boolean): LmdbTxn {
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

  /** Commits or aborts the native txn; commit errors propagate raw (LMDB aborted the txn). */
  private endWrite(txn: LmdbWriteTxn, commit: boolean): void {
    txn.end();
    this.activeWrite = null;
    this.grouping = false;
    if (!commit) {
      txn.native.abort();
      this.registry.forgetOpenedIn(txn);
      return;
    }
    try {
      txn.native.commit();
    } catch (err) {
      this.registry.forgetOpenedIn(txn);
      throw err;
    }
    if (this.redo !== null) return; // MDB_NOSYNC: the redo log's flush made it durable
    if (this.metaFlushedByCommit) {
      this.flushes += 2; // LMDB's flush of the data pages, then its O_DSYNC write of the meta page
      return;
    }
    this.flushes += 1; // LMDB's flush of the data pages; the meta page waits (see "Flushes")
    this.unsynced = true;
  }

  private grow(): void {
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

  private adoptMapSize(): void {
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
    if (this.redo?.pinned) this.redo.checkpointNow();
    try {
      env.resize(bytes);
    } catch (err) {
      throw toStorageError(err, 'resize map');
    } finally {
      this.redo?.repin();
    }
    this.mapSizeBytes = env.info().mapSize;
  }

  private dropIdleReader(): void {
    const idle = this.idleReader;
    this.idleReader = null;
    idle?.abort();
  }

  /** Flushes data.mdb on this thread: every commit so far (its meta page included) is on disk. */
  private flushSync(): void {
    if (this.flushFd === null) return;
    this.unsynced = false;
    this.flushes += 1;
    try {
      fdatasyncSync(this.flushFd);
    } catch (err) {
      throw explainDiskFull(toStorageError(err, 'flush'), this.path);
    }
  }

  private closeNative(env: LmdbEnv): void {
    this.nativeCloseDeferred = false;
    env.close();
    if (this.lockFd !== null) closeSync(this.lockFd); // only now: see "Dead processes' slots"
    this.lockFd = null;
    this.leavePidNamespace(); // only now: until here this process holds a reader slot
  }
}

function isPromiseLike(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
