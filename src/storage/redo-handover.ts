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
import { closeSync, linkSync, openSync, readFileSync, readdirSync, unlinkSync, watch, writeFileSync, writeSync } from 'node:fs';
import { fileModeIn, setMode, settleCreatedFile } from './file-modes.js';
import { join } from 'node:path';
import { isAlive } from './process-liveness.js';
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
  return readText(join(dir, OWNER_FILE));
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
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if (linked(own, join(dir, OWNER_FILE), dir)) return;
      const text = readClaim(dir);
      if (text === undefined) continue; // released meanwhile
      const pid = livePidOf(text, bootId);
      if (pid !== undefined && pid !== process.pid) throw ownedBy(dir, pid);
      // Stale, or this process's own from an earlier open: removed unless another process is removing it.
      if (!removeStaleClaim(dir, text, bootId)) pause(1);
    }
  } finally {
    unlinkQuietly(own);
  }
  throw new StorageError('BUSY', `store ${dir}: could not claim ${OWNER_FILE}`);
}

/** Drops this process's claim; a claim of another process (live or not) is left alone. */
export function releaseOwner(dir: string): void {
  const text = readClaim(dir);
  // Only this process replaces or removes its own live claim, so the claim read is still this one.
  if (text !== undefined && Number(text.split('\n')[0]) === process.pid) unlinkQuietly(join(dir, OWNER_FILE));
}

/** Attempts a claimer makes (a stale claim another process is removing takes one each, 1 ms apart). */
const CLAIM_ATTEMPTS = 50;

/**
 * Removing a stale claim (a dead pid's) happens under a second lock, `redo.breaking`, taken the
 * same way: two processes that both read the claim as stale must not both remove "it", since the
 * first may have removed it and claimed the folder before the second removes, and would then lose
 * its fresh claim. Under the lock the claim is read again and removed only if it is still the
 * stale one: nobody else changes it meanwhile (its owner is gone, a claimer's link fails while
 * it exists, another remover waits for the lock). False when another process holds the lock.
 */
const BREAKING_FILE = 'redo.breaking';

function removeStaleClaim(dir: string, staleText: string, bootId: string): boolean {
  const own = join(dir, `${CLAIM_PREFIX}${process.pid}.breaking`);
  const lock = join(dir, BREAKING_FILE);
  writePrivateClaim(dir, own, `${process.pid}\n${bootId}\n`);
  try {
    if (!linked(own, lock, dir)) {
      // Held for microseconds: one whose holder is gone (killed while holding it) is removed. Two
      // processes doing that at once is a second failure inside the first's microseconds.
      const holder = readText(lock);
      const pid = holder === undefined ? undefined : livePidOf(holder, bootId);
      if (holder !== undefined && (pid === undefined || pid === process.pid)) unlinkQuietly(lock);
      return false;
    }
  } finally {
    unlinkQuietly(own);
  }
  try {
    if (readClaim(dir) === staleText) unlinkQuietly(join(dir, OWNER_FILE));
  } finally {
    unlinkQuietly(lock);
  }
  return true;
}

/** link(2): false when `to` exists (EEXIST, as an exclusive create). */
function linked(from: string, to: string, dir: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return createdInPlace(from, to, dir);
    throw toStorageError(err, `claim store ${dir}`);
  }
}

/**
 * A file system without hard links (FAT, exFAT): the exclusive create, with the text written after
 * it. A reader can then find the file empty for a moment and take it for stale, as before the link.
 */
function createdInPlace(from: string, to: string, dir: string): boolean {
  try {
    writeFileSync(to, readFileSync(from), { flag: 'wx', mode: fileModeIn(dir) });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw toStorageError(err, `claim store ${dir}`);
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (an open is synchronous). */
function pause(ms: number): void {
  Atomics.wait(PAUSE, 0, 0, ms);
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

/** Private claims left by processes that died before removing them. */
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
  for (let owner = liveOwner(dir, bootId); owner !== undefined; owner = liveOwner(dir, bootId)) {
    if (Date.now() >= deadline) {
      const error = ownedBy(dir, owner);
      throw new StorageError('BUSY', `${error.message}: it did not hand the folder over to this writer within ${timeoutMs} ms (its event loop may be blocked)`);
    }
    pause(5);
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
