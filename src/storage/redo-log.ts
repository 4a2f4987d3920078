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
 * - One process. One process at a time logs a folder: it claims it in `redo.owner` (pid and boot
 *   id). Any other process that opens the folder for writing registers itself first and the
 *   logging one hands the folder over (redo-handover.ts): its log closed, LMDB reopened with
 *   durable commits. Read-only opens are allowed at any time.
 */
import { closeSync, existsSync, fdatasync, fdatasyncSync, openSync, readFileSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import { newestMeta, parseMeta, readMetaPages, restoreMeta, type MetaPage } from './meta-pages.js';
import { OWNER_FILE, awaitHandover, claimOwner, liveOwner, ownedBy, releaseOwner } from './redo-handover.js';
import {
  RECORD_CHANGES,
  RECORD_CHECKPOINT,
  RECORD_VOID,
  RedoLogFile,
  currentBootId,
  LOG_FILES,
  decodeChanges,
  flushFolder,
  scanLog,
  type LogRecord,
  type LoggedChange,
} from './redo-log-file.js';
import type { FaultInjector } from './fault-injector.js';
import { MDB_NOTFOUND, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import { WRITE_SEQUENCE_KEY } from './write-sequence.js';
import { InFlight } from './in-flight.js';

/** When a checkpoint starts: after this many logged commits, or this many bytes of log, since the last one. */
export interface CheckpointPolicy {
  readonly commits: number;
  readonly bytes: number;
  /** Pages the map's last page moved by: with the pin, what the commits since dirtied. */
  readonly pages: number;
}
/**
 * Pages freed after the pinned checkpoint cannot be reused until the next one, so data.mdb grows
 * by what the commits between two checkpoints dirty, and LMDB takes a while to reuse them once
 * free. Measured on 4,400 sensor batches of 25 written in a loop that never yields (so a checkpoint
 * lands every ~3 x `commits`: one begun at 1x is overtaken on this thread at 2x more): with
 * `commits` 8 / 16 / 32 the file ends 1.11x / 1.23x / 1.46x what LMDB's durable commits leave, at
 * 494 / 458 / 468 us per batch against their 699; by the map's growth alone (512 pages), 3.2x.
 */
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { commits: 16, bytes: 1024 * 1024, pages: 256 };
/** How far past the policy a checkpoint on the thread pool may lag before one runs on the main thread. */
const OVERDUE = 2;

/** Where a record went: its file's generation and offset (what a VOID record names). */
export interface RecordRef {
  readonly file: RedoLogFile;
  readonly offset: number;
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
  /** Names of the log files found (removed once recovery is done, unless the log goes on). */
  readonly files: readonly string[];
  /** The newest generation seen (the next one takes the one after). */
  readonly lastGeneration: bigint;
  /** The file holding the newest checkpoint: a new generation must not be begun in it. */
  readonly checkpointFile: string | undefined;
  /** The file of the newest generation whose header reads (where a last checkpoint goes before the files are removed). */
  readonly newestFile: string | undefined;
  /** The checkpoint to start from, when the log has one. */
  readonly checkpoint: { readonly sequence: bigint; readonly meta: MetaPage } | undefined;
  /** Whether the log was written in an earlier boot: data.mdb's meta pages cannot be trusted. */
  readonly rebooted: boolean;
  /** CHANGES records of the checkpoint's file and later ones, in log order, VOID ones removed. */
  readonly records: readonly LogRecord[];
}

/**
 * Reads the folder's log files (none: an empty plan). A file whose header does not read is one
 * whose new generation was being begun when the power went (a header is flushed before anything is
 * appended after it), so it holds nothing. Throws CORRUPT for a log that cannot be recovered from.
 */
export function readRecoveryPlan(dir: string, bootId: string): RecoveryPlan {
  const names = readdirSync(dir).filter((name) => (LOG_FILES as readonly string[]).includes(name));
  const scanned: ScannedFile[] = [];
  for (const name of names) {
    try {
      const scan = scanLog(readFileSync(join(dir, name)), name);
      scanned.push({ name, generation: scan.header.generation, bootId: scan.header.bootId, records: scan.records });
    } catch {
      /* a header cut short: nothing in the file */
    }
  }
  scanned.sort((a, b) => (a.generation < b.generation ? -1 : 1));
  const lastGeneration = scanned.length > 0 ? scanned[scanned.length - 1]!.generation : 0n;
  const newestFile = scanned.length > 0 ? scanned[scanned.length - 1]!.name : undefined;
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
    return { files: names, lastGeneration, checkpointFile: undefined, newestFile, checkpoint: undefined, rebooted: false, records: [] };
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
    checkpointFile: scanned[from]!.name,
    newestFile,
    checkpoint: { sequence: checkpoint.sequence, meta: parseMeta(checkpoint.payload, 0) },
    rebooted: kept.some((file) => file.bootId !== bootId),
    records,
  };
}

/**
 * In the boot that wrote the log, data.mdb has every commit up to the checkpoint (it was flushed
 * before the checkpoint was logged) and the page cache loses nothing, so its newest meta page is
 * at least the checkpoint's txn. An older one means data.mdb was replaced behind the log's back (a
 * backup copied in by hand): replaying would write another store's changes into it.
 */
function checkDataFileFollowsCheckpoint(dir: string, checkpoint: MetaPage): void {
  let newest: MetaPage;
  try {
    const fd = openSync(join(dir, 'data.mdb'), 'r');
    try {
      newest = newestMeta(readMetaPages(fd));
    } finally {
      closeSync(fd);
    }
  } catch {
    return; // no readable data.mdb: LMDB's open reports what is wrong with it
  }
  if (newest.txnid < checkpoint.txnid) {
    throw new StorageError(
      'CORRUPT',
      `store ${dir}: its redo log continues from txn ${checkpoint.txnid}, but data.mdb ends at txn ${newest.txnid}: data.mdb was replaced after a 'log' process ended without closing. ` +
        `If that was deliberate, remove ${LOG_FILES.join(', ')} and ${OWNER_FILE} (edgetable restore --force does), then open it`,
    );
  }
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
export function replayRecords(env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan, dir: string, maxMapSizeBytes: number): number {
  if (plan.records.length === 0) return 0;
  const bySequence = new Map<bigint, LogRecord>();
  for (const record of plan.records) bySequence.set(record.sequence, record);
  // The writer may have grown the map past what this open asked for (LMDB keeps the size it is
  // given, if the data fits): grow it as a write would, up to the cap.
  for (;;) {
    try {
      return replayOnce(env, main, plan, dir, bySequence);
    } catch (err) {
      const size = env.info().mapSize;
      if (!(err instanceof StorageError && err.code === 'MAP_FULL') || size >= maxMapSizeBytes) throw err;
      env.resize(Math.min(maxMapSizeBytes, size * 2));
    }
  }
}

function replayOnce(env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan, dir: string, bySequence: Map<bigint, LogRecord>): number {
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
  return sequenceOf(txn.getBinary(main, WRITE_SEQUENCE_KEY) ?? undefined);
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

/**
 * After a process crash (same boot), before the replay writes: data.mdb is whole in the page cache
 * but LMDB's free list now offers pages of the logged checkpoint's tree (the pin died with the
 * process), so a power cut after the replay's commit could not go back to that checkpoint. Flush
 * data.mdb and log a checkpoint of the store as it is first: a power cut then recovers from it.
 */
function checkpointBeforeReplay(dir: string, env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan): void {
  const fd = openSync(join(dir, 'data.mdb'), 'r+');
  try {
    fdatasyncSync(fd);
    appendCheckpointTo(dir, plan.checkpointFile!, env, main, fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * For a folder whose data.mdb is about to be replaced whole (restore): removes the redo log a
 * 'log' process that ended without closing left behind, which describes the store being replaced
 * and would otherwise be replayed over the new one. Throws BUSY while its owner lives.
 */
export function discardRedoLog(dir: string): void {
  const owner = liveOwner(dir, currentBootId());
  if (owner !== undefined) throw ownedBy(dir, owner);
  removeLogFiles(dir, [...LOG_FILES, OWNER_FILE].filter((name) => existsSync(join(dir, name))));
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

/**
 * Removes the log files once data.mdb holds every commit durably (a close, a handover, a recovery
 * that does not go on logging), `last` being the file whose newest record is a checkpoint of
 * data.mdb as it is, flushed. A power cut can leave any of the unlinks undone (nothing orders them
 * before the folder's flush), and a file left alone whose newest checkpoint is older than data.mdb
 * would, after a restart, roll the store back to that checkpoint (its meta page written back, the
 * records of the files removed lost) or stop it opening. So the other files go first, the folder
 * flushed, and `last` only then: every state in between recovers to data.mdb as it is.
 */
export function retireLogFiles(dir: string, last: string | undefined, names: readonly string[]): void {
  removeLogFiles(dir, names.filter((name) => name !== last));
  if (last !== undefined) removeLogFiles(dir, [last]);
}

/** Appends to `dir`'s log file `name` a checkpoint of data.mdb as it is (flushed before), and flushes it. */
function appendCheckpointTo(dir: string, name: string, env: LmdbEnv, main: LmdbDbi, dataFd: number): void {
  const reader = env.beginTxn({ readOnly: true });
  let sequence: bigint;
  try {
    sequence = readSequence(reader, main);
  } finally {
    reader.abort();
  }
  const file = RedoLogFile.resume(dir, name);
  try {
    file.append(RECORD_CHECKPOINT, sequence, checkpointMeta(dataFd, env).bytes);
    file.flushSync();
  } finally {
    file.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Opening a folder

/** What Store.open does about the redo log, in two steps around LMDB's open (see prepareRecovery). */
export interface FolderRecovery {
  /** Once LMDB opened the folder for writing: replays the log, then starts the log (logging) or removes it. Returns the log. */
  finish(env: LmdbEnv, main: LmdbDbi, options: { durability: string; checkpoint: CheckpointPolicy; maxMapSizeBytes: number }): RedoLog | null;
  /** Drops this process's claim on the folder (an open that failed). */
  release(): void;
}

/**
 * Before LMDB opens `dir`, after this process registered as a writer or claimed the folder to log
 * (redo-handover.ts): claims the folder to recover a log left behind, reads the log files, and
 * after a restart writes the checkpoint's meta page back (only a writable open may; a read-only
 * one is refused until then). `logging`: this process claimed the folder and will log.
 */
export function prepareRecovery(dir: string, readOnly: boolean, logging: boolean, handoverTimeoutMs: number): FolderRecovery {
  let claimed = logging;
  const release = (): void => {
    if (claimed) releaseOwner(dir);
    claimed = false;
  };
  if (!existsSync(dir)) return { finish: () => null, release };
  const bootId = currentBootId();
  try {
    let plan = readRecoveryPlan(dir, bootId);
    if (plan.files.length > 0 && !readOnly && !claimed) {
      awaitHandover(dir, bootId, handoverTimeoutMs); // another writer recovering it first
      claimOwner(dir, bootId); // one recovery at a time
      claimed = true;
      plan = readRecoveryPlan(dir, bootId);
    }
    if (plan.rebooted) {
      if (readOnly) throw new StorageError('BUSY', `store ${dir} was written with durability 'log' before the machine restarted and must recover from its redo log first: open it for writing once`);
      restoreCheckpoint(dir, plan);
    } else if (plan.checkpoint !== undefined) {
      checkDataFileFollowsCheckpoint(dir, plan.checkpoint.meta);
    }
    const finish: FolderRecovery['finish'] = (env, main, options) => {
      if (plan.checkpoint !== undefined && !plan.rebooted && plan.records.length > 0) checkpointBeforeReplay(dir, env, main, plan);
      replayRecords(env, main, plan, dir, options.maxMapSizeBytes);
      if (logging) return RedoLog.start(dir, env, main, plan, options.checkpoint);
      if (plan.files.length > 0) {
        const fd = openSync(join(dir, 'data.mdb'), 'r+');
        try {
          fdatasyncSync(fd); // the replay's commit, in any durability, before the log that holds it goes
          if (plan.newestFile !== undefined) appendCheckpointTo(dir, plan.newestFile, env, main, fd);
        } finally {
          closeSync(fd);
        }
        retireLogFiles(dir, plan.newestFile, plan.files);
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
  /** The file records are appended to. */
  private current: RedoLogFile;
  /** The previous generation's file while the checkpoint in progress is not durable (its records may still be needed). */
  private older: RedoLogFile | null = null;
  /** The other file, its next generation already begun (header flushed) so a checkpoint can switch to it at once. */
  private spare: RedoLogFile | null = null;
  private preparing = false;
  /** Files with appends not yet flushed. */
  private readonly dirty = new Set<RedoLogFile>();
  /** The read txn that holds the newest durable checkpoint's pages. */
  private pin: LmdbTxn | null;
  /** A checkpoint in flight: its own pin, and whether a checkpoint on this thread or close overtook it. */
  private inFlight: { pin: LmdbTxn; obsolete: boolean } | null = null;
  private commitsSince = 0;
  private bytesAtCheckpoint: number;
  private pageAtCheckpoint: number;
  private dataFd: number;
  private dataFdUsers = 0;
  private closed = false;
  /** A failed flush of the log: what is on the disk is unknown (fsync errors are reported once), so no write goes on in this generation (recover()). */
  private failure: StorageError | null = null;
  /** The files a failed flush (or take-back) left in an unknown state: never written again before a checkpoint completes elsewhere. */
  private readonly damaged = new Set<RedoLogFile>();
  /** The fault seam (tests): told before every flush of the log and of data.mdb. */
  faults: FaultInjector | undefined;
  /** Flushes on the thread pool (the log's files, data.mdb's checkpoint flush): each holds a descriptor until it returns. */
  private readonly work = new InFlight();
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
    dataFd: number,
  ) {
    this.current = first;
    this.pin = pin;
    this.bytesAtCheckpoint = first.size;
    this.pageAtCheckpoint = env.info().lastPageNumber;
    this.dataFd = dataFd;
  }

  /**
   * Starts the log on an open store with nothing in flight: flushes data.mdb, begins the next
   * generation with a checkpoint of the store as it is (in the file that does NOT hold the
   * recovery's checkpoint, which stays good until this one is durable), and pins it.
   */
  static start(dir: string, env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan, policy: CheckpointPolicy = DEFAULT_CHECKPOINT_POLICY): RedoLog {
    const bootId = currentBootId();
    const fd = openSync(join(dir, 'data.mdb'), 'r+');
    let pin: LmdbTxn | null = null;
    let file: RedoLogFile | null = null;
    try {
      fdatasyncSync(fd);
      pin = env.beginTxn({ readOnly: true });
      const meta = checkpointMeta(fd, env);
      const name = LOG_FILES.find((n) => n !== plan.checkpointFile)!;
      file = RedoLogFile.begin(dir, name, plan.lastGeneration + 1n, bootId);
      file.append(RECORD_CHECKPOINT, readSequence(pin, main), meta.bytes);
      file.flushSync();
      const log = new RedoLog(dir, env, main, bootId, policy, file, pin, fd);
      log.flushes += 2;
      log.prepareSpare();
      return log;
    } catch (err) {
      pin?.abort();
      file?.close();
      closeSync(fd);
      throw toStorageError(err, `start the redo log of ${dir}`);
    }
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
      ref.file.takeBack(ref.offset);
      ref.file.flushSync();
    } catch (err) {
      this.fail(err, 'take back a record', [ref.file]);
    }
  }

  /** Records that the record at `ref` never committed (durable with the next flush; a later record with its sequence would win anyway). */
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
      this.faults?.beforeLogFlush();
      for (const file of files) file.flushSync();
    } catch (err) {
      this.fail(err, 'flush', files);
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
      this.faults?.beforeLogFlush();
      await Promise.all(files.map((file) => this.work.track(file.flush())));
    } catch (err) {
      this.fail(err, 'flush', files);
    }
  }

  /**
   * After a commit, with no txn of the store's active: starts a checkpoint when the policy says so
   * (commits, log bytes, or pages the map grew by: what the pin keeps from being reused). A caller
   * that writes in a loop without yielding to the event loop never lets a checkpoint on the thread
   * pool finish, so at OVERDUE times the policy the checkpoint runs on this thread instead (such a
   * loop blocks on a flush per write anyway).
   */
  afterCommit(): void {
    if (this.closed || this.failure !== null) return;
    const due = Math.max(
      this.commitsSince / this.policy.commits,
      (this.current.size - this.bytesAtCheckpoint) / this.policy.bytes,
      (this.env.info().lastPageNumber - this.pageAtCheckpoint) / this.policy.pages,
    );
    if (due < 1) return;
    if (due >= OVERDUE) {
      // The commit before this is durable (its record was flushed): a checkpoint that fails here
      // is retried at the next one, and must not make the write look failed.
      try {
        this.checkpointNow();
      } catch {
        /* data.mdb's flush: retried at the next checkpoint; the log's: in failure, recover() at the next write */
      }
      if (this.failure === null) this.repin();
      return;
    }
    if (this.inFlight !== null) return;
    this.work.track(this.runCheckpoint()).catch(() => undefined); // retried, or kept in failure, as above
  }

  /**
   * Before a write, after a failure (a flush of the log or a take-back that failed, e.g. on a full
   * disk): begins a new generation with a checkpoint of the store as it is, so nothing in the
   * damaged file is needed any more, and the log goes on. Throws (the write fails) while that is
   * not possible yet. When the new generation was begun but its checkpoint failed (data.mdb's
   * flush, the disk still full), the next try goes into that same undamaged file. A failure in the
   * current file while a checkpoint is incomplete (its predecessor's file holds the only durable
   * checkpoint) leaves neither file writable: the new generation goes into a third one.
   */
  recover(): void {
    const failure = this.failure;
    if (failure === null || this.closed) return;
    this.failure = null;
    try {
      if (this.older !== null && this.damaged.has(this.current)) this.checkpointInThirdFile();
      // With the older file holding the last durable checkpoint, this one goes into the current
      // file (checkpointNow does not switch then); otherwise into a new generation.
      else this.checkpointNow(this.older === null);
    } catch {
      this.failure ??= failure;
      throw this.failure;
    }
    this.repin();
  }

  /**
   * A checkpoint on this thread (map growth, an overdue one): flushes data.mdb and logs, durably,
   * a checkpoint of the store as it is; drops every pin (`repin()` takes the new one). Overtakes a
   * checkpoint in flight, whose file then takes this checkpoint.
   */
  checkpointNow(switching = false): void {
    this.check();
    const overtaken = this.abandonInFlight();
    // A checkpoint that failed left its file current and the older one holding the last durable
    // checkpoint: this one goes into the current file (switching would write over the older).
    try {
      if (switching || (!overtaken && this.older === null)) this.switchFile();
      this.faults?.beforeDataFlush();
      fdatasyncSync(this.dataFd);
      this.flushes += 1;
    } catch (err) {
      throw this.checkpointFailed(err);
    }
    try {
      this.appendCheckpoint(this.current);
      this.dirty.add(this.current);
      this.flushSync();
    } catch (err) {
      this.fail(err, 'checkpoint');
    }
    this.pin?.abort();
    this.pin = null;
    this.completed();
  }

  /**
   * recover() with the current file damaged and the older one holding the last durable checkpoint:
   * the next generation begins in the log file that is neither, with a checkpoint of the store as
   * it is. Until that checkpoint is durable a restart still recovers from the older file's (the
   * pin keeps its pages), the damaged file's flushed records after it; once it is, both files are
   * history. Nothing changes when it fails: the next write tries again.
   */
  private checkpointInThirdFile(): void {
    this.abandonInFlight();
    const older = this.older!;
    const damaged = this.current;
    const name = LOG_FILES.find((n) => n !== damaged.name && n !== older.name)!;
    let file: RedoLogFile | null = null;
    try {
      file = RedoLogFile.begin(this.dir, name, damaged.generation + 1n, this.bootId);
      this.faults?.beforeDataFlush();
      fdatasyncSync(this.dataFd);
      this.appendCheckpoint(file);
      this.faults?.beforeLogFlush();
      file.flushSync();
      this.flushes += 3; // the new file's header, data.mdb, the checkpoint record
    } catch (err) {
      file?.close();
      throw this.checkpointFailed(err);
    }
    this.dirty.clear(); // only the two retired files could hold unflushed appends
    older.close();
    this.older = damaged; // closed by completed(), as an older file is
    this.current = file;
    this.pin?.abort();
    this.pin = null;
    this.completed();
  }

  /** Appends to `file` a checkpoint of the store as it is (its last commit's meta page and write sequence), data.mdb flushed before. */
  private appendCheckpoint(file: RedoLogFile): void {
    const reader = this.env.beginTxn({ readOnly: true });
    let sequence: bigint;
    try {
      sequence = readSequence(reader, this.main);
    } finally {
      reader.abort();
    }
    file.append(RECORD_CHECKPOINT, sequence, checkpointMeta(this.dataFd, this.env).bytes);
  }

  /** A flush of data.mdb that failed: not fatal (the log holds every write since the last checkpoint); the next checkpoint tries again. */
  private checkpointFailed(err: unknown): StorageError {
    return err instanceof StorageError ? err : toStorageError(err, `redo log checkpoint of ${this.dir}`);
  }

  /** Pins the store as it is now: only right after checkpointNow, with no commit in between. */
  repin(): void {
    if (this.pin === null) this.pin = this.env.beginTxn({ readOnly: true });
  }

  /**
   * Whether a record in `file` is kept until the next checkpoint completes: only the current
   * file's are (the older file is begun anew once the checkpoint in progress is durable, and that
   * checkpoint may not cover a commit made after it began).
   */
  isCurrent(file: RedoLogFile): boolean {
    return file === this.current;
  }

  /** Whether a failed flush stopped the log until recover() begins a new generation. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Whether a pin is held (LMDB cannot resize its map while one is). */
  get pinned(): boolean {
    return this.pin !== null || this.inFlight !== null;
  }

  /**
   * With every write committed: flushes data.mdb, which then holds the whole store, logs a last
   * checkpoint of it, and removes the log files, that one last (retireLogFiles: nothing in them is
   * needed any more, and a checkpoint left behind would be wrong once another durability writes
   * the folder). Drops the pins; the native env may close after. After a failed flush of the log
   * the last checkpoint goes into a new generation (recover()), so that no record of a write that
   * failed is replayed. Only if data.mdb's flush or that checkpoint fails do the files stay, for
   * the next open to recover from.
   */
  close(): void {
    if (this.closed) return;
    this.abandonInFlight();
    this.pin?.abort();
    this.pin = null;
    let error: unknown;
    let last: RedoLogFile | undefined;
    try {
      fdatasyncSync(this.dataFd);
      this.flushes += 1;
      last = this.lastCheckpoint();
    } catch (err) {
      error = err;
    }
    this.closed = true;
    const files = [this.current, this.older, this.spare].filter((f): f is RedoLogFile => f !== null);
    for (const file of files) file.close();
    if (error === undefined) retireLogFiles(this.dir, last!.name, [...LOG_FILES]);
    this.releaseDataFd();
    if (error !== undefined) throw toStorageError(error, `close the redo log of ${this.dir}`);
  }

  /**
   * Resolves once no flush of this log is running on the thread pool. After close() that is when
   * its last descriptor (a log file's, data.mdb's) is closed: close() returns before a flush in
   * flight does, and closing a descriptor under it could flush whatever file reused its number.
   */
  released(): Promise<void> {
    return this.work.idle();
  }

  /** At close, data.mdb flushed: a durable checkpoint of it as it is, in the current file (after a failed flush, a new generation's). */
  private lastCheckpoint(): RedoLogFile {
    if (this.failure !== null) {
      this.recover(); // throws while no undamaged file can take it
      this.pin?.abort();
      this.pin = null;
      return this.current;
    }
    this.appendCheckpoint(this.current);
    this.dirty.add(this.current);
    this.flushSync();
    return this.current;
  }

  private async runCheckpoint(): Promise<void> {
    const pin = this.env.beginTxn({ readOnly: true });
    let meta: MetaPage;
    let sequence: bigint;
    try {
      meta = checkpointMeta(this.dataFd, this.env);
      sequence = readSequence(pin, this.main);
      // Every record from now on follows the checkpoint's commit: it goes into the next generation
      // (unless a checkpoint failed: see checkpointNow).
      if (this.older === null) this.switchFile();
    } catch (err) {
      pin.abort();
      throw this.checkpointFailed(err);
    }
    const flight = { pin, obsolete: false };
    this.inFlight = flight;
    const file = this.current;
    this.dataFdUsers += 1;
    try {
      try {
        this.faults?.beforeDataFlush();
        await new Promise<void>((resolve, reject) => fdatasync(this.dataFd, (err) => (err ? reject(err) : resolve())));
        this.flushes += 1;
      } catch (err) {
        if (flight.obsolete) return;
        this.inFlight = null;
        flight.pin.abort();
        throw this.checkpointFailed(err);
      }
      if (flight.obsolete) return;
      file.append(RECORD_CHECKPOINT, sequence, meta.bytes);
      this.dirty.add(file);
      await this.flush(); // a failure here is the log's own: fatal until recover()
    } finally {
      this.dataFdUsers -= 1;
      if (this.closed) this.releaseDataFd();
    }
    if (flight.obsolete) return;
    this.inFlight = null;
    this.pin?.abort();
    this.pin = flight.pin;
    this.completed();
  }

  /** Begins the next generation in the other file (the spare, if prepared) and appends there from now on. */
  private switchFile(): void {
    const next = this.spare ?? this.beginNext();
    this.spare = null;
    this.older = this.current;
    this.current = next;
    this.commitsSince = 0;
    this.bytesAtCheckpoint = next.size;
    this.pageAtCheckpoint = this.env.info().lastPageNumber;
  }

  /** A checkpoint in the current file is durable: the older file's records are history, and it becomes the next spare. */
  private completed(): void {
    this.checkpoints += 1;
    this.commitsSince = 0;
    this.bytesAtCheckpoint = this.current.size;
    this.pageAtCheckpoint = this.env.info().lastPageNumber;
    const older = this.older;
    this.older = null;
    this.damaged.clear(); // the checkpoint just made durable is in the current file, which no failure touched
    if (older !== null) {
      this.dirty.delete(older);
      older.close();
    }
    this.prepareSpare();
  }

  /** Returns whether a checkpoint was in flight (its file switch stands). */
  private abandonInFlight(): boolean {
    const flight = this.inFlight;
    if (flight === null) return false;
    flight.obsolete = true;
    flight.pin.abort();
    this.inFlight = null;
    return true;
  }

  /** Begins the next generation in the file other than the current one (its header flushed). */
  private beginNext(): RedoLogFile {
    const name = LOG_FILES.find((n) => n !== this.current.name)!;
    return RedoLogFile.begin(this.dir, name, this.current.generation + 1n, this.bootId);
  }

  /** Begins the spare off the critical path, once the older file is history. */
  private prepareSpare(): void {
    if (this.spare !== null || this.preparing || this.closed) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      if (this.closed || this.spare !== null || this.older !== null || this.inFlight !== null) return;
      try {
        this.spare = this.beginNext();
      } catch {
        /* not fatal: the next checkpoint begins the file itself */
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

  private fail(err: unknown, what: string, files: readonly RedoLogFile[] = [this.current]): never {
    for (const file of files) this.damaged.add(file);
    const error = err instanceof StorageError ? err : toStorageError(err, `redo log ${what}`);
    this.failure ??= new StorageError('IO', `store ${this.dir}: the redo log failed to ${what} (${error.message}); what reached the disk is unknown, so the next write first starts a new log generation with a checkpoint, and fails while that is not possible (reopening the store recovers too)`, { cause: error });
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
