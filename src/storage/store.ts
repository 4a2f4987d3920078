/**
 * One LMDB environment in one folder, as bytes in named databases, through callback txns.
 *
 * Txn rules:
 * - read(fn) and write(fn) run fn synchronously inside one txn; nothing stays open after they
 *   return, so another process (e.g. `edgetable sync`) can open the same folder at any time.
 * - write(fn) commits when fn returns and aborts when it throws, rethrowing. With durability
 *   'sync' the commit is on disk when write() returns (commit-flushes.ts has what each durability
 *   flushes, committers.ts how each commits).
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
 * writeAsync(fn) commits off the main thread (async-commits.ts). Durability 'log' keeps a redo
 * log (redo-log.ts) that one process at a time owns (log-ownership.ts), and may hold several
 * writes in one LMDB txn (held-txn.ts). The environment, its readers and map size: store-env.ts.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CommitFlushes, type FlushListener } from './commit-flushes.js';
import { Database, checkDatabaseName } from './database.js';
import { settleCreatedFile } from './file-modes.js';
import { FormatState } from './format-state.js';
import { HeldTxn } from './held-txn.js';
import { InFlight } from './in-flight.js';
import { LogOwnership } from './log-ownership.js';
import { markOpen, unmarkOpen } from './open-marks.js';
import { startPeriodicCheck } from './periodic-check.js';
import { StorageError, toStorageError } from './storage-error.js';
import { StoreEnv } from './store-env.js';
import { STORE_FORMAT_KEY, TEXT_VALUES_KEY } from './store-format.js';
import { openFolder } from './store-open.js';
import { resolveStoreOptions, type Durability, type ResolvedStoreOptions, type StoreOptions } from './store-options.js';
import { LmdbReadTxn, type LmdbWriteTxn, type ReadTxn, type TxnHost, type WriteTxn } from './txn.js';
import { WriteTxns } from './write-txns.js';
import { WRITE_SEQUENCE_KEY, isWriteSequenceKey } from './write-sequence.js';

export { HELD_MAX_PAYLOAD_BYTES } from './held-writes.js';
export { MAX_REPLAY_CONFLICTS } from './async-commits.js';

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
  /** Called before each outermost read and write txn begins; open() sets it (young-generation.ts). Must be cheap. */
  beforeTxn: ((kind: TxnKind) => void) | undefined;
  private readonly options: ResolvedStoreOptions;
  private readonly environment: StoreEnv;
  private readonly formatState: FormatState;
  private readonly flushes: CommitFlushes;
  private readonly log: LogOwnership;
  private readonly writes: WriteTxns;
  private readonly held: HeldTxn;
  private readonly host: TxnHost;
  /** Work on the thread pool that holds the native env or a descriptor of the folder (released()). */
  private readonly work = new InFlight();

  /** Opens (creating the folder and files on first use) the store at options.path. */
  static open(options: StoreOptions): Store {
    const resolved = resolveStoreOptions(options);
    const path = resolve(resolved.path);
    if (openPaths.has(path)) throw new StorageError('BUSY', `store ${path} is already open in this process`);
    const store = new Store(path, resolved);
    openPaths.add(path);
    markOpen(path);
    startPeriodicCheck(store, resolved.checkIntervalMs); // ends with the store
    return store;
  }

  private constructor(path: string, options: ResolvedStoreOptions) {
    const opened = openFolder(path, options);
    const store = this;
    this.path = path;
    this.options = options;
    const env = (this.environment = new StoreEnv(path, options, opened));
    const format = (this.formatState = new FormatState(path, env.catalog, opened));
    const durability = options.durability;
    const flushes = (this.flushes = new CommitFlushes(path, opened.flushFd, opened.redo !== null ? 'log' : durability === 'relaxed' ? 'relaxed' : 'sync'));
    if (durability === 'relaxed' && !options.readOnly) flushes.flushEvery(options.syncIntervalMs, () => this.sync());
    this.host = {
      get env() {
        return env.checkOpen();
      },
      faults: options.faults,
      openHandle: (db, txn) => env.registry.openHandle(db, txn),
      get textReads() {
        return format.textReads;
      },
      takeTextValues: () => format.takeTextValues(),
      giveTextValues: (reader) => format.giveTextValues(reader),
      beforeTextPut: (txn, db, value) => format.beforeTextPut(txn, db, value),
    };
    this.log = new LogOwnership(path, options, env, flushes, {
      get betweenTxns() {
        return store.writes.activeRead === null && store.writes.activeWrite === null;
      },
      commitHeld: () => this.held.commit(),
      commitAllHeld: () => this.held.commitAll(),
      closeAfterFailure: (err, what) => this.closeAfterFailure(err, what),
    }, opened);
    env.pinnedBy = () => this.log.redo;
    this.writes = new WriteTxns(path, options, this.host, env, flushes, format, this.log, {
      read: (fn) => this.read(fn),
      sync: () => this.sync(),
      dropDatabase: (name) => this.dropDatabase(name),
      beforeWrite: () => this.beforeTxn?.('write'),
      work: this.work,
    });
    this.held = this.writes.held;
  }

  /** LMDB's unnamed database, whose keys are the names of the named ones. */
  private get catalog(): Database {
    return this.environment.catalog;
  }

  /** The native env (tests reach it to check what LMDB holds). */
  private get env(): unknown {
    return this.environment.closed ? null : this.environment.checkOpen();
  }

  /** Told how long each commit (with its fsync when durable) and each sync() flush took; metrics/ sets it. */
  get onFlush(): FlushListener | undefined {
    return this.flushes.onFlush;
  }

  set onFlush(listener: FlushListener | undefined) {
    this.flushes.onFlush = listener;
  }

  /** The store format (store-format.ts) as read at open, or as raised by this process since (once committed). */
  get format(): number {
    return this.formatState.format;
  }

  /**
   * Raises the store format to `version` inside `txn` (a write txn of this store, which may be a
   * group's or a recording one) unless the store already has it or a higher one supported here.
   * Call it in the txn that writes the first value needing `version`: the marker then commits
   * with that value or not at all. Costs one get when the format is already high enough.
   */
  raiseFormat(txn: WriteTxn, version: number): void {
    this.formatState.raiseFormat(txn, version);
  }

  /**
   * Whether databases declared with `textValues` are read as text (text-values.ts): the store
   * holds the text-values marker (every value of theirs is a text value) and this host reads
   * text back byte for byte.
   */
  get textReads(): boolean {
    return this.formatState.textReads;
  }

  /** Whether the store holds the text-values marker (store-format.ts), as this process last saw it. */
  get hasTextValuesMarker(): boolean {
    return this.formatState.hasTextValuesMarker;
  }

  /**
   * Records in `txn` that every value of every database declared `textValues` is a text value
   * (table/text-records.ts calls it once it made them so); reads take the text path once it
   * commits. Raises the store format to TEXT_VALUES_STORE_FORMAT in the same txn.
   */
  markTextValues(txn: WriteTxn): void {
    this.formatState.markTextValues(txn);
  }

  /** The durability the store was opened with (store-options.ts). */
  get durability(): Durability {
    return this.options.durability;
  }

  /** True when the store was opened read-only: write() throws. */
  get readOnly(): boolean {
    return this.options.readOnly;
  }

  get closed(): boolean {
    return this.environment.closed;
  }

  /** Whether this process commits through the redo log now ('log', and no other writer registered). */
  get logging(): boolean {
    return this.log.redo !== null;
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
    this.environment.checkOpen();
    const registry = this.environment.registry;
    const db = registry.get(name);
    if (options?.textValues === true) db.textValues = true;
    if (db.handle !== null) return db;
    const txn = this.writes.activeWrite ?? this.writes.activeRead;
    if (txn !== null) registry.openHandle(db, txn);
    else if (this.options.readOnly) this.read((t) => registry.openHandle(db, t as LmdbReadTxn));
    else this.write((t) => registry.openHandle(db, t as LmdbWriteTxn));
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
    const registry = this.environment.registry;
    const db = registry.get(name);
    const key = Buffer.from(name, 'utf8');
    const drop = (txn: LmdbWriteTxn): boolean => {
      if (txn.getCopy(this.catalog, key) === undefined) return false;
      const handle = db.handle ?? registry.openHandle(db, txn);
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
    const active = this.writes.activeWrite;
    if (active !== null) return drop(active);
    return this.write((txn) => drop(txn as LmdbWriteTxn));
  }

  /** `kind` 'range-read' says fn reads a page of many items (Query, Scan), for beforeTxn. */
  read<T>(fn: (txn: ReadTxn) => T, kind: 'read' | 'range-read' = 'read'): T {
    const outer = this.writes.activeWrite ?? this.writes.activeRead;
    if (outer !== null) return fn(outer);
    this.environment.checkOpen();
    this.beforeTxn?.(kind);
    this.held.applyUnapplied();
    if (this.held.current !== null) return this.held.read(fn);
    const txn = new LmdbReadTxn(this.host, this.environment.beginRead(), false);
    this.writes.enterRead(txn);
    try {
      return fn(txn);
    } finally {
      this.writes.leaveRead();
      this.environment.endRead(txn);
    }
  }

  write<T>(fn: (txn: WriteTxn) => T): T {
    return this.writes.write(fn);
  }

  /** One write txn shared by every write() made inside fn, committed once; see the header. */
  writeGroup<T>(fn: (txn: WriteTxn) => T): T {
    return this.writes.writeGroup(fn);
  }

  /** fn as a writeGroup whose commit and flushes all run off the main thread; resolves when its changes are durable (async-commits.ts). */
  writeAsync<T>(fn: (txn: WriteTxn) => T): Promise<T> {
    return this.writes.asyncCommits.write(fn);
  }

  /** Asynchronous commits since open: replays committed, replays that met another commit, fallbacks to this thread. */
  get asyncCommitStats(): { committed: number; conflicts: number; onThisThread: number } {
    return this.writes.asyncCommits.stats;
  }

  /**
   * Flushes every txn committed so far to disk on libuv's thread pool (the event loop runs on
   * meanwhile): when the promise resolves, those commits survive a power cut. What 'relaxed' and
   * 'interval' durability leave for later.
   */
  sync(): Promise<void> {
    this.environment.checkOpen();
    this.held.commit(); // other processes see what this one wrote
    const redo = this.log.redo;
    if (redo !== null) return redo.flush(); // the log's appends: in 'log' what db.promises has in flight, in 'interval' every write since its last flush
    return this.work.track(this.flushes.sync());
  }

  /** True when a commit is not yet known to be on disk ('relaxed', 'interval'): sync() would flush it. */
  get hasUnflushedCommits(): boolean {
    return this.flushes.pending || (this.log.redo?.unflushed ?? false);
  }

  /** Flushes to disk this Store asked for (on its commits and in sync()), since it was opened. */
  get flushCount(): number {
    return this.flushes.count + (this.log.redo?.flushes ?? 0);
  }

  /** Durability 'log': checkpoints completed since open (redo-log.ts); 0 otherwise. */
  get checkpointCount(): number {
    return this.log.redo?.checkpoints ?? 0;
  }

  /**
   * A consistent copy of the whole store (every named database, as of one read snapshot taken
   * when the copy starts) written to `<targetDir>/data.mdb` off the main thread, compacted (free
   * pages left out), then fsynced. targetDir must exist and hold no data.mdb. Writers of this and
   * other processes go on meanwhile; the copy only pins its snapshot's pages until it ends.
   * close() waits for it, as for sync().
   */
  copyTo(targetDir: string): Promise<void> {
    this.held.commit(); // the copy is of what LMDB committed
    this.read(() => undefined); // adopts a map another process grew, so the copy's txn can begin
    const env = this.environment.beginNativeWork();
    const target = resolve(targetDir);
    return this.work.track(new Promise((resolvePromise, reject) => {
      env.copy(target, true, (err) => {
        this.environment.endNativeWork(env);
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
    const env = this.environment.checkOpen();
    this.held.commit(); // lastTxnId and the commit count as LMDB has them
    const info = env.info();
    const stat = env.stat();
    const census = this.environment.readerCensus();
    return {
      path: this.path,
      mapSizeBytes: info.mapSize,
      maxMapSizeBytes: this.options.maxMapSizeBytes,
      usedBytes: (info.lastPageNumber + 1) * stat.pageSize,
      pageSize: stat.pageSize,
      lastTxnId: info.lastTxnId,
      readers: census?.live ?? info.numReaders,
      staleReaders: census?.stale ?? 0,
      staleReadersCleared: this.environment.staleReadersCleared,
      maxReaders: info.maxReaders,
      databases: stat.entryCount - this.read((txn) => [WRITE_SEQUENCE_KEY, STORE_FORMAT_KEY, TEXT_VALUES_KEY].filter((key) => txn.getCopy(this.catalog, key) !== undefined).length),
      commits: this.writes.commits,
      joinedWrites: this.writes.joinedWrites,
    };
  }

  /** Idempotent. Relaxed stores flush first. Must not be called inside a txn. */
  close(): void {
    if (this.environment.closed) return;
    if (this.writes.activeRead !== null || this.writes.activeWrite !== null) {
      throw new StorageError('BUSY', 'close() cannot run inside read() or write()');
    }
    let heldFailure: unknown;
    try {
      this.held.commitAll();
    } catch (err) {
      heldFailure = err; // the log keeps the held writes for the next open to replay: it is not retired
      this.log.abandon();
    }
    this.environment.dropIdleReader();
    // The redo log's close flushes data.mdb, logs a last checkpoint and removes the log; if that
    // fails the log stays for the next open to recover from, and the store still closes (the error
    // is thrown after).
    const redoFailure = this.log.close();
    this.flushes.flushIfPending();
    this.log.leave();
    this.flushes.close();
    this.environment.close();
    openPaths.delete(this.path);
    if (redoFailure === undefined) unmarkOpen(this.path); // a failed close counts as unclean: the next open checks
    if (redoFailure !== undefined || heldFailure !== undefined) throw redoFailure ?? heldFailure;
  }

  /**
   * A handover or a log generation that failed half-way: the Store closes (every later call says
   * why) and lets the folder go; a log it could not close stays for the next writable open to
   * recover. Returns the failure every later call is told.
   */
  private closeAfterFailure(err: unknown, what: string): StorageError {
    const failure = new StorageError('IO', `store ${this.path}: could not ${what} (${(err as Error).message}); the store was closed: reopen it`, { cause: err });
    this.environment.failure = failure;
    this.log.keepLogForRecovery();
    if (!this.environment.closed) {
      try {
        this.close();
      } catch {
        /* closing what is left */
      }
    } else {
      // The native env is gone already (the reopen failed).
      this.flushes.close();
      this.environment.releaseWithoutEnv();
      openPaths.delete(this.path);
    }
    this.log.leave(true);
    return failure;
  }

  /**
   * Resolves once this closed store holds nothing of its folder: no flush, copy or replay left on
   * the thread pool, the native env closed, every descriptor closed. close() returns before work
   * in flight does (it cannot wait for the thread pool), so an unmount right after it can fail
   * with EBUSY; after this resolves it cannot, for this process.
   */
  async released(): Promise<void> {
    if (!this.environment.closed) throw new StorageError('BUSY', `store ${this.path} is open: released() waits for a closed store`);
    await this.work.idle();
    await this.log.released();
  }
}
