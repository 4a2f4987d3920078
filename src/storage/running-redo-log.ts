/** The running redo log: appends, flushes, checkpoints and pins (redo-log.ts has the rules it keeps). */
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import type { MetaPage } from './meta-pages.js';
import { RECORD_CHANGES, RECORD_CHECKPOINT, RECORD_VOID, RedoLogFile, currentBootId, encodeVoid, LOG_FILES } from './redo-log-file.js';
import type { FaultInjector } from './fault-injector.js';
import { StorageError, toStorageError } from './storage-error.js';
import { InFlight } from './in-flight.js';
import { CheckpointSchedule, DEFAULT_CHECKPOINT_POLICY, type CheckpointPolicy } from './checkpoint-policy.js';
import { checkpointMeta, readSequence } from './redo-checkpoint-state.js';
import type { RecoveryPlan } from './redo-recovery.js';
import { retireLogFiles } from './redo-log-removal.js';
import { LogFailure } from './redo-log-failure.js';
import { DeferredFlush } from './deferred-flush.js';

/** How far past the policy a checkpoint on the thread pool may lag before one runs on the main thread. */
const OVERDUE = 2;

/** Where a record went: its file's generation and offset (what a VOID record names). */
export interface RecordRef {
  readonly file: RedoLogFile;
  readonly offset: number;
}

export class RedoLog {
  /** The file records are appended to. */
  private current: RedoLogFile;
  /** The previous generation's file while the checkpoint in progress is not durable (its records may still be needed). */
  private older: RedoLogFile | null = null;
  /** The other file, its next generation already begun (header flushed) so a checkpoint can switch to it at once. */
  private spare: RedoLogFile | null = null;
  private preparing = false;
  /** Files with appends not yet flushed. */
  private readonly dirty = new Set<RedoLogFile>();
  /** The read txn that holds the newest durable checkpoint's pages. */
  private pin: LmdbTxn | null;
  /** A checkpoint in flight: its own pin, and whether a checkpoint on this thread or close overtook it. */
  private inFlight: { pin: LmdbTxn; obsolete: boolean } | null = null;
  private readonly schedule: CheckpointSchedule;
  private dataFd: number;
  private dataFdUsers = 0;
  private closed = false;
  /** A failed flush (or take-back) of the log, and the files it left in an unknown state (redo-log-failure.ts). */
  private readonly failure: LogFailure;
  /** The fault seam (tests): told before every flush of the log and of data.mdb. */
  faults: FaultInjector | undefined;
  /** Flushes on the thread pool (the log's files, data.mdb's checkpoint flush): each holds a descriptor until it returns. */
  private readonly work = new InFlight();
  /** Durability 'interval': when the flush of appended records comes due; null: each is flushed before its write returns ('log'). */
  readonly deferred: DeferredFlush | null;
  /** Flushes this log made (its own and data.mdb's), and checkpoints completed. */
  flushes = 0;
  checkpoints = 0;

  private constructor(
    readonly dir: string,
    private readonly env: LmdbEnv,
    private readonly main: LmdbDbi,
    private readonly bootId: string,
    policy: CheckpointPolicy,
    first: RedoLogFile,
    pin: LmdbTxn,
    dataFd: number,
    flushIntervalMs: number | null,
  ) {
    this.deferred = flushIntervalMs === null ? null : new DeferredFlush(flushIntervalMs, () => this.flush());
    this.current = first;
    this.failure = new LogFailure(dir);
    this.pin = pin;
    this.schedule = new CheckpointSchedule(policy, first.size, env.info().lastPageNumber);
    this.dataFd = dataFd;
  }

