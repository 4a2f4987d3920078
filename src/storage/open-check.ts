/**
 * The structural check at open (store-check.ts), before LMDB reads a page of the store: a store
 * that was damaged before it was opened is refused with StorageError('CORRUPT') instead of being
 * read as valid data or crashing the process on a bad pointer.
 *
 * checkOnOpen:
 * - 'unclean' (default): when a process that had the folder open ended without closing it
 *   (open-marks.ts): the case where a torn write is likely. The cost is one read of the whole
 *   file (docs/reliability.md has the figures), paid only after a crash or power cut.
 * - 'always': at every open; for stores on media that decay while nobody writes (SD cards).
 * - 'never': no check (a store known good, tests of other things).
 * A folder with no data file yet (a new store) is never checked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILE } from './data-file-check.js';
import { walkUnsupportedHere } from './data-file-walk.js';
import { clearOpenMarks, staleOpenMarks } from './open-marks.js';
import { checkStoreSync, storeDamagedError } from './store-check.js';
import { StorageError } from './storage-error.js';

export type CheckOnOpen = 'unclean' | 'always' | 'never';
export const CHECK_ON_OPEN_MODES: readonly CheckOnOpen[] = ['unclean', 'always', 'never'];

/**
 * Throws StorageError('CORRUPT') when the check finds damage. A check that could not run (no
 * process could be started, it ran past its time) does not keep the store shut: it opens, and
 * the marks stay, so the next open checks again. `dataPath`: the folder whose data file the walk
 * reads, when LMDB opens a copy of the store's (read-only-media.ts). On hosts the walk does not read (32-bit
 * processes, see data-file-walk.ts) nothing is checked: docs/reliability.md says so.
 */
export function checkBeforeOpen(path: string, mode: CheckOnOpen, dataPath: string = path): void {
  if (mode === 'never' || walkUnsupportedHere() !== null || !existsSync(join(path, DATA_FILE))) return;
  const stale = staleOpenMarks(path);
  if (mode === 'unclean' && stale.length === 0) return;
  const result = checkStoreSync(dataPath);
  if (result.outcome === 'damaged') throw storeDamagedError(path, result); // the marks stay: the next open checks again
  if (result.outcome === 'clean') clearOpenMarks(path, stale);
}

export function checkCheckOnOpen(mode: unknown): CheckOnOpen {
  if (!CHECK_ON_OPEN_MODES.includes(mode as CheckOnOpen)) {
    throw new StorageError('INVALID', `checkOnOpen ${JSON.stringify(mode)} is not one of ${CHECK_ON_OPEN_MODES.map((m) => `'${m}'`).join(', ')}`);
  }
  return mode as CheckOnOpen;
}
