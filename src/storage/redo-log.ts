/**
 * Durability 'log': LMDB commits without flushes (MDB_NOSYNC) and every changing write txn is made
 * durable by one append to a redo log and one flush of it, instead of LMDB's two flushes of
 * scattered pages and a meta page. Checkpoints flush data.mdb behind the commits, off the main
 * thread, and record the meta page of the commit they made durable. docs/performance.md ("A redo
 * log") has the reasoning and the measurements; the rules this module keeps:
 *
 * - Pins. LMDB reuses a page only once no reader's snapshot is older than the txn that freed it.
 *   A read txn held at the newest durable checkpoint (the pin) therefore keeps every page of that
 *   checkpoint's tree on the disk, however many commits without flushes come after it. A new
 *   checkpoint takes its pin before it flushes and drops the old pin only once its record is
 *   durable, so some durable checkpoint is always pinned.
 * - Order. A txn's record is appended and flushed before LMDB commits it (Store.runWrite), so
 *   nothing another reader can see is less durable than the log; the records are appended in
 *   commit order, each carrying the write sequence (write-sequence.ts) its commit sets. Of two
 *   records with one sequence value (a write whose apply found another commit first, or a commit
 *   retried after the map grew), the later one is what happened; a VOID record names one that
 *   never committed.
 * - Generations. Each checkpoint switches to the next log file before it flushes data.mdb, so
 *   every record in the new file follows the checkpoint's commit; the checkpoint's own record goes
 *   into that file once data.mdb is flushed, and the older files are removed after it is durable.
 *   Recovery uses the last checkpoint record of the newest file holding one, and replays every
 *   CHANGES record of that file and the newer ones whose sequence is past the store's.
 * - Recovery. After a process crash the page cache still holds every page LMDB wrote, so data.mdb
 *   is whole and only records past its write sequence (appended and flushed, not committed) are
 *   replayed. After the machine restarted (another boot id) data.mdb's meta pages may name pages
 *   that never reached the disk: the checkpoint's meta page is written back into both slots first
 *   (meta-pages.ts), before LMDB opens the file, and everything since is replayed from the log.
 * - One process. A store in this durability is written by one process: it claims the folder in
 *   `redo.owner` (pid and boot id) and refuses to start while another process has the folder open;
 *   any other process refuses to open the folder for writing while the owner lives (its commits
 *   would be durable in data.mdb but missing from the log), and read-only opens are allowed.
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, fstatSync, openSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import { newestMeta, parseMeta, readMetaPages, restoreMeta, type MetaPage } from './meta-pages.js';
import { pidLocks, sweepAllowedHere } from './reader-table.js';
import {
  RECORD_CHANGES,
  RECORD_CHECKPOINT,
  RECORD_VOID,
  RedoLogFile,
  currentBootId,
  decodeChanges,
  flushFolder,
  generationOf,
  scanLog,
  type LogRecord,
  type LoggedChange,
} from './redo-log-file.js';
import { MDB_NOTFOUND, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import { WRITE_SEQUENCE_KEY } from './write-sequence.js';

export const OWNER_FILE = 'redo.owner';

/** When a checkpoint starts: after this many logged commits, or this many bytes of log, since the last one. */
export interface CheckpointPolicy {
  readonly commits: number;
  readonly bytes: number;
}
/**
 * Pages freed after the pinned checkpoint cannot be reused until the next one, so data.mdb grows
 * by what the commits between two checkpoints dirty: a few hundred commits of a few pages each.
 */
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { commits: 64, bytes: 1024 * 1024 };
/** How far past the policy a checkpoint on the thread pool may lag before one runs on the main thread. */
const OVERDUE = 4;

/** Where a record went: its file's generation and offset (what a VOID record names). */
export interface RecordRef {
  readonly file: RedoLogFile;
  readonly offset: number;
}

