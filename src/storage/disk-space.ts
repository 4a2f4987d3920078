/**
 * Why an I/O error happened, when the disk is the likely reason. LMDB reports a short write (what
 * a full file system gives) as EIO, not ENOSPC, so a commit on a full disk would otherwise read
 * as "Input/output error". Called only on the error path.
 */
import { statfsSync } from 'node:fs';
import { StorageError } from './storage-error.js';

/** Below this many free bytes an EIO on write is reported as the disk being full. */
export const LOW_DISK_FREE_BYTES = 1024 * 1024;

/** `error` unchanged unless it is an IO error and the file system holding `path` is nearly full. */
export function explainDiskFull(error: StorageError, path: string): StorageError {
  if (error.code !== 'IO') return error;
  let free: number;
  try {
    const s = statfsSync(path);
    free = s.bavail * s.bsize;
  } catch {
    return error;
  }
  if (free >= LOW_DISK_FREE_BYTES) return error;
  return new StorageError('IO', `${error.message} (out of disk: ${free} bytes free on the file system holding ${path}; nothing of the write was applied)`, {
    cause: error.cause,
  });
}
