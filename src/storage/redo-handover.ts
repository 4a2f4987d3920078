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
import { closeSync, linkSync, openSync, readFileSync, readdirSync, renameSync, unlinkSync, watch, writeFileSync, writeSync } from 'node:fs';
import { fileModeIn, setMode, settleCreatedFile } from './file-modes.js';
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

/**
 * A claim is written in full under a private name (`redo.claim-<pid>`) and then linked into place:
 * the link fails with EEXIST as an exclusive create does, and a reader never finds the claim empty
 * or half written (a claim created in place and then written was, for a moment, and taken for
 * stale: two processes logged the folder).
 */
const CLAIM_PREFIX = 'redo.claim-';

/** The claim's text as the folder holds it, or undefined when there is none. */
function readClaim(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, OWNER_FILE), 'latin1');
  } catch {
    return undefined;
  }
}

/** The pid a claim's text names, when that process is alive in this boot; undefined for a stale claim (dead pid, earlier boot, or emptied by a power cut). */
function livePidOf(text: string, bootId: string): number | undefined {
  const [pidText, boot] = text.split('\n');
  const pid = Number(pidText);
  return boot === bootId && Number.isInteger(pid) && pid > 0 && (pid === process.pid || isAlive(pid)) ? pid : undefined;
}

/** The live owner of the folder other than this process, or undefined. */
export function liveOwner(dir: string, bootId: string): number | undefined {
  const text = readClaim(dir);
  const pid = text === undefined ? undefined : livePidOf(text, bootId);
  return pid === process.pid ? undefined : pid;
}

/** Claims the folder for this process; throws BUSY when another live process holds it. */
export function claimOwner(dir: string, bootId: string): void {
  removeStalePrivateClaims(dir);
  const own = join(dir, `${CLAIM_PREFIX}${process.pid}`);
  writePrivateClaim(dir, own, `${process.pid}\n${bootId}\n`);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(own, join(dir, OWNER_FILE));
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw toStorageError(err, `claim store ${dir}`);
      }
      const text = readClaim(dir);
      if (text === undefined) continue; // released meanwhile
      const pid = livePidOf(text, bootId);
      if (pid !== undefined && pid !== process.pid) throw ownedBy(dir, pid);
      removeStaleClaim(dir, text); // stale, or this process's own from an earlier open
    }
  } finally {
    try {
      unlinkSync(own);
    } catch {
      /* gone already */
    }
  }
  throw new StorageError('BUSY', `store ${dir}: could not claim ${OWNER_FILE}`);
}

/** Drops this process's claim; a claim of another process (live or not) is left alone. */
export function releaseOwner(dir: string): void {
  const text = readClaim(dir);
  if (text === undefined || Number(text.split('\n')[0]) !== process.pid) return;
  try {
    unlinkSync(join(dir, OWNER_FILE)); // only this process replaces its own claim, so it is still this one
  } catch {
    /* already gone */
  }
}

function writePrivateClaim(dir: string, path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'w', 0o600);
  } catch (err) {
    throw toStorageError(err, `claim store ${dir}`);
  }
  try {
    settleCreatedFile(fd, dir); // group writers read it
    writeSync(fd, text);
  } catch (err) {
    throw toStorageError(err, `claim store ${dir}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the claim judged stale from `staleText`. Two processes can judge the same claim stale,
 * and the first may have removed it and claimed the folder before the second removes: so the claim
 * is first moved aside (one process wins the rename) and removed only if it is still the stale
 * one; a fresh claim moved aside is linked back.
 */
function removeStaleClaim(dir: string, staleText: string): void {
  const aside = join(dir, `${CLAIM_PREFIX}${process.pid}.stale`);
  try {
    renameSync(join(dir, OWNER_FILE), aside);
  } catch {
    return; // removed by another process first
  }
  try {
    let text: string | undefined;
    try {
      text = readFileSync(aside, 'latin1');
    } catch {
      text = undefined;
    }
    if (text !== undefined && text !== staleText) linkSync(aside, join(dir, OWNER_FILE));
  } catch {
    // EEXIST: a third process claimed the folder in the instant the fresh claim was aside. Both
    // then take themselves for the owner: the one race left open, needing three claimers within
    // microseconds and one of them over a stale claim.
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      /* gone already */
    }
  }
}

/** Private claims (and claims moved aside) left by processes that died before removing them. */
function removeStalePrivateClaims(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(CLAIM_PREFIX)) continue;
    const pid = Number.parseInt(name.slice(CLAIM_PREFIX.length), 10);
    if (pid === process.pid || (Number.isInteger(pid) && pid > 0 && isAlive(pid))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      /* another process removed it first */
    }
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