  /**
   * Starts the log on an open store with nothing in flight: flushes data.mdb, begins the next
   * generation with a checkpoint of the store as it is (in the file that does NOT hold the
   * recovery's checkpoint, which stays good until this one is durable), and pins it.
   * `flushIntervalMs`: durability 'interval' (deferred-flush.ts); null for 'log'.
   */
  static start(dir: string, env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan, policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY, flushIntervalMs: number | null = null): RedoLog {
    const bootId = currentBootId();
    const fd = openSync(join(dir, 'data.mdb'), 'r+');
    let pin: LmdbTxn | null = null;
    let file: RedoLogFile | null = null;
    try {
      fdatasyncSync(fd);
      pin = env.beginTxn({ readOnly: true });
      const meta = checkpointMeta(fd, env);
      const name = LOG_FILES.find((n) => n !== plan.checkpointFile)!;
      file = RedoLogFile.begin(dir, name, plan.lastGeneration + 1n, bootId);
      file.append(RECORD_CHECKPOINT, readSequence(pin, main), meta.bytes);
      file.flushSync();
      const log = new RedoLog(dir, env, main, bootId, policy, file, pin, fd, flushIntervalMs);
      log.flushes += 2;
      log.prepareSpare();
      return log;
    } catch (err) {
      pin?.abort();
      file?.close();
      closeSync(fd);
      throw toStorageError(err, `start the redo log of ${dir}`);
    }
  }

  /** Appends a txn's CHANGES record (not yet durable: flush before acknowledging). */
  append(sequence: bigint, payload: Uint8Array): RecordRef {
    this.check();
    const file = this.current;
    const offset = file.append(RECORD_CHANGES, sequence, payload);
    this.dirty.add(file);
    this.schedule.logged();
    return { file, offset };
  }

  /** A write whose record was just appended returns: 'log' flushes the record now, 'interval' within its interval. */
  appended(): void {
    if (this.deferred === null) this.flushSync();
    else this.deferred.appended();
  }

  /** Whether a record appended is not yet known to be durable ('interval'): a flush is due or in flight. */
  get unflushed(): boolean {
    return this.dirty.size > 0 || !this.current.durable || this.older?.durable === false;
  }

  /** Takes back the record of a txn whose commit failed; nothing was appended after it on this thread. */
  undo(ref: RecordRef): void {
    try {
      ref.file.takeBack(ref.offset);
      ref.file.flushSync();
    } catch (err) {
      this.fail(err, 'take back a record', [ref.file]);
    }
  }

  /** Records that the record at `ref` never committed (durable with the next flush; a later record with its sequence would win anyway). */
  void(ref: RecordRef, sequence: bigint): RecordRef {
    this.check();
    const file = this.current;
    const offset = file.append(RECORD_VOID, sequence, encodeVoid(ref.file.generation, ref.offset));
    this.dirty.add(file);
    return { file, offset };
  }

  /** Flushes every file with unflushed appends, on this thread. */
  flushSync(): void {
    this.check();
    this.deferred?.covered();
    const files = [...this.dirty];
    this.dirty.clear();
    try {
      this.faults?.beforeLogFlush();
      for (const file of files) file.flushSync();
    } catch (err) {
      this.fail(err, 'flush', files);
    }
    this.flushes += files.length;
  }

  /** Flushes every file with unflushed appends on the thread pool (again if in flight: fdatasync waits for those pages): what was appended before the call is durable when it resolves. */
  async flush(): Promise<void> {
    this.check();
    this.deferred?.covered();
    const files = [...new Set([...this.dirty, ...[this.current, this.older].filter((f): f is RedoLogFile => f !== null && !f.durable)])];
    this.dirty.clear();
    this.flushes += files.length;
    try {
      this.faults?.beforeLogFlush();
      await Promise.all(files.map((file) => this.work.track(file.flush())));
    } catch (err) {
      this.fail(err, 'flush', files);
    }
  }

