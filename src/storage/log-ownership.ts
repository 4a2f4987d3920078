/**
 * Durability 'log': whether this process commits through the redo log now, and the handover of
 * the folder to another writer and back (redo-handover.ts). One process logs at a time
 * (redo.owner); while another writer is registered this one closes its log (data.mdb flushed,
 * log files removed), reopens LMDB with durable commits and commits as 'sync' does; once alone
 * again it claims the folder and logs again.
 */
import { statSync } from 'node:fs';
import type { CommitFlushes } from './commit-flushes.js';
import { currentBootId } from './redo-log-file.js';
import { settleLoggedWrite, settledAtReopen } from './redo-log-failure.js';
import { otherWriters, registerWriter, releaseOwner, tryClaimOwner, unregisterWriter, watchWriters } from './redo-handover.js';
import { RedoLog, flushIntervalOf, readRecoveryPlan } from './redo-log.js';
import type { StorageError } from './storage-error.js';
import type { StoreEnv } from './store-env.js';
import { logsThroughRedo, type ResolvedStoreOptions } from './store-options.js';

/** The longest a process writing in a loop that never yields goes without looking for writers that registered. */
export const NOTICE_WRITERS_MS = 10;

/** What the handover needs of the Store around it. */
export interface LogOwnershipHost {
  /** No txn of the Store is open (a handover may only come between txns). */
  readonly betweenTxns: boolean;
  /** Commits what the held txn holds (held-txn.ts). */
  commitHeld(): void;
  /** Applies held writes whose commit failed, then commits what the held txn holds; throws while it cannot. */
  commitAllHeld(): void;
  /** Closes the Store after a half-done handover or a failure nothing can settle; returns why. */
  closeAfterFailure(err: unknown, what: string): StorageError;
}

export class LogOwnership {
  /** The redo log every changing write txn is appended to and flushed through, while this process logs. */
  redo: RedoLog | null;
  /** Registered as a writer beside a logging process: commits as 'sync' does. */
  private registered: boolean;
  /** The folder's mtime when this process last looked for other writers (noticeWriters). */
  private folderMtime = 0;
  /** When noticeWriters last read the folder's mtime (performance.now()). */
  private lookedAt = -Infinity;
  private stopWatching: (() => void) | null = null;
  /** Redo logs this store closed (at close() or a handover) whose flushes may still be running. */
  private readonly retiredLogs = new Set<RedoLog>();

  constructor(
    private readonly path: string,
    private readonly options: ResolvedStoreOptions,
    private readonly env: StoreEnv,
    private readonly flushes: CommitFlushes,
    private readonly host: LogOwnershipHost,
    joined: { readonly redo: RedoLog | null; readonly registered: boolean },
  ) {
    this.redo = joined.redo;
    if (this.redo !== null) this.adopt(this.redo);
    this.registered = joined.registered;
    if (logsThroughRedo(options.durability) && !options.readOnly) this.stopWatching = watchWriters(path, () => this.reconsider());
  }

