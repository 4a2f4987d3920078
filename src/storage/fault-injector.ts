/**
 * The fault seam (as LevelDB's fault-injection Env and SQLite's simulated I/O errors): tests hand a
 * FaultInjector to Store.open and arm it to fail the Nth put or the Nth commit with
 * StorageError('IO'). Counting is 1-based over the store's life and includes puts of write fns
 * that are re-run after a map growth. A failed put or commit aborts the whole write txn, exactly
 * as a real I/O error would, so tests can prove nothing partial remains.
 */
import { StorageError } from './storage-error.js';

export class FaultInjector {
  /** Fail the put whose 1-based count equals this; undefined = never. */
  failPutAt: number | undefined;
  /** Fail the commit whose 1-based count equals this; undefined = never. */
  failCommitAt: number | undefined;
  /**
   * Called by store.writeAsync between recording a txn and replaying it (async-commits.ts, "Asynchronous
   * commits"), on the main thread with no txn open: a test commits there to force the conflict
   * that another writer would cause.
   */
  betweenRecordAndReplay: (() => void) | undefined;
  /** Durability 'log': fail the flush of the redo log whose 1-based count equals this (redo-log.ts). */
  failLogFlushAt: number | undefined;
  /** Durability 'log': fail every flush of the redo log from this 1-based count on (a medium that stays broken). */
  failLogFlushesFrom: number | undefined;
  /** Durability 'log': fail the checkpoint's flush of data.mdb whose 1-based count equals this (redo-log.ts). */
  failDataFlushAt: number | undefined;
  /** Held writes (logWritesPerCommit > 1): fail the LMDB commit of the held txn whose 1-based count equals this (store.ts). */
  failHeldCommitAt: number | undefined;
  puts = 0;
  commits = 0;
  logFlushes = 0;
  dataFlushes = 0;
  heldCommits = 0;

  constructor(options: { failPutAt?: number; failCommitAt?: number } = {}) {
    this.failPutAt = options.failPutAt;
    this.failCommitAt = options.failCommitAt;
  }

  /** Called before every put reaches LMDB. */
  beforePut(): void {
    this.puts += 1;
    if (this.puts === this.failPutAt) throw new StorageError('IO', `injected fault: put #${this.puts} failed`);
  }

  /** Called before every flush of the redo log. */
  beforeLogFlush(): void {
    this.logFlushes += 1;
    if (this.logFlushes === this.failLogFlushAt || this.logFlushes >= (this.failLogFlushesFrom ?? Infinity)) throw new StorageError('IO', `injected fault: log flush #${this.logFlushes} failed`);
  }

  /** Called before every flush of data.mdb a checkpoint of the redo log makes. */
  beforeDataFlush(): void {
    this.dataFlushes += 1;
    if (this.dataFlushes === this.failDataFlushAt) throw new StorageError('IO', `injected fault: data flush #${this.dataFlushes} failed`);
  }

  /** Called before a held txn's commit reaches LMDB. */
  beforeHeldCommit(): void {
    this.heldCommits += 1;
    if (this.heldCommits === this.failHeldCommitAt) throw new StorageError('IO', `injected fault: held commit #${this.heldCommits} failed`);
  }

  /** Called before every commit reaches LMDB. */
  beforeCommit(): void {
    this.commits += 1;
    if (this.commits === this.failCommitAt) throw new StorageError('IO', `injected fault: commit #${this.commits} failed`);
  }
}
