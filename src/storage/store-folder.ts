/**
 * What the folder named by `path` must be before an open touches it, said as StorageErrors that
 * name the problem instead of the errno of whichever call met it first (mkdir's EEXIST or
 * ENOTDIR, LMDB's ENOENT, a writer registration's EROFS):
 * - a store is a folder: a path that is a file is INVALID;
 * - readOnly opens an existing store: no folder, or no data.mdb in it, is NOT_FOUND;
 * - a writable open writes the folder: a read-only file system is READ_ONLY (readOnly: true
 *   reads such a store, read-only-media.ts), missing permission is IO;
 * - a readOnly open still writes lock.mdb and opens data.mdb for writing: missing permission on
 *   either is IO (a read-only file system is not: LMDB reads a copy there).
 * Checked once, before the first step of the open sequence (store-open.ts); the later steps
 * still wrap whatever the OS answers them.
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DATA_FILE } from './data-file-check.js';
import { StorageError } from './storage-error.js';

/** Throws the StorageError that says why `path` cannot be opened as `readOnly` says; returns when it may. */
export function checkStoreFolder(path: string, readOnly: boolean): void {
  const stats = statOrNull(path);
  if (stats === null) {
    if (readOnly) throw new StorageError('NOT_FOUND', `open store ${path}: no such folder (readOnly opens an existing store)`);
    checkCanCreate(path);
    return;
  }
  if (!stats.isDirectory()) {
    const hint = basename(path) === DATA_FILE ? `; give the folder that holds it: ${dirname(path)}` : '';
    throw new StorageError('INVALID', `open store ${path}: it is a file, not a folder (a store is a folder holding ${DATA_FILE} and lock.mdb)${hint}`);
  }
  if (readOnly) {
    if (statOrNull(join(path, DATA_FILE)) === null) throw new StorageError('NOT_FOUND', `open store ${path}: no store in this folder (no ${DATA_FILE}; readOnly opens an existing store)`);
    // On a read-only file system (EROFS) LMDB reads a copy instead; a mere lack of permission is this user's.
    const file = [DATA_FILE, 'lock.mdb'].find((name) => statOrNull(join(path, name)) !== null && writeDenied(join(path, name)) === 'EACCES');
    if (file !== undefined) {
      throw new StorageError(
        'IO',
        `open store ${path}: this user may not write ${file}, and LMDB opens ${DATA_FILE} and lock.mdb for writing even to read ` +
          `(its reader slot; node-lmdb's LMDB also opens ${DATA_FILE} for its meta pages); open it as the store's owner or a member ` +
          `of its group with fileMode 0o660, or read a copy of the folder`,
      );
    }
    return;
  }
  const denied = writeDenied(path);
  if (denied === 'EROFS') {
    throw new StorageError('READ_ONLY', `open store ${path}: the folder is on a read-only file system; open it with readOnly: true to read it`);
  }
  if (denied !== null) throw new StorageError('IO', `open store ${path}: this user may not write in the folder (${denied}); a writable open writes ${DATA_FILE}, lock.mdb and the redo log there`);
}

/** A new store: the nearest existing ancestor must be a folder this process may write. */
function checkCanCreate(path: string): void {
  let ancestor = dirname(path);
  let stats = statOrNull(ancestor);
  while (stats === null && dirname(ancestor) !== ancestor) {
    ancestor = dirname(ancestor);
    stats = statOrNull(ancestor);
  }
  if (stats !== null && !stats.isDirectory()) {
    throw new StorageError('INVALID', `open store ${path}: cannot create the folder, ${ancestor} is a file`);
  }
  const denied = writeDenied(ancestor);
  if (denied === 'EROFS') throw new StorageError('READ_ONLY', `open store ${path}: cannot create the store, ${ancestor} is on a read-only file system`);
  if (denied !== null) throw new StorageError('IO', `open store ${path}: cannot create the store, this user may not write in ${ancestor} (${denied})`);
}

/** Whether `path` is on a file system mounted read-only (access(W_OK) answers EROFS, for root too). */
export function onReadOnlyFileSystem(path: string): boolean {
  return writeDenied(path) === 'EROFS';
}

/** access(W_OK): null when writable, else the errno code (EROFS even for root, EACCES for others). */
function writeDenied(path: string): string | null {
  try {
    accessSync(path, constants.W_OK);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'EACCES';
  }
}

/** null when nothing is there (ENOENT, or a file where a folder should be: ENOTDIR). */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new StorageError('IO', `open store: stat ${path}: ${(err as Error).message}`, { cause: err });
  }
}
