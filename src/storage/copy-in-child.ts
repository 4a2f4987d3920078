/**
 * Store.copyTo in a child process (store-copy-child.ts): a damaged page met by LMDB's copy ends
 * the child, and the caller gets StorageError('CORRUPT') instead of dying with it.
 */
import { spawn } from 'node:child_process';
import { StorageError } from './storage-error.js';
import { childCommand } from './store-check.js';

/** Copies the store at `path` into `targetDir` (which must exist and hold no data.mdb). */
export function copyInChild(path: string, targetDir: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...childCommand('store-copy-child'), path, targetDir], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', (err) => reject(new StorageError('IO', `copy store ${path}: the copy could not start: ${err.message}`, { cause: err })));
    child.on('close', (status, signal) => {
      if (status === 0) return resolvePromise();
      if (signal !== null) return reject(new StorageError('CORRUPT', `copy store ${path}: LMDB's copy crashed (${signal}) reading the store: a damaged page`));
      let reported: { code?: string; message?: string } = {};
      try {
        reported = JSON.parse(stdout.trim().split('\n').pop() ?? '') as typeof reported;
      } catch {
        // no report: the exit code says it failed
      }
      reject(new StorageError((reported.code as StorageError['code'] | undefined) ?? 'IO', reported.message ?? `copy store ${path}: the copy ended with exit code ${status}`));
    });
  });
}