  /**
   * After a commit, with no txn of the store's active: starts a checkpoint when the policy says so
   * (commits, log bytes, or pages the map grew by: what the pin keeps from being reused). A caller
   * that writes in a loop without yielding to the event loop never lets a checkpoint on the thread
   * pool finish, so at OVERDUE times the policy the checkpoint runs on this thread instead (such a
   * loop blocks on a flush per write anyway).
   */
  afterCommit(): void {
    if (this.closed || this.failure.current !== null) return;
    const due = this.schedule.due(this.current.size, this.env.info().lastPageNumber);
    if (due < 1) return;
    if (due >= OVERDUE) {
      // The commit before this is durable (its record was flushed): a checkpoint that fails here
      // is retried at the next one, and must not make the write look failed.
      try {
        this.checkpointNow();
      } catch {
        /* data.mdb's flush: retried at the next checkpoint; the log's: in failure, recover() at the next write */
      }
      if (this.failure.current === null) this.repin();
      return;
    }
    if (this.inFlight !== null) return;
    this.work.track(this.runCheckpoint()).catch(() => undefined); // retried, or kept in failure, as above
  }

  /**
   * Before a write, after a failure (a flush of the log or a take-back that failed, e.g. on a full
   * disk): begins a new generation with a checkpoint of the store as it is, so nothing in the
   * damaged file is needed any more, and the log goes on. Throws (the write fails) while that is
   * not possible yet. When the new generation was begun but its checkpoint failed (data.mdb's
   * flush, the disk still full), the next try goes into that same undamaged file. A failure in the
   * current file while a checkpoint is incomplete (its predecessor's file holds the only durable
   * checkpoint) leaves neither file writable: the new generation goes into a third one.
   */
  recover(): void {
    if (this.failure.current === null || this.closed) return;
    const failure = this.failure.take()!;
    try {
      if (this.older !== null && this.failure.damaged.has(this.current)) this.checkpointInThirdFile();
      // With the older file holding the last durable checkpoint, this one goes into the current
      // file (checkpointNow does not switch then); otherwise into a new generation.
      else this.checkpointNow(this.older === null);
    } catch {
      throw this.failure.restore(failure);
    }
    this.failure.markSettled(failure);
    this.repin();
  }

  /**
   * A logged write failed (its txn ended, held writes before it committed): recover() now, not at the
   * next write, or else take the failed records back (redo-log-failure.ts). Its error, saying so; undefined if neither worked.
   */
  settle(err: unknown): unknown {
    try {
      this.recover();
    } catch {
      if (!this.failure.voidDamaged(() => this.faults?.beforeLogFlush())) return undefined;
    }
    return this.failure.explain(err);
  }

  /**
   * A checkpoint on this thread (map growth, an overdue one): flushes data.mdb and logs, durably,
   * a checkpoint of the store as it is; drops every pin (`repin()` takes the new one). Overtakes a
   * checkpoint in flight, whose file then takes this checkpoint.
   */
  checkpointNow(switching = false): void {
    this.check();
    const overtaken = this.abandonInFlight();
    // A checkpoint that failed left its file current and the older one holding the last durable
    // checkpoint: this one goes into the current file (switching would write over the older).
    try {
      if (switching || (!overtaken && this.older === null)) this.switchFile();
      this.faults?.beforeDataFlush();
      fdatasyncSync(this.dataFd);
      this.flushes += 1;
    } catch (err) {
      throw this.checkpointFailed(err);
    }
    try {
      this.appendCheckpoint(this.current);
      this.dirty.add(this.current);
      this.flushSync();
    } catch (err) {
      this.fail(err, 'checkpoint');
    }
    this.pin?.abort();
    this.pin = null;
    this.completed();
  }

  /**
   * recover() with the current file damaged and the older one holding the last durable checkpoint:
   * the next generation begins in the log file that is neither, with a checkpoint of the store as
   * it is. Until that checkpoint is durable a restart still recovers from the older file's (the
   * pin keeps its pages), the damaged file's flushed records after it; once it is, both files are
   * history. Nothing changes when it fails: the next write tries again.
   */
  private checkpointInThirdFile(): void {
    this.abandonInFlight();
    const older = this.older!;
    const damaged = this.current;
    const name = LOG_FILES.find((n) => n !== damaged.name && n !== older.name)!;
    let file: RedoLogFile | null = null;
    try {
      file = RedoLogFile.begin(this.dir, name, damaged.generation + 1n, this.bootId);
      this.faults?.beforeDataFlush();
      fdatasyncSync(this.dataFd);
      this.appendCheckpoint(file);
      this.faults?.beforeLogFlush();
      file.flushSync();
      this.flushes += 3; // the new file's header, data.mdb, the checkpoint record
    } catch (err) {
      file?.close();
      throw this.checkpointFailed(err);
    }
    this.dirty.clear(); // only the two retired files could hold unflushed appends
    older.close();
    this.older = damaged; // closed by completed(), as an older file is
    this.current = file;
    this.pin?.abort();
    this.pin = null;
    this.completed();
  }

