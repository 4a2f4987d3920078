/**
 * Whether the store's last users closed it: every process that opens a folder leaves
 * `open.<pid>` (its boot id inside) there until it closes. A mark whose process is gone (a dead
 * pid, or an earlier boot) is an unclean shutdown: kill -9, a crash, a power cut. What it left
 * may be damaged (a torn write on a card without power-loss protection), so the next open checks
 * the store before LMDB reads a page (open-check.ts). A folder this process cannot write (a
 * read-only open of someone else's store) gets no mark; it is still checked after a crash of
 * the processes that could.
 */
import { readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileModeIn, setMode } from './file-modes.js';
import { isAlive } from './process-liveness.js';
import { currentBootId } from './redo-log-file.js';

const PREFIX = 'open.';

/** Marks of processes that ended without closing the store (not this process's own). */
export function staleOpenMarks(path: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path).filter((name) => name.startsWith(PREFIX));
  } catch {
    return [];
  }
  const bootId = currentBootId();
  return names.filter((name) => {
    const pid = Number(name.slice(PREFIX.length));
    if (!Number.isInteger(pid) || pid <= 0) return true;
    if (pid === process.pid) return false;
    let boot: string;
    try {
      boot = readFileSync(join(path, name), 'latin1').trim();
    } catch {
      return false; // removed meanwhile: its process closed
    }
    return boot !== bootId || !isAlive(pid);
  });
}

/** Removes marks found stale, once the store they speak of was checked. */
export function clearOpenMarks(path: string, names: readonly string[]): void {
  for (const name of names) {
    try {
      unlinkSync(join(path, name));
    } catch {
      // gone already, or a folder this process cannot write: the next open looks again
    }
  }
}

/** Leaves this process's mark; false when the folder cannot be written (no mark, nothing fails). */
export function markOpen(path: string): boolean {
  try {
    const mark = join(path, `${PREFIX}${process.pid}`);
    writeFileSync(mark, `${currentBootId()}\n`, { mode: 0o600 });
    setMode(mark, fileModeIn(path)); // as private as the store's other files, whatever the umask
    return true;
  } catch {
    return false;
  }
}

/** At a clean close. */
export function unmarkOpen(path: string): void {
  clearOpenMarks(path, [`${PREFIX}${process.pid}`]);
}