  /**
   * When a writer registers or goes (redo-handover.ts): hands the folder over while another
   * writer is registered, takes the log back up once none is. Only between txns, with no native
   * work in flight (the poll comes back otherwise).
   */
  reconsider(): void {
    if (this.env.closed || !this.host.betweenTxns || this.env.nativeWorkRunning) return;
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
   * After a commit (and a held write): a writer that registers changes the folder's mtime, so a
   * process that writes in a loop without yielding (its watcher never runs) still hands over, at
   * the first write NOTICE_WRITERS_MS or more after its last look. At most one stat per
   * NOTICE_WRITERS_MS, in durability 'log' and 'interval' only: a stat per held write was a cost
   * of its own (docs/decisions/024-single-put-path.md), and the writer waits up to
   * handoverTimeoutMs for the handover anyway.
   */
  noticeWriters(): void {
    if (this.stopWatching === null) return;
    const now = performance.now();
    if (now - this.lookedAt < NOTICE_WRITERS_MS) return;
    this.lookedAt = now;
    let mtime: number;
    try {
      mtime = statSync(this.path).mtimeMs;
    } catch {
      return;
    }
    if (mtime === this.folderMtime) return;
    this.folderMtime = mtime;
    this.reconsider();
  }

  /**
   * Another writer registered: close the log (data.mdb flushed, log files removed: every commit is
   * in data.mdb, durably), reopen LMDB with its durable commits, and only then drop the claim the
   * other writer waits on. Logged db.promises writes in flight re-run on the durable path.
   */
  private handOver(bootId: string): void {
    try {
      this.host.commitAllHeld();
    } catch {
      return; // held writes durable in the log only (a full disk): the handover waits until they are committed
    }
    const redo = this.redo!;
    registerWriter(this.path, bootId);
    this.registered = true;
    this.redo = null;
    try {
      this.retire(redo);
      this.env.reopen(false);
    } catch (err) {
      // The log (if it could not be closed) stays for the next open to recover; this Store is done.
      this.host.closeAfterFailure(err, 'hand the folder over to another writer');
      return;
    }
    this.flushes.mode = 'sync';
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
      this.env.reopen(true);
      this.flushes.mode = 'log';
      this.redo = RedoLog.start(this.path, this.env.checkOpen(), this.env.catalog.handle!, readRecoveryPlan(this.path, bootId), this.options.checkpoint, flushIntervalOf(this.options));
      this.adopt(this.redo);
    } catch (err) {
      this.host.closeAfterFailure(err, 'take the redo log back up');
      return;
    }
    unregisterWriter(this.path);
    this.registered = false;
  }

  /** A log this process started: the fault seam, and its deferred flushes' times told as the Store's flushes ('interval'). */
  private adopt(redo: RedoLog): void {
    redo.faults = this.options.faults;
    if (redo.deferred !== null) redo.deferred.onFlushed = (seconds) => this.flushes.onFlush?.('flush', seconds);
  }

  /** A logged write failed, its txn ended: its outcome made definite before its error is returned (redo-log-failure.ts). */
  settleLogged(err: unknown): unknown {
    if (this.env.failure !== null) return settledAtReopen(this.env.failure, err); // closed by a failure: the log was kept
    return settleLoggedWrite(this.redo, err, {
      commitHeld: () => this.host.commitHeld(),
      closeStore: (cause) => this.host.closeAfterFailure(cause, 'begin a new redo log generation after a failed flush'),
    });
  }

  /** The log is left for the next open to recover (held writes it alone holds): this process no longer logs. */
  abandon(): void {
    this.redo = null;
    releaseOwner(this.path);
  }

  /** A failure closes the Store: the log stays as it is for the next open; the claim goes once the Store closed (leave). */
  keepLogForRecovery(): void {
    this.redo = null;
  }

  /**
   * The Store closes: its log's close flushes data.mdb, logs a last checkpoint and removes the
   * log; if that fails the log stays for the next open to recover from. Returns that failure.
   */
  close(): unknown {
    this.stopWatching?.();
    this.stopWatching = null;
    let failure: unknown;
    if (this.redo !== null) {
      const redo = this.redo;
      this.redo = null;
      try {
        this.retire(redo);
      } catch (err) {
        failure = err;
      }
      releaseOwner(this.path);
    }
    return failure;
  }

  /** After close(): the folder's writer registration goes; after a failure that closed the Store (`releaseClaim`), its claim to log too. */
  leave(releaseClaim = false): void {
    this.stopWatching?.();
    this.stopWatching = null;
    if (this.registered) unregisterWriter(this.path);
    this.registered = false;
    if (releaseClaim) releaseOwner(this.path);
  }

  /** Resolves once every retired log's flushes in flight have returned. */
  async released(): Promise<void> {
    await Promise.all([...this.retiredLogs].map((log) => log.released()));
  }

  /** Closes a redo log (close() or a handover) and keeps it until its flushes in flight have returned. */
  private retire(log: RedoLog): void {
    this.retiredLogs.add(log);
    void log.released().then(() => this.retiredLogs.delete(log));
    log.close();
  }
}
