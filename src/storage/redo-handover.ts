/**
 * Several writing processes on a folder written with durability 'log'.
 *
 * The redo log's recovery knows only the commits in the log: after a restart it goes back to the
 * last checkpoint and replays the log, so a commit another process made meanwhile (durable in
 * data.mdb, but not in the log) would be lost. So while one process logs (the owner: it holds
 * `redo.owner`) no other process commits. Instead:
 * - Every other process that opens the folder for writing first registers itself in
 *   `redo.writer-<pid>` (pid and boot id) and then waits until no live owner holds the claim.
 * - The owner watches the folder. When a registration appears it hands the folder over: it
 *   registers itself, closes its log (data.mdb flushed, every log file removed: LMDB's own
 *   recovery holds from here), reopens LMDB with durable commits, and only then drops the claim.
 *   Everybody then commits as 'sync' does, each commit durable by LMDB's two flushes.
 * - A process opened with 'log' takes the log (back) up when no other process is registered: it
 *   claims the folder, checks once more that nobody registered, reopens LMDB without flushes and
 *   starts a log with a checkpoint of the store as it is (durable: every commit before was).
 * A claimer checks the registrations after claiming and a registrant checks the claim after
 * registering, so of two that race at least one sees the other: never do both go ahead.
 * Registrations and claims of processes that are gone (dead pid, or an earlier boot) are stale
 * and removed by whoever finds them.
 */
import { readFileSync, readdirSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { fileModeIn, setMode } from './file-modes.js';
import { join } from 'node:path';
import { isAlive } from './process-liveness.js';
import { currentBootId } from './redo-log-file.js';
import { StorageError, toStorageError } from './storage-error.js';

export const OWNER_FILE = 'redo.owner';

const WRITER_PREFIX = 'redo.writer-';

/** How long a writable open waits for the owner to hand the folder over, unless told otherwise. */
export const DEFAULT_HANDOVER_TIMEOUT_MS = 15_000;

// ---------------------------------------------------------------------------------------------
// The claim (redo.owner)

/** The live owner of the folder other than this process, or undefined. A stale claim (dead pid, earlier boot) is removed. */
export function liveOwner(dir: string, bootId: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, OWNER_FILE), 'latin1');
  } catch {
    return undefined;
  }
  const [pidText, boot] = text.split('\n');
  const pid = Number(pidText);
  if (boot === bootId && Number.isInteger(pid) && pid > 0 && (pid === process.pid || isAlive(pid))) return pid === process.pid ? undefined : pid;
  return undefined;
}

/** Claims the folder for this process; throws BUSY when another live process holds it. */
export function claimOwner(dir: string, bootId: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n${bootId}\n`, { flag: 'wx', mode: 0o600 });
      setMode(join(dir, OWNER_FILE), fileModeIn(dir)); // group writers read it
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw toStorageError(err, `claim store ${dir}`);
    }
    const owner = liveOwner(dir, bootId);
    if (owner !== undefined) throw ownedBy(dir, owner);
    try {
      unlinkSync(join(dir, OWNER_FILE)); // stale, or this process's own from an earlier open
    } catch {
      /* another process removed it first */
    }
  }
  throw new StorageError('BUSY', `store ${dir}: could not claim ${OWNER_FILE}`);
}

export function releaseOwner(dir: string): void {
  try {
    if (liveOwner(dir, currentBootId()) === undefined) unlinkSync(join(dir, OWNER_FILE));
  } catch {
    /* already gone */
  }
}

export function ownedBy(dir: string, pid: number): StorageError {
  return new StorageError('BUSY', `store ${dir} is claimed by process ${pid} (writing it with durability 'log', or recovering its redo log)`);
}

// ---------------------------------------------------------------------------------------------
// Registered writers (redo.writer-<pid>)

/** Registers this process as a writer of `dir` (before it opens the environment). */
export function registerWriter(dir: string, bootId: string): void {
  try {
    const file = join(dir, `${WRITER_PREFIX}${process.pid}`);
    writeFileSync(file, `${process.pid}\n${bootId}\n`, { mode: 0o600 });
    setMode(file, fileModeIn(dir));
  } catch (err) {
    throw new StorageError('IO', `store ${dir}: could not register this process as a writer (${(err as Error).message})`, { cause: err });
  }
}

export function unregisterWriter(dir: string): void {
  try {
    unlinkSync(join(dir, `${WRITER_PREFIX}${process.pid}`));
  } catch {
    /* gone already */
  }
}

/** The live processes other than this one registered as writers of `dir`; stale registrations are removed. */
export function otherWriters(dir: string, bootId: string): number[] {
  const pids: number[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return pids;
  }
  for (const name of names) {
    if (!name.startsWith(WRITER_PREFIX)) continue;
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'latin1');
    } catch {
      continue; // unregistered meanwhile
    }
    const pid = Number(name.slice(WRITER_PREFIX.length));
    if (pid === process.pid) continue;
    const boot = text.split('\n')[1];
    // A registration being written may still read empty: its pid alone decides then.
    if (Number.isInteger(pid) && pid > 0 && (boot === bootId || text === '') && isAlive(pid)) {
      pids.push(pid);
      continue;
    }
    try {
      unlinkSync(join(dir, name));
    } catch {
      /* another process removed it first */
    }
  }
  return pids;
}

/** Claims the folder for logging; false when another live process holds the claim. */
export function tryClaimOwner(dir: string, bootId: string): boolean {
  try {
    claimOwner(dir, bootId);
    return true;
  } catch (err) {
    if (err instanceof StorageError && err.code === 'BUSY') return false;
    throw err;
  }
}

/**
 * Waits (blocking this thread: an open is synchronous) until no live process holds the folder's
 * claim; the owner hands over within a few milliseconds unless its event loop is busy. BUSY
 * after `timeoutMs`.
 */
export function awaitHandover(dir: string, bootId: string, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let owner = liveOwner(dir, bootId); owner !== undefined; owner = liveOwner(dir, bootId)) {
    if (Date.now() >= deadline) {
      const error = ownedBy(dir, owner);
      throw new StorageError('BUSY', `${error.message}: it did not hand the folder over to this writer within ${timeoutMs} ms (its event loop may be blocked)`);
    }
    Atomics.wait(pause, 0, 0, 5);
  }
}

/**
 * Calls `onChange` when a writer registers or goes (inotify), and every `pollMs` besides (a
 * registrant that died leaves no event). Returns the function that stops watching. Neither keeps
 * the process alive.
 */
export function watchWriters(dir: string, onChange: () => void, pollMs = 1000): () => void {
  let watcher: ReturnType<typeof watch> | null = null;
  try {
    watcher = watch(dir, (_event, name) => {
      if (name === null || name.startsWith(WRITER_PREFIX)) onChange();
    });
    watcher.on('error', () => undefined); // the poll goes on
    watcher.unref();
  } catch {
    watcher = null; // no inotify here: the poll alone
  }
  const timer = setInterval(onChange, pollMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    watcher?.close();
  };
}