// ---------------------------------------------------------------------------------------------
// The folder's owner

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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims the folder for this process; throws BUSY when another live process holds it. */
export function claimOwner(dir: string, bootId: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n${bootId}\n`, { flag: 'wx' });
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
  return new StorageError('BUSY', `store ${dir} is claimed by process ${pid} (open with durability 'log', which allows no other writer, or recovering its redo log); open it read-only, or close that process first`);
}

/** Other processes that have the folder open (their LMDB pid locks on lock.mdb), or undefined when this host cannot tell. */
export function otherProcesses(lockFd: number): number[] | undefined {
  if (!sweepAllowedHere()) return undefined;
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'latin1');
  } catch {
    return undefined;
  }
  const { dev, ino } = fstatSync(lockFd, { bigint: true });
  return [...pidLocks(locks, dev, ino)].filter((pid) => pid !== process.pid);
}

// ---------------------------------------------------------------------------------------------
// Recovery

interface ScannedFile {
  readonly name: string;
  readonly generation: bigint;
  readonly bootId: string;
  readonly records: LogRecord[];
}

/** What a folder's log files say, before LMDB opens it. */
export interface RecoveryPlan {
  /** Names of every log file found (removed once recovery is done). */
  readonly files: readonly string[];
  /** The newest generation seen (the next file takes the one after). */
  readonly lastGeneration: bigint;
  /** The checkpoint to start from, when the log has one. */
  readonly checkpoint: { readonly sequence: bigint; readonly meta: MetaPage } | undefined;
  /** Whether the log was written in an earlier boot: data.mdb's meta pages cannot be trusted. */
  readonly rebooted: boolean;
  /** CHANGES records of the checkpoint's file and later ones, in log order, VOID ones removed. */
  readonly records: readonly LogRecord[];
}

/** Reads the folder's log files (none: an empty plan). Throws CORRUPT for a log that cannot be recovered from. */
export function readRecoveryPlan(dir: string, bootId: string): RecoveryPlan {
  const names = readdirSync(dir)
    .filter((name) => generationOf(name) !== undefined)
    .sort((a, b) => (generationOf(a)! < generationOf(b)! ? -1 : 1));
  const scanned: ScannedFile[] = [];
  names.forEach((name, i) => {
    const bytes = readFileSync(join(dir, name));
    try {
      const scan = scanLog(bytes, name);
      scanned.push({ name, generation: scan.header.generation, bootId: scan.header.bootId, records: scan.records });
    } catch (err) {
      // A file is used only once its header is flushed, so the newest one's creation may have been
      // cut short (a power cut): then nothing was ever appended to it that was acknowledged.
      if (i === names.length - 1) return;
      throw err;
    }
  });
  const lastGeneration = names.length > 0 ? generationOf(names[names.length - 1]!)! : 0n;
  let from = -1;
  let checkpoint: LogRecord | undefined;
  for (let i = scanned.length - 1; i >= 0 && checkpoint === undefined; i--) {
    for (const record of scanned[i]!.records) if (record.kind === RECORD_CHECKPOINT) checkpoint = record;
    if (checkpoint !== undefined) from = i;
  }
  if (checkpoint === undefined) {
    if (scanned.some((f) => f.records.some((r) => r.kind === RECORD_CHANGES))) {
      throw new StorageError('CORRUPT', `store ${dir}: its redo log holds changes but no checkpoint to replay them from (${names.join(', ')})`);
    }
    return { files: names, lastGeneration, checkpoint: undefined, rebooted: false, records: [] };
  }
  const kept = scanned.slice(from);
  const voided = new Set<string>();
  for (const file of kept) {
    for (const record of file.records) {
      if (record.kind !== RECORD_VOID) continue;
      const view = Buffer.from(record.payload.buffer, record.payload.byteOffset, record.payload.byteLength);
      if (view.length === 16) voided.add(`${view.readBigUInt64BE(0)}:${view.readBigUInt64BE(8)}`);
    }
  }
  const records = kept.flatMap((file) => file.records.filter((r) => r.kind === RECORD_CHANGES && !voided.has(`${file.generation}:${r.offset}`)));
  return {
    files: names,
    lastGeneration,
    checkpoint: { sequence: checkpoint.sequence, meta: parseMeta(checkpoint.payload, 0) },
    rebooted: kept.some((file) => file.bootId !== bootId),
    records,
  };
}

/**
 * Before LMDB opens the folder, after a restart: writes the checkpoint's meta page back into both
 * slots of data.mdb, so LMDB opens at the checkpoint (whose pages the pin kept) whatever the later
 * unflushed commits left of theirs.
 */
export function restoreCheckpoint(dir: string, plan: RecoveryPlan): void {
  if (!plan.rebooted || plan.checkpoint === undefined) return;
  const fd = openSync(join(dir, 'data.mdb'), 'r+');
  try {
    restoreMeta(fd, plan.checkpoint.meta);
  } finally {
    closeSync(fd);
  }
}

/**
 * After LMDB opened the folder: applies, in one durable txn, the records past the store's write
 * sequence, in sequence order (the later of two records with one value wins). Returns how many
 * it applied. A gap in the sequence is a lost acknowledged write: CORRUPT, nothing applied.
 */
export function replayRecords(env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan, dir: string): number {
  if (plan.records.length === 0) return 0;
  const bySequence = new Map<bigint, LogRecord>();
  for (const record of plan.records) bySequence.set(record.sequence, record);
  const txn = env.beginTxn();
  let applied = 0;
  try {
    const current = readSequence(txn, main);
    if (plan.rebooted && plan.checkpoint !== undefined && current !== plan.checkpoint.sequence) {
      throw new StorageError('CORRUPT', `store ${dir}: after restoring its checkpoint the write sequence is ${current}, the checkpoint says ${plan.checkpoint.sequence}`);
    }
    let next = current + 1n;
    const handles = new Map<string, LmdbDbi>([['', main]]);
    for (let record = bySequence.get(next); record !== undefined; record = bySequence.get(++next)) {
      for (const change of decodeChanges(record.payload)) applyChange(env, txn, handles, change);
      applied += 1;
    }
    const beyond = [...bySequence.keys()].filter((s) => s >= next);
    if (beyond.length > 0) {
      throw new StorageError('CORRUPT', `store ${dir}: its redo log skips write sequence ${next} but holds ${beyond.length} later records; acknowledged writes after that point cannot be replayed in order`);
    }
    if (applied > 0) {
      const value = Buffer.alloc(8);
      value.writeBigUInt64BE(next - 1n);
      txn.putBinary(main, WRITE_SEQUENCE_KEY, value);
    }
    txn.commit();
  } catch (err) {
    txn.abort();
    throw err instanceof StorageError ? err : toStorageError(err, `replay the redo log of ${dir}`);
  }
  return applied;
}

function readSequence(txn: LmdbTxn, main: LmdbDbi): bigint {
  const value = txn.getBinary(main, WRITE_SEQUENCE_KEY);
  return value !== null && value.length === 8 ? value.readBigUInt64BE(0) : 0n;
}

function applyChange(env: LmdbEnv, txn: LmdbTxn, handles: Map<string, LmdbDbi>, change: LoggedChange): void {
  let dbi = handles.get(change.db);
  if (dbi === undefined) {
    dbi = env.openDbi({ name: change.db, create: true, keyIsBuffer: true, txn });
    handles.set(change.db, dbi);
  }
  switch (change.op) {
    case 'put':
      txn.putBinary(dbi, change.key, change.value);
      return;
    case 'delete':
      try {
        txn.del(dbi, change.key);
      } catch (err) {
        if (lmdbCode(err) !== MDB_NOTFOUND) throw err;
      }
      return;
    case 'clear':
      dbi.drop({ txn, justFreePages: true });
      return;
    case 'drop':
      dbi.drop({ txn });
      handles.delete(change.db);
      return;
    case 'create':
      return;
  }
}

/** Removes log files by name and flushes the folder; a file already gone is fine. */
export function removeLogFiles(dir: string, names: readonly string[]): void {
  if (names.length === 0) return;
  for (const name of names) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      /* gone */
    }
  }
  flushFolder(dir);
}

// ---------------------------------------------------------------------------------------------
// Opening a folder

/** What Store.open does about the redo log, in two steps around LMDB's open (see prepareRecovery). */
export interface FolderRecovery {
  /**
   * Once LMDB opened the folder for writing and a read txn ran (this process holds its pid lock):
   * refuses a live owner or, in 'log' durability, another process with the folder open; replays
   * the log; then starts the log ('log') or removes it (other durabilities). Returns the log.
   */
  finish(env: LmdbEnv, main: LmdbDbi, lockFd: number | null, options: { durability: string; checkpoint: CheckpointPolicy }): RedoLog | null;
  /** Drops this process's claim on the folder (an open that failed). */
  release(): void;
}

/**
 * Before LMDB opens `dir`: claims the folder when this process will write it in 'log' durability
 * or must recover a log left behind, reads the log files, and after a restart writes the
 * checkpoint's meta page back (only a writable open may; a read-only one is refused until then).
 */
export function prepareRecovery(dir: string, readOnly: boolean, logged: boolean): FolderRecovery {
  let claimed = false;
  const release = (): void => {
    if (claimed) releaseOwner(dir);
    claimed = false;
  };
  if (!existsSync(dir)) return { finish: () => null, release };
  const bootId = currentBootId();
  try {
    if (logged) {
      claimOwner(dir, bootId);
      claimed = true;
    }
    let plan = readRecoveryPlan(dir, bootId);
    if (plan.files.length > 0 && !readOnly && !claimed) {
      claimOwner(dir, bootId); // one recovery at a time
      claimed = true;
      plan = readRecoveryPlan(dir, bootId);
    }
    if (!readOnly && !claimed) {
      const owner = liveOwner(dir, bootId);
      if (owner !== undefined) throw ownedBy(dir, owner);
    }
    if (plan.rebooted) {
      if (readOnly) throw new StorageError('BUSY', `store ${dir} was written with durability 'log' before the machine restarted and must recover from its redo log first: open it for writing once`);
      restoreCheckpoint(dir, plan);
    }
    const finish: FolderRecovery['finish'] = (env, main, lockFd, options) => {
      if (!claimed) {
        const owner = liveOwner(dir, bootId); // again, now that this process's pid lock is visible to the owner
        if (owner !== undefined) throw ownedBy(dir, owner);
      }
      if (logged && lockFd !== null) {
        const others = otherProcesses(lockFd);
        if (others !== undefined && others.length > 0) {
          throw new StorageError('BUSY', `store ${dir}: durability 'log' needs the folder to itself when it opens, and process${others.length > 1 ? 'es' : ''} ${others.join(', ')} ha${others.length > 1 ? 've' : 's'} it open`);
        }
      }
      replayRecords(env, main, plan, dir);
      if (logged) return RedoLog.start(dir, env, main, plan.lastGeneration, plan.files, options.checkpoint);
      if (plan.files.length > 0) {
        const fd = openSync(join(dir, 'data.mdb'), 'r+');
        try {
          fdatasyncSync(fd); // the replay's commit, in any durability, before the log that holds it goes
        } finally {
          closeSync(fd);
        }
        removeLogFiles(dir, plan.files);
      }
      release();
      return null;
    };
    return { finish, release };
  } catch (err) {
    release();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// The running log

/** The sequence value as the 8 bytes of the write-sequence record, or 0 when absent. */
export function sequenceOf(value: Uint8Array | undefined): bigint {
  return value !== undefined && value.length === 8 ? Buffer.from(value.buffer, value.byteOffset, 8).readBigUInt64BE(0) : 0n;
}

export class RedoLog {
  private current: RedoLogFile;
  /** The next generation's file, created (header and folder flushed) ahead of the checkpoint that will switch to it. */
  private spare: RedoLogFile | null = null;
  private preparing = false;
  /** Files with appends not yet flushed. */
  private readonly dirty = new Set<RedoLogFile>();
  /** Files of older generations, removed once a checkpoint in a newer one is durable. */
  private older: RedoLogFile[] = [];
  /** The read txn that holds the newest durable checkpoint's pages. */
  private pin: LmdbTxn | null;
  /** A checkpoint in flight: its own pin, and whether a synchronous checkpoint or close overtook it. */
  private inFlight: { pin: LmdbTxn; obsolete: boolean } | null = null;
  private commitsSince = 0;
  private bytesAtCheckpoint: number;
  private dataFd: number;
  private dataFdUsers = 0;
  private closed = false;
  /** A failed flush: after one, what is on the disk is unknown (fsync errors are reported once), so every later write fails. */
  private failure: StorageError | null = null;
  /** Flushes this log made (its own and data.mdb's), and checkpoints completed. */
  flushes = 0;
  checkpoints = 0;

  private constructor(
    readonly dir: string,
    private readonly env: LmdbEnv,
    private readonly main: LmdbDbi,
    private readonly bootId: string,
    private readonly policy: CheckpointPolicy,
    first: RedoLogFile,
    pin: LmdbTxn,
  ) {
    this.current = first;
    this.pin = pin;
    this.bytesAtCheckpoint = first.size;
    this.dataFd = openSync(join(dir, 'data.mdb'), 'r+');
  }

  /**
   * Starts the log on an open store with nothing in flight: flushes data.mdb, creates the next
   * generation's file with a checkpoint of the store as it is, pins it, and removes older files.
   */
  static start(dir: string, env: LmdbEnv, main: LmdbDbi, lastGeneration: bigint, oldFiles: readonly string[], policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY): RedoLog {
    const bootId = currentBootId();
    const fd = openSync(join(dir, 'data.mdb'), 'r+');
    let pin: LmdbTxn | null = null;
    let file: RedoLogFile | null = null;
    try {
      fdatasyncSync(fd);
      pin = env.beginTxn({ readOnly: true });
      const meta = checkpointMeta(fd, env);
      file = RedoLogFile.create(dir, lastGeneration + 1n, bootId);
      file.append(RECORD_CHECKPOINT, readSequence(pin, main), meta.bytes);
      file.flushSync();
    } catch (err) {
      pin?.abort();
      file?.close();
      throw toStorageError(err, `start the redo log of ${dir}`);
    } finally {
      closeSync(fd);
    }
    removeLogFiles(dir, oldFiles);
    const log = new RedoLog(dir, env, main, bootId, policy, file, pin);
    log.flushes += 2;
    log.prepareSpare();
    return log;
  }

  /** Appends a txn's CHANGES record (not yet durable: flush before acknowledging). */
  append(sequence: bigint, payload: Uint8Array): RecordRef {
    this.check();
    const file = this.current;
    const offset = file.append(RECORD_CHANGES, sequence, payload);
    this.dirty.add(file);
    this.commitsSince += 1;
    return { file, offset };
  }

  /** Takes back the record of a txn whose commit failed; nothing was appended after it on this thread. */
  undo(ref: RecordRef): void {
    try {
      ref.file.truncate(ref.offset);
      ref.file.flushSync();
    } catch (err) {
      this.fail(err, 'take back a record');
    }
  }

  /** Records, durably, that the record at `ref` never committed (a later record may also take its sequence). */
  void(ref: RecordRef, sequence: bigint): RecordRef {
    this.check();
    const payload = Buffer.alloc(16);
    payload.writeBigUInt64BE(ref.file.generation, 0);
    payload.writeBigUInt64BE(BigInt(ref.offset), 8);
    const file = this.current;
    const offset = file.append(RECORD_VOID, sequence, payload);
    this.dirty.add(file);
    return { file, offset };
  }

  /** Flushes every file with unflushed appends, on this thread. */
  flushSync(): void {
    this.check();
    const files = [...this.dirty];
    this.dirty.clear();
    try {
      for (const file of files) file.flushSync();
    } catch (err) {
      this.fail(err, 'flush');
    }
    this.flushes += files.length;
  }

  /** Flushes every file with unflushed appends on the thread pool: what was appended before the call is durable when it resolves. */
  async flush(): Promise<void> {
    this.check();
    const files = [...this.dirty];
    this.dirty.clear();
    this.flushes += files.length;
    try {
      await Promise.all(files.map((file) => file.flush()));
    } catch (err) {
      this.fail(err, 'flush');
    }
  }

  /**
   * After a commit, with no txn of the store's active: starts a checkpoint when the policy says so.
   * A caller that writes in a loop without yielding to the event loop never lets a checkpoint on
   * the thread pool finish, and the pin would hold every page freed since: at OVERDUE times the
   * policy, the checkpoint runs on this thread instead (the loop blocks on flushes anyway).
   */
  afterCommit(): void {
    if (this.closed || this.failure !== null) return;
    const commits = this.commitsSince / this.policy.commits;
    const bytes = (this.current.size - this.bytesAtCheckpoint) / this.policy.bytes;
    if (commits < 1 && bytes < 1) return;
    if (commits >= OVERDUE || bytes >= OVERDUE) {
      this.checkpointNow();
      this.repin();
      return;
    }
    if (this.inFlight !== null) return;
    if (this.spare === null) return this.prepareSpare();
    this.runCheckpoint().catch(() => undefined); // a failure is kept in this.failure and fails the next write
  }

  /**
   * A checkpoint on this thread (map growth, close): flushes data.mdb, appends and flushes a
   * checkpoint record of the store as it is, and drops every pin; `repin()` takes the new one.
   * Overtakes a checkpoint in flight.
   */
  checkpointNow(): void {
    this.check();
    this.abandonInFlight();
    let next: RedoLogFile;
    try {
      fdatasyncSync(this.dataFd);
      this.flushes += 1;
      const reader = this.env.beginTxn({ readOnly: true });
      let sequence: bigint;
      try {
        sequence = readSequence(reader, this.main);
      } finally {
        reader.abort();
      }
      const meta = checkpointMeta(this.dataFd, this.env);
      next = this.spare ?? this.createNext();
      this.spare = null;
      next.append(RECORD_CHECKPOINT, sequence, meta.bytes);
      next.flushSync();
      this.flushes += 1;
    } catch (err) {
      this.fail(err, 'checkpoint');
    }
    // data.mdb holds every commit so far and the new file's checkpoint says so: the rest is history.
    this.pin?.abort();
    this.pin = null;
    const retired = [...this.older, this.current];
    this.older = [];
    this.current = next;
    this.dirty.clear();
    this.commitsSince = 0;
    this.bytesAtCheckpoint = next.size;
    this.checkpoints += 1;
    this.retire(retired);
  }

  /** Pins the store as it is now: only right after checkpointNow, with no commit in between. */
  repin(): void {
    if (this.pin === null) this.pin = this.env.beginTxn({ readOnly: true });
  }

  /**
   * Whether a record in `file` is kept until the next checkpoint completes: only the current
   * file's are (older files go once the checkpoint in progress is durable, and it may not cover a
   * commit made after it began).
   */
  isCurrent(file: RedoLogFile): boolean {
    return file === this.current;
  }

  /** Whether a pin is held (LMDB cannot resize its map while one is). */
  get pinned(): boolean {
    return this.pin !== null || this.inFlight !== null;
  }

  /**
   * With every write committed: flushes data.mdb, which then holds the whole store, and removes the
   * log files (nothing in them is needed any more). Drops the pins; the native env may close after.
   */
  close(): void {
    if (this.closed) return;
    this.abandonInFlight();
    this.pin?.abort();
    this.pin = null;
    this.closed = true;
    let error: unknown;
    try {
      if (this.failure === null) {
        fdatasyncSync(this.dataFd);
        this.flushes += 1;
      }
    } catch (err) {
      error = err;
    }
    for (const file of [this.current, ...this.older, ...(this.spare ? [this.spare] : [])]) file.close();
    if (error === undefined && this.failure === null) {
      removeLogFiles(this.dir, [this.current, ...this.older, ...(this.spare ? [this.spare] : [])].map((f) => f.path.slice(this.dir.length + 1)));
    }
    this.releaseDataFd();
    if (error !== undefined) throw toStorageError(error, `close the redo log of ${this.dir}`);
  }

  private async runCheckpoint(): Promise<void> {
    const next = this.spare!;
    this.spare = null;
    const pin = this.env.beginTxn({ readOnly: true });
    let meta: MetaPage;
    let sequence: bigint;
    try {
      meta = checkpointMeta(this.dataFd, this.env);
      sequence = readSequence(pin, this.main);
    } catch (err) {
      pin.abort();
      this.spare = next;
      throw err;
    }
    const flight = { pin, obsolete: false };
    this.inFlight = flight;
    // Every record from now on follows the checkpoint's commit: it goes into the new file.
    this.older.push(this.current);
    this.current = next;
    this.commitsSince = 0;
    this.bytesAtCheckpoint = next.size;
    try {
      this.dataFdUsers += 1;
      await new Promise<void>((resolve, reject) => fdatasync(this.dataFd, (err) => (err ? reject(err) : resolve())));
      this.flushes += 1;
      if (flight.obsolete) return;
      next.append(RECORD_CHECKPOINT, sequence, meta.bytes);
      this.dirty.add(next);
      await this.flush();
    } catch (err) {
      if (!flight.obsolete) this.fail(err, 'checkpoint');
      return;
    } finally {
      this.dataFdUsers -= 1;
      if (this.closed) this.releaseDataFd();
    }
    if (flight.obsolete) return;
    this.inFlight = null;
    this.pin?.abort();
    this.pin = flight.pin;
    this.checkpoints += 1;
    const retired = this.older;
    this.older = [];
    this.retire(retired);
  }

  private retire(files: readonly RedoLogFile[]): void {
    for (const file of files) {
      file.close();
      this.dirty.delete(file);
    }
    try {
      removeLogFiles(this.dir, files.map((f) => f.path.slice(this.dir.length + 1)));
    } catch {
      /* a file left behind is an older generation: recovery starts from the newer checkpoint */
    }
    this.prepareSpare();
  }

  private createNext(): RedoLogFile {
    const newest = [this.current, ...this.older, ...(this.spare ? [this.spare] : [])].reduce((a, b) => (a.generation > b.generation ? a : b));
    const file = RedoLogFile.create(this.dir, newest.generation + 1n, this.bootId);
    this.flushes += 2;
    return file;
  }

  private abandonInFlight(): void {
    const flight = this.inFlight;
    if (flight === null) return;
    flight.obsolete = true;
    flight.pin.abort();
    this.inFlight = null;
  }

  /** Creates the next generation's file off the critical path (its header and the folder flushed). */
  private prepareSpare(): void {
    if (this.spare !== null || this.preparing || this.closed) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      if (this.closed || this.spare !== null) return;
      try {
        this.spare = this.createNext();
      } catch (err) {
        // Not thrown here (no caller): the next write reports it.
        try {
          this.fail(err, 'prepare the next log file');
        } catch {
          /* kept in this.failure */
        }
      }
    });
  }

  private releaseDataFd(): void {
    if (this.dataFdUsers === 0 && this.dataFd >= 0) {
      closeSync(this.dataFd);
      this.dataFd = -1;
    }
  }

  private check(): void {
    if (this.failure !== null) throw this.failure;
    if (this.closed) throw new StorageError('CLOSED', `the redo log of ${this.dir} is closed`);
  }

  private fail(err: unknown, what: string): never {
    const error = err instanceof StorageError ? err : toStorageError(err, `redo log ${what}`);
    this.failure ??= new StorageError('IO', `store ${this.dir}: the redo log failed to ${what} (${error.message}); what reached the disk is unknown, so no further write is accepted: close and reopen the store to recover`, { cause: error });
    throw this.failure;
  }
}

/** The meta page of the store's last commit, read from data.mdb (LMDB wrote it into the page cache at commit). */
function checkpointMeta(fd: number, env: LmdbEnv): MetaPage {
  const meta = newestMeta(readMetaPages(fd));
  const last = BigInt(env.info().lastTxnId);
  if (meta.txnid !== last) throw new StorageError('IO', `data.mdb's newest meta page is txn ${meta.txnid}, LMDB's last commit is ${last}`);
  return meta;
}
