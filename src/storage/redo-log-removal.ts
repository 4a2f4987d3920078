/** Removing a folder's redo log files: in the order that keeps every state in between recoverable. */
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { OWNER_FILE, liveOwner, ownedBy } from './redo-handover.js';
import { currentBootId, LOG_FILES, flushFolder } from './redo-log-file.js';

/**
 * For a folder whose data.mdb is about to be replaced whole (restore): removes the redo log a
 * 'log' process that ended without closing left behind, which describes the store being replaced
 * and would otherwise be replayed over the new one. Throws BUSY while its owner lives.
 */
export function discardRedoLog(dir: string): void {
  const owner = liveOwner(dir, currentBootId());
  if (owner !== undefined) throw ownedBy(dir, owner);
  removeLogFiles(dir, [...LOG_FILES, OWNER_FILE].filter((name) => existsSync(join(dir, name))));
}

/** Removes log files by name and flushes the folder; a file already gone is fine. */
export function removeLogFiles(dir: string, names: readonly string[]): void {
  if (names.length === 0) return;
  for (const name of names) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      /* gone */
    }
  }
  flushFolder(dir);
}

/**
 * Removes the log files once data.mdb holds every commit durably (a close, a handover, a recovery
 * that does not go on logging), `last` being the file whose newest record is a checkpoint of
 * data.mdb as it is, flushed. A power cut can leave any of the unlinks undone (nothing orders them
 * before the folder's flush), and a file left alone whose newest checkpoint is older than data.mdb
 * would, after a restart, roll the store back to that checkpoint (its meta page written back, the
 * records of the files removed lost) or stop it opening. So the other files go first, the folder
 * flushed, and `last` only then: every state in between recovers to data.mdb as it is.
 */
export function retireLogFiles(dir: string, last: string | undefined, names: readonly string[]): void {
  removeLogFiles(dir, names.filter((name) => name !== last));
  if (last !== undefined) removeLogFiles(dir, [last]);
}