  /** Appends to `file` a checkpoint of the store as it is (its last commit's meta page and write sequence), data.mdb flushed before. */
  private appendCheckpoint(file: RedoLogFile): void {
    const reader = this.env.beginTxn({ readOnly: true });
    let sequence: bigint;
    try {
      sequence = readSequence(reader, this.main);
    } finally {
      reader.abort();
    }
    file.append(RECORD_CHECKPOINT, sequence, checkpointMeta(this.dataFd, this.env).bytes);
  }

  /** A flush of data.mdb that failed: not fatal (the log holds every write since the last checkpoint); the next checkpoint tries again. */
  private checkpointFailed(err: unknown): StorageError {
    return err instanceof StorageError ? err : toStorageError(err, `redo log checkpoint of ${this.dir}`);
  }

  /** Pins the store as it is now: only right after checkpointNow, with no commit in between. */
  repin(): void {
    if (this.pin === null) this.pin = this.env.beginTxn({ readOnly: true });
  }

  /**
   * Whether a record in `file` is kept until the next checkpoint completes: only the current
   * file's are (the older file is begun anew once the checkpoint in progress is durable, and that
   * checkpoint may not cover a commit made after it began).
   */
  isCurrent(file: RedoLogFile): boolean {
    return file === this.current;
  }

  /** Whether a failed flush stopped the log until recover() begins a new generation. */
  get failed(): boolean {
    return this.failure.current !== null;
  }

  /** Whether a pin is held (LMDB cannot resize its map while one is). */
  get pinned(): boolean {
    return this.pin !== null || this.inFlight !== null;
  }

  /**
   * With every write committed: flushes data.mdb, which then holds the whole store, logs a last
   * checkpoint of it, and removes the log files, that one last (retireLogFiles: nothing in them is
   * needed any more, and a checkpoint left behind would be wrong once another durability writes
   * the folder). Drops the pins; the native env may close after. After a failed flush of the log
   * the last checkpoint goes into a new generation (recover()), so that no record of a write that
   * failed is replayed. Only if data.mdb's flush or that checkpoint fails do the files stay, for
   * the next open to recover from.
   */
  close(): void {
    if (this.closed) return;
    this.deferred?.stop();
    this.abandonInFlight();
    this.pin?.abort();
    this.pin = null;
    let error: unknown;
    let last: RedoLogFile | undefined;
    try {
      fdatasyncSync(this.dataFd);
      this.flushes += 1;
      last = this.lastCheckpoint();
    } catch (err) {
      error = err;
    }
    this.closed = true;
    const files = [this.current, this.older, this.spare].filter((f): f is RedoLogFile => f !== null);
    for (const file of files) file.close();
    if (error === undefined) retireLogFiles(this.dir, last!.name, [...LOG_FILES]);
    this.releaseDataFd();
    if (error !== undefined) throw toStorageError(error, `close the redo log of ${this.dir}`);
  }

  /**
   * Resolves once no flush of this log is running on the thread pool. After close() that is when
   * its last descriptor (a log file's, data.mdb's) is closed: close() returns before a flush in
   * flight does, and closing a descriptor under it could flush whatever file reused its number.
   */
  released(): Promise<void> {
    return this.work.idle();
  }

  /** At close, data.mdb flushed: a durable checkpoint of it as it is, in the current file (after a failed flush, a new generation's). */
  private lastCheckpoint(): RedoLogFile {
    if (this.failure.current !== null) {
      this.recover(); // throws while no undamaged file can take it
      this.pin?.abort();
      this.pin = null;
      return this.current;
    }
    this.appendCheckpoint(this.current);
    this.dirty.add(this.current);
    this.flushSync();
    return this.current;
  }

