/**
 * Durability 'log' (and 'interval', which defers the log's flush: deferred-flush.ts): LMDB commits without flushes (MDB_NOSYNC) and every changing write txn is made
 * durable by one append to a redo log and one flush of it, instead of LMDB's two flushes of
 * scattered pages and a meta page. Checkpoints flush data.mdb behind the commits, off the main
 * thread, and record the meta page of the commit they made durable. The reasoning and the
 * measurements: docs/decisions/010-redo-log-durability.md; the rules this module keeps:
 *
 * - Pins. LMDB reuses a page only once no reader's snapshot is older than the txn that freed it.
 *   A read txn held at the newest durable checkpoint (the pin) therefore keeps every page of that
 *   checkpoint's tree on the disk, however many commits without flushes come after it. A new
 *   checkpoint takes its pin before it flushes and drops the old pin only once its record is
 *   durable, so some durable checkpoint is always pinned.
 * - Order. A txn's record is appended and flushed before LMDB commits it (Store.runWrite), so
 *   nothing another reader can see is less durable than the log; the records are appended in
 *   commit order, each carrying the write sequence (write-sequence.ts) its commit sets. Of two
 *   records with one sequence value (a write whose apply found another commit first, or a commit
 *   retried after the map grew), the later one is what happened; a VOID record names one that
 *   never committed.
 * - Generations. Each checkpoint switches to the next log file before it flushes data.mdb, so
 *   every record in the new file follows the checkpoint's commit; the checkpoint's own record goes
 *   into that file once data.mdb is flushed, and the older files are removed after it is durable.
 *   Recovery uses the last checkpoint record of the newest file holding one, and replays every
 *   CHANGES record of that file and the newer ones whose sequence is past the store's.
 * - Recovery. After a process crash the page cache still holds every page LMDB wrote, so data.mdb
 *   is whole and only records past its write sequence (appended and flushed, not committed) are
 *   replayed. After the machine restarted (another boot id) data.mdb's meta pages may name pages
 *   that never reached the disk: the checkpoint's meta page is written back into both slots first
 *   (meta-pages.ts), before LMDB opens the file, and everything since is replayed from the log.
 * - One process. One process at a time logs a folder: it claims it in `redo.owner` (pid and boot
 *   id). Any other process that opens the folder for writing registers itself first and the
 *   logging one hands the folder over (redo-handover.ts): its log closed, LMDB reopened with
 *   durable commits. Read-only opens are allowed at any time.
 */
import { closeSync, existsSync, fdatasyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbDbi, LmdbEnv } from './lmdb-binding.js';
import { awaitHandover, claimOwner, releaseOwner } from './redo-handover.js';
import { currentBootId } from './redo-log-file.js';
import { StorageError } from './storage-error.js';
import type { CheckpointPolicy } from './checkpoint-policy.js';
import { appendCheckpointTo } from './redo-checkpoint-state.js';
import { checkDataFileFollowsCheckpoint, checkpointBeforeReplay, readRecoveryPlan, replayRecords, restoreCheckpoint } from './redo-recovery.js';
import { retireLogFiles } from './redo-log-removal.js';
import { RedoLog } from './running-redo-log.js';

// The parts of the redo log live beside this file; every name it exported before stays importable here.
export { DEFAULT_CHECKPOINT_POLICY, type CheckpointPolicy } from './checkpoint-policy.js';
export { RedoLog, type RecordRef } from './running-redo-log.js';
export { sequenceOf } from './redo-checkpoint-state.js';
export { readRecoveryPlan, restoreCheckpoint, replayRecords, type RecoveryPlan } from './redo-recovery.js';
export { discardRedoLog, removeLogFiles, retireLogFiles } from './redo-log-removal.js';

// ---------------------------------------------------------------------------------------------
// Opening a folder

/** How long the log's flush may wait after a write: durability 'interval' (deferred-flush.ts); null: none ('log'). */
export function flushIntervalOf(options: { durability: string; syncIntervalMs: number }): number | null {
  return options.durability === 'interval' ? options.syncIntervalMs : null;
}

/** What Store.open does about the redo log, in two steps around LMDB's open (see prepareRecovery). */
export interface FolderRecovery {
  /** Once LMDB opened the folder for writing: replays the log, then starts the log (logging) or removes it. Returns the log. */
  finish(env: LmdbEnv, main: LmdbDbi, options: { durability: string; checkpoint: CheckpointPolicy; maxMapSizeBytes: number; syncIntervalMs: number }): RedoLog | null;
  /** Drops this process's claim on the folder (an open that failed). */
  release(): void;
}

/**
 * Before LMDB opens `dir`, after this process registered as a writer or claimed the folder to log
 * (redo-handover.ts): claims the folder to recover a log left behind, reads the log files, and
 * after a restart writes the checkpoint's meta page back (only a writable open may; a read-only
 * one is refused until then). `logging`: this process claimed the folder and will log.
 */
export function prepareRecovery(dir: string, readOnly: boolean, logging: boolean, handoverTimeoutMs: number): FolderRecovery {
  let claimed = logging;
  const release = (): void => {
    if (claimed) releaseOwner(dir);
    claimed = false;
  };
  if (!existsSync(dir)) return { finish: () => null, release };
  const bootId = currentBootId();
  try {
    let plan = readRecoveryPlan(dir, bootId);
    if (plan.files.length > 0 && !readOnly && !claimed) {
      awaitHandover(dir, bootId, handoverTimeoutMs); // another writer recovering it first
      claimOwner(dir, bootId); // one recovery at a time
      claimed = true;
      plan = readRecoveryPlan(dir, bootId);
    }
    if (plan.rebooted) {
      if (readOnly) throw new StorageError('BUSY', `store ${dir} was written with durability 'log' before the machine restarted and must recover from its redo log first: open it for writing once`);
      restoreCheckpoint(dir, plan);
    } else if (plan.checkpoint !== undefined) {
      checkDataFileFollowsCheckpoint(dir, plan.checkpoint.meta);
    }
    const finish: FolderRecovery['finish'] = (env, main, options) => {
      if (plan.checkpoint !== undefined && !plan.rebooted && plan.records.length > 0) checkpointBeforeReplay(dir, env, main, plan);
      replayRecords(env, main, plan, dir, options.maxMapSizeBytes);
      if (logging) return RedoLog.start(dir, env, main, plan, options.checkpoint, flushIntervalOf(options));
      if (plan.files.length > 0) {
        const fd = openSync(join(dir, 'data.mdb'), 'r+');
        try {
          fdatasyncSync(fd); // the replay's commit, in any durability, before the log that holds it goes
          if (plan.newestFile !== undefined) appendCheckpointTo(dir, plan.newestFile, env, main, fd);
        } finally {
          closeSync(fd);
        }
        retireLogFiles(dir, plan.newestFile, plan.files);
      }
      release();
      return null;
    };
    return { finish, release };
  } catch (err) {
    release();
    throw err;
  }
}
