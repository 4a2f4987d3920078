/**
 * Damage LMDB itself does not report at open, checked before anything reads the map. LMDB keeps
 * no page checksums and maps the file: a truncated data.mdb (a copy cut short, a full disk during
 * a copy, a bad SD card) opens "fine" and the first read of a page past the end kills the process
 * with SIGBUS; an emptied data.mdb opens as a brand-new, empty store (a silent wrong answer).
 * Both become StorageError('CORRUPT') here. Damage inside pages is not detectable at open; see
 * docs/reliability.md.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbEnv } from './lmdb-binding.js';
import { StorageError } from './storage-error.js';

export const DATA_FILE = 'data.mdb';

/** Before env.open: an existing zero-length data file is a store that lost its contents. */
export function checkDataFileNotEmptied(path: string): void {
  let size: number;
  try {
    size = statSync(join(path, DATA_FILE)).size;
  } catch {
    return; // no data file: a new store
  }
  if (size === 0) {
    throw new StorageError(
      'CORRUPT',
      `open store ${path}: ${DATA_FILE} is empty (0 bytes): the store's contents are lost; ` +
        `restore it from a backup or the hub, or remove ${DATA_FILE} to start an empty store`,
    );
  }
}

/**
 * After env.open, before any page is read: the file must reach the last page the newest meta page
 * names. Meta first, file size second: a writer in another process only extends the file before
 * it publishes a meta page, so this order cannot see a false truncation.
 */
export function checkDataFileNotTruncated(env: LmdbEnv, path: string): void {
  const lastPage = env.info().lastPageNumber;
  const pageSize = env.stat().pageSize;
  const needed = (lastPage + 1) * pageSize;
  const size = statSync(join(path, DATA_FILE)).size;
  if (size < needed) {
    throw new StorageError(
      'CORRUPT',
      `open store ${path}: ${DATA_FILE} is truncated: ${size} bytes, but its last committed page ends at byte ${needed}; ` +
        `open a copy of an intact file, or rebuild from the hub`,
    );
  }
}