  private async runCheckpoint(): Promise<void> {
    const pin = this.env.beginTxn({ readOnly: true });
    let meta: MetaPage;
    let sequence: bigint;
    try {
      meta = checkpointMeta(this.dataFd, this.env);
      sequence = readSequence(pin, this.main);
      // Every record from now on follows the checkpoint's commit: it goes into the next generation
      // (unless a checkpoint failed: see checkpointNow).
      if (this.older === null) this.switchFile();
    } catch (err) {
      pin.abort();
      throw this.checkpointFailed(err);
    }
    const flight = { pin, obsolete: false };
    this.inFlight = flight;
    const file = this.current;
    this.dataFdUsers += 1;
    try {
      try {
        this.faults?.beforeDataFlush();
        await new Promise<void>((resolve, reject) => fdatasync(this.dataFd, (err) => (err ? reject(err) : resolve())));
        this.flushes += 1;
      } catch (err) {
        if (flight.obsolete) return;
        this.inFlight = null;
        flight.pin.abort();
        throw this.checkpointFailed(err);
      }
      if (flight.obsolete) return;
      file.append(RECORD_CHECKPOINT, sequence, meta.bytes);
      this.dirty.add(file);
      await this.flush(); // a failure here is the log's own: fatal until recover()
    } finally {
      this.dataFdUsers -= 1;
      if (this.closed) this.releaseDataFd();
    }
    if (flight.obsolete) return;
    this.inFlight = null;
    this.pin?.abort();
    this.pin = flight.pin;
    this.completed();
  }

  /** Begins the next generation in the other file (the spare, if prepared) and appends there from now on. */
  private switchFile(): void {
    const next = this.spare ?? this.beginNext();
    this.spare = null;
    this.older = this.current;
    this.current = next;
    this.schedule.restart(next.size, this.env.info().lastPageNumber);
  }

  /** A checkpoint in the current file is durable: the older file's records are history, and it becomes the next spare. */
  private completed(): void {
    this.checkpoints += 1;
    this.schedule.restart(this.current.size, this.env.info().lastPageNumber);
    const older = this.older;
    this.older = null;
    this.failure.damaged.clear(); // the checkpoint just made durable is in the current file, which no failure touched
    if (older !== null) {
      this.dirty.delete(older);
      older.close();
    }
    this.prepareSpare();
  }

  /** Returns whether a checkpoint was in flight (its file switch stands). */
  private abandonInFlight(): boolean {
    const flight = this.inFlight;
    if (flight === null) return false;
    flight.obsolete = true;
    flight.pin.abort();
    this.inFlight = null;
    return true;
  }

  /** Begins the next generation in the file other than the current one (its header flushed). */
  private beginNext(): RedoLogFile {
    const name = LOG_FILES.find((n) => n !== this.current.name)!;
    return RedoLogFile.begin(this.dir, name, this.current.generation + 1n, this.bootId);
  }

  /** Begins the spare off the critical path, once the older file is history. */
  private prepareSpare(): void {
    if (this.spare !== null || this.preparing || this.closed) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      if (this.closed || this.spare !== null || this.older !== null || this.inFlight !== null) return;
      try {
        this.spare = this.beginNext();
      } catch {
        /* not fatal: the next checkpoint begins the file itself */
      }
    });
  }

  private releaseDataFd(): void {
    if (this.dataFdUsers === 0 && this.dataFd >= 0) {
      closeSync(this.dataFd);
      this.dataFd = -1;
    }
  }

  private check(): void {
    const failure = this.failure.current;
    if (failure !== null) throw failure;
    if (this.closed) throw new StorageError('CLOSED', `the redo log of ${this.dir} is closed`);
  }

  private fail(err: unknown, what: string, files: readonly RedoLogFile[] = [this.current]): never {
    throw this.failure.record(err, what, files);
  }
}
