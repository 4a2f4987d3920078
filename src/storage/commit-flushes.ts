/**
 * How a Store's commits reach the disk, and the flushes it counts (what survives a power cut;
 * proven by `npm run torture -- --power-cut`). LMDB's commit writes the txn's pages, flushes them
 * (fdatasync) and only then writes the meta page that makes the txn the store's state, so a meta
 * page never reaches the disk before the pages it points to: a power cut can only lose commits
 * whose meta page was not flushed yet (the store reopens whole at an earlier commit), never
 * corrupt the file. How the meta page is flushed is the env's flush mode:
 * - 'sync': by LMDB itself, inside the commit, through its O_DSYNC descriptor (LMDB's default
 *   mode): a commit is durable when it returns, wherever it ran: on this thread, or an
 *   asynchronous commit's replay on a libuv worker, which then needs no second trip to the thread
 *   pool for a separate flush. Two flushes per commit. Also a 'log' store handed over to another
 *   writer (redo-handover.ts).
 * - 'relaxed': the env is opened with MDB_NOMETASYNC, so the commit writes the meta page without
 *   flushing it; the next commit's data flush, the syncIntervalMs timer, sync() or close() does.
 *   One flush per commit.
 * - 'log': the env is opened with MDB_NOSYNC; the redo log's flush made each commit durable
 *   before LMDB made it (committers.ts), and its checkpoints flush data.mdb (redo-log.ts). Also
 *   durability 'interval', whose log flush comes later (deferred-flush.ts).
 */
import { closeSync, fdatasync, fdatasyncSync } from 'node:fs';
import { explainDiskFull } from './disk-space.js';
import { StorageError, toStorageError } from './storage-error.js';

export type EnvFlushMode = 'sync' | 'relaxed' | 'log';

export type FlushListener = (kind: 'commit' | 'flush', seconds: number) => void;

export class CommitFlushes {
  /** Told how long each commit and each sync() flush took; metrics/ sets it through Store.onFlush. */
  onFlush: FlushListener | undefined;
  private unsynced = false;
  private flushes = 0;
  /** sync() flushes and replays running on the descriptor; close() leaves it to the last of them. */
  private fdUsers = 0;
  private timer: NodeJS.Timeout | null = null;

  /**
   * `fd`: data.mdb opened by this process for the meta-page flush (null when read-only), its own
   * descriptor rather than env.sync's: a flush on the thread pool then holds no native env, so
   * close() (and a reopen right after it) never races a flush still running.
   */
  constructor(
    private readonly path: string,
    private fd: number | null,
    public mode: EnvFlushMode,
  ) {}

  /** 'relaxed': flushes what is unflushed every `intervalMs` through `sync`. */
  flushEvery(intervalMs: number, sync: () => Promise<void>): void {
    this.timer = setInterval(() => {
      if (this.unsynced) sync().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /** True when a commit is not yet known to be on disk ('relaxed'): sync() would flush it. */
  get pending(): boolean {
    return this.unsynced;
  }

  get count(): number {
    return this.flushes;
  }

  /** An LMDB commit on this thread returned: counts LMDB's flushes of it, as the mode makes them. */
  lmdbCommitted(): void {
    if (this.mode === 'log') return; // MDB_NOSYNC: the redo log's flush made it durable
    if (this.mode === 'sync') {
      this.flushes += 2; // LMDB's flush of the data pages, then its O_DSYNC write of the meta page
      return;
    }
    this.flushes += 1; // LMDB's flush of the data pages; the meta page waits
    this.unsynced = true;
  }

  /**
   * A replay committed on a worker (batch-commit.ts): counts its flushes. True when its meta page
   * still needs a flush ('relaxed'), which the caller makes with flushDescriptor or sync().
   */
  replayCommitted(): boolean {
    this.flushes += this.mode === 'sync' ? 2 : 1;
    return this.mode !== 'sync';
  }

  /** The meta page of a replay's commit waits for the next flush ('relaxed'). */
  leaveUnflushed(): void {
    this.unsynced = true;
  }

  /** Takes the descriptor for work on the thread pool; release it with releaseDescriptor (or flushDescriptor). */
  useDescriptor(): number {
    const fd = this.fd;
    if (fd === null) throw new StorageError('READ_ONLY', `store ${this.path} was opened read-only`);
    this.fdUsers += 1;
    return fd;
  }

  releaseDescriptor(fd: number): void {
    this.fdUsers -= 1;
    if (this.fd === null && this.fdUsers === 0) closeSync(fd);
  }

  /** Flushes every commit so far on the thread pool (see Store.sync). */
  sync(): Promise<void> {
    if (this.fd === null) return Promise.reject(new StorageError('READ_ONLY', `store ${this.path} was opened read-only`));
    this.unsynced = false;
    return this.flushDescriptor(this.useDescriptor());
  }

  /** fdatasync of data.mdb on the thread pool through `fd` (taken with useDescriptor, released here). */
  flushDescriptor(fd: number): Promise<void> {
    this.flushes += 1;
    const started = process.hrtime.bigint();
    return new Promise((resolvePromise, reject) => {
      fdatasync(fd, (err) => {
        this.onFlush?.('flush', Number(process.hrtime.bigint() - started) / 1e9);
        this.releaseDescriptor(fd);
        if (err) reject(explainDiskFull(toStorageError(err, 'sync'), this.path));
        else resolvePromise();
      });
    });
  }

  /** Flushes data.mdb on this thread if a commit waits for it: every commit so far is on disk. */
  flushIfPending(): void {
    if (this.fd === null || !this.unsynced) return;
    this.unsynced = false;
    this.flushes += 1;
    try {
      fdatasyncSync(this.fd);
    } catch (err) {
      throw explainDiskFull(toStorageError(err, 'flush'), this.path);
    }
  }

  /** The store closes: the descriptor closes now, or after the last flush that uses it. */
  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.fd !== null && this.fdUsers === 0) closeSync(this.fd);
    this.fd = null;
  }
}
