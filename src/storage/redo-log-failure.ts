/**
 * The redo log's failure state (running-redo-log.ts): a flush of the log, or a take-back, that
 * failed. What reached the disk is unknown then (fsync errors are reported once, and the page
 * cache may still hand the record to a reader), so no write goes on in that generation until
 * recover() begins a new one with a checkpoint of the store as it is: the records of the damaged
 * generation then precede the checkpoint recovery starts from, and are never replayed.
 *
 * A write whose own record was in the failed flush is settled before its error is returned
 * (RedoLog.settle): the new generation is begun at once, not at the next write, so a crash between
 * the error and the next write cannot replay a write that was reported failed. Its error then
 * says that nothing of it was applied, nor ever will be; if the new generation cannot be begun
 * either, the store closes and the error says that the reopen settles it (settledAtReopen).
 * Also here: relogApplied, a committed write's record logged again after a checkpoint retired it.
 */
import type { RedoLogFile } from './redo-log-file.js';
import { StorageError, toStorageError } from './storage-error.js';

/** What relogApplied uses of the running log (running-redo-log.ts), which builds on this file. */
type RelogTarget = {
  append(sequence: bigint, payload: Uint8Array): unknown;
  flushSync(): void;
  readonly failed: boolean;
  recover(): void;
  checkpointNow(): void;
  repin(): void;
};

export class LogFailure {
  private error: StorageError | null = null;
  /** The files a failure left in an unknown state: never written again before a checkpoint completes elsewhere. */
  readonly damaged = new Set<RedoLogFile>();
  /** Failures settled (a new generation without their records, or the records taken back), and how: their writes were not applied and never will be. */
  private readonly settled = new WeakMap<StorageError, string>();

  constructor(private readonly dir: string) {}

  /** The failure no write goes on past, or null. */
  get current(): StorageError | null {
    return this.error;
  }

  /** Records a failure of `files` (the first one stands until recover() clears it) and returns it. */
  record(err: unknown, what: string, files: readonly RedoLogFile[]): StorageError {
    for (const file of files) this.damaged.add(file);
    const cause = err instanceof StorageError ? err : toStorageError(err, `redo log ${what}`);
    this.error ??= new StorageError('IO', `store ${this.dir}: the redo log failed to ${what} (${cause.message}); no write goes on until a new log generation begins (the next write, or a reopen, begins it)`, { cause });
    return this.error;
  }

  /** recover() begins: the failure is taken out while it tries (a failure meanwhile is recorded anew). */
  take(): StorageError | null {
    const error = this.error;
    this.error = null;
    return error;
  }

  /** recover() failed: the earlier failure stands unless a new one was recorded. */
  restore(error: StorageError): StorageError {
    this.error ??= error;
    return this.error;
  }

  /** recover() began a new generation with a durable checkpoint: `error` is history. */
  markSettled(error: StorageError): void {
    this.settled.set(error, 'the log began a new generation without its record');
    this.damaged.clear();
  }

  /**
   * When no new generation can begin yet: takes back, durably, the records of the damaged files
   * that are not known to be durable (RedoLogFile.voidUnflushed), so their writes are settled as
   * not applied; the failure stands (recover() at the next write). False when that failed too.
   */
  voidDamaged(beforeFlush: () => void): boolean {
    const error = this.error;
    if (error === null) return false;
    try {
      beforeFlush();
      for (const file of this.damaged) file.voidUnflushed();
    } catch {
      return false;
    }
    this.settled.set(error, 'its record was taken back');
    return true;
  }

  /** A write's error once its failure is settled: it says that nothing of the write was, or will be, applied. */
  explain(err: unknown): unknown {
    const how = err instanceof StorageError ? this.settled.get(err) : undefined;
    if (how === undefined) return err;
    const cause = (err as StorageError).cause instanceof Error ? ((err as StorageError).cause as Error).message : (err as Error).message;
    return new StorageError('IO', `store ${this.dir}: this write's redo log record could not be made durable (${cause}); nothing of this write was applied, and nothing of it will be: ${how}`, { cause: err });
  }
}

/** A write whose record may be in the log, failed in a store that closed with the log kept: the reopen's replay decides. */
export function settledAtReopen(closed: StorageError, cause: unknown): StorageError {
  return new StorageError('IO', `${closed.message}. Whether this write was applied is settled when the store is reopened: the reopen replays its redo log record if the record reached the disk, and leaves it out otherwise`, { cause });
}

/** What the Store does about a logged write's failure (settleLoggedWrite). */
export interface LoggedWriteHost {
  /** Commits the writes held in the store's write txn (their records precede the new generation's checkpoint). */
  commitHeld(): void;
  /** Closes the store for good, keeping the log for the next open; returns why it closed. */
  closeStore(cause: unknown): StorageError;
}

/**
 * A logged write failed with `err`, its txn ended: before the error is returned, makes its outcome
 * definite (RedoLog.settle) or, when the log cannot go on, closes the store so the reopen settles it.
 */
export function settleLoggedWrite(redo: { readonly failed: boolean; settle(err: unknown): unknown } | null, err: unknown, host: LoggedWriteHost): unknown {
  if (redo === null) return err;
  if (redo.failed) {
    try {
      host.commitHeld();
    } catch (held) {
      // The held writes are in the log only (a full disk): no new generation may come before them.
      return settledAtReopen(host.closeStore(held), err);
    }
  }
  const settled = redo.settle(err);
  return settled !== undefined ? settled : settledAtReopen(host.closeStore(err), err);
}

/**
 * A logged write whose apply committed after a checkpoint retired the file its record is in: the
 * record goes into the current file. If that fails (a failed flush, a full disk) the commit is
 * visible but durable nowhere, so a checkpoint of the store as it is must cover it (after a
 * failed flush, recover()'s new generation); only if that fails too does the write fail, its
 * outcome then unknown (committed, not durable).
 */
export function relogApplied(redo: RelogTarget, sequence: bigint, payload: Uint8Array): void {
  try {
    redo.append(sequence, payload);
    redo.flushSync();
  } catch (err) {
    try {
      if (redo.failed) redo.recover();
      else {
        redo.checkpointNow();
        redo.repin();
      }
    } catch {
      throw err;
    }
  }
}
