/**
 * Who may read a store's files. A store folder is made 0700 and every file edgetable writes in it
 * (data.mdb, lock.mdb, redo logs, writer registrations) 0600, whatever the process umask: items
 * and the log's copies of them are nobody else's business, and LMDB itself would make its files
 * 0664 less the umask.
 *
 * Sharing with a group is the folder's mode: a store's files take the folder's group bits (less
 * execute), never others' bits. `fileMode` 0o640 makes the folder 0750: group members may read
 * and copy the files (a backup user), but not open the store, since every LMDB open, read-only
 * ones too, writes its reader slot into lock.mdb. 0o660 makes it 0770: group members may open
 * the store, and write it. Without `fileMode` a new folder is 0700 and an existing one keeps its
 * group bits, so the owner's `chmod -R g+rwX` on the folder lasts; others' bits are removed at
 * every writable open.
 *
 * Modes are set with chmod after creation, so the umask only matters between the two calls,
 * when the folder is 0700 or the file is inside it. A process that does not own a file cannot
 * change its mode (a group writer): it leaves it as the owner set it.
 */
import { chmodSync, existsSync, fchmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from './storage-error.js';

export type FileMode = 0o600 | 0o640 | 0o660;
export const FILE_MODES: readonly FileMode[] = [0o600, 0o640, 0o660];
export const DEFAULT_FILE_MODE: FileMode = 0o600;

const OTHERS = 0o007;
const GROUP_RW = 0o060;
/** setuid, setgid, sticky: kept as the owner set them (setgid keeps the group on new files). */
const SPECIAL = 0o7000;

export function checkFileMode(mode: unknown): FileMode | undefined {
  if (mode === undefined) return undefined;
  if (!FILE_MODES.includes(mode as FileMode)) {
    const shown = typeof mode === 'number' ? `0${mode.toString(8)}` : JSON.stringify(mode);
    throw new StorageError('INVALID', `fileMode ${shown} is not one of ${FILE_MODES.map((m) => `0${m.toString(8)}`).join(', ')} (others never get access)`);
  }
  return mode as FileMode;
}

/** The folder mode that gives a group what `fileMode` gives it: execute beside any group access. */
export function folderModeFor(fileMode: number): number {
  return 0o700 | (fileMode & GROUP_RW) | ((fileMode & GROUP_RW) === 0 ? 0 : 0o010);
}

/** The mode of a file edgetable creates in `dir`: owner read-write plus the folder's group read/write bits. */
export function fileModeIn(dir: string): number {
  try {
    return 0o600 | (statSync(dir).mode & GROUP_RW);
  } catch {
    return DEFAULT_FILE_MODE;
  }
}

/**
 * Before a writable open: creates `dir` (0700, or as fileMode says) or brings an existing one to
 * fileMode when given, and takes others' access away in any case.
 */
export function prepareStoreFolder(dir: string, fileMode: number | undefined): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    setMode(dir, folderModeFor(fileMode ?? DEFAULT_FILE_MODE));
    return;
  }
  const current = statSync(dir).mode & 0o7777;
  const wanted = fileMode === undefined ? current & ~OTHERS : (current & SPECIAL) | folderModeFor(fileMode);
  if (wanted !== current) setMode(dir, wanted);
}

/** After a writable open: `dir`'s existing files named here get fileModeIn(dir). */
export function settleFileModes(dir: string, names: readonly string[]): void {
  const mode = fileModeIn(dir);
  for (const name of names) {
    const path = join(dir, name);
    let current: number;
    try {
      current = statSync(path).mode & 0o777;
    } catch {
      continue; // not there (lock.mdb elsewhere)
    }
    if (current !== mode) setMode(path, mode);
  }
}

/** A file just created by this process, open as `fd` in `dir`. */
export function settleCreatedFile(fd: number, dir: string): void {
  fchmodSync(fd, fileModeIn(dir));
}

/** chmod, except where this process does not own the file: the owner's choice stands then. */
export function setMode(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPERM') return;
    throw new StorageError('IO', `chmod ${path} to 0${mode.toString(8)}: ${(err as Error).message}`, { cause: err });
  }
}
