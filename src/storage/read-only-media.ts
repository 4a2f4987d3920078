/**
 * Reading a store on read-only media (a card taken out of a device, a write-protected stick, a
 * read-only mount). node-lmdb 0.10.1's LMDB opens data.mdb for writing its meta pages even when
 * the env is MDB_RDONLY (mdb_env_open: MDB_O_META, unconditionally), so an env cannot open there
 * at all: EROFS. A readOnly open on a read-only file system therefore gives LMDB a private copy
 * of data.mdb in a new folder under os.tmpdir() (TMPDIR chooses where) and removes it when the
 * store closes. The copy is consistent: nothing writes through a read-only mount on this host.
 * It costs the file's size in the temp folder and the time to copy it (a reflink where the file
 * system offers one); the store's own files are only read.
 *
 * Not done for a folder that is merely not writable by this user (EACCES): a writer may be
 * committing there, and a copy made meanwhile could be torn. That open fails as LMDB says.
 */
import { chmodSync, constants, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATA_FILE } from './data-file-check.js';
import { toStorageError } from './storage-error.js';

/** A private copy of a store's data file for LMDB to open read-only; remove() deletes it (idempotent). */
export interface ReadingCopy {
  /** The folder LMDB opens instead of the store's. */
  readonly path: string;
  remove(): void;
}

/** Copies `path`/data.mdb into a new private temp folder. Throws StorageError('IO') with nothing left behind. */
export function copyForReading(path: string): ReadingCopy {
  let folder: string | null = null;
  try {
    folder = mkdtempSync(join(tmpdir(), 'edgetable-read-only-'));
    const copy = join(folder, DATA_FILE);
    copyFileSync(join(path, DATA_FILE), copy, constants.COPYFILE_FICLONE);
    chmodSync(copy, 0o600); // the media's modes (0444) would refuse LMDB's meta-page descriptor
  } catch (err) {
    if (folder !== null) rmSync(folder, { recursive: true, force: true });
    throw toStorageError(err, `open store ${path} on read-only media: copy ${DATA_FILE} into ${tmpdir()}`);
  }
  const made = folder;
  let removed = false;
  return {
    path: made,
    remove() {
      if (removed) return;
      removed = true;
      rmSync(made, { recursive: true, force: true });
    },
  };
}
