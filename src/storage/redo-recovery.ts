/** Recovery from a folder's redo log: the plan read from its files, the checkpoint's meta page written back, the replay. */
import { closeSync, fdatasyncSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import { newestMeta, parseMeta, readMetaPages, restoreMeta, type MetaPage } from './meta-pages.js';
import { OWNER_FILE } from './redo-handover.js';
import { RECORD_CHANGES, RECORD_CHECKPOINT, RECORD_VOID, LOG_FILES, decodeChanges, isTornHeader, scanLog, type LogRecord, type LoggedChange } from './redo-log-file.js';
import { MDB_NOTFOUND, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import { WRITE_SEQUENCE_KEY } from './write-sequence.js';
import { appendCheckpointTo, readSequence } from './redo-checkpoint-state.js';

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
 * Reads the folder's log files (none: an empty plan). A file whose header is torn (shorter than a
 * header, or zeros: a new file whose header never reached the disk, redo-log-file.ts) holds
 * nothing. Any other header or record that does not read was damaged on the medium: CORRUPT,
 * naming the file, rather than a recovery that silently goes back to an older checkpoint. An
 * error reading a file is thrown (IO), never taken for an empty file.
 */
export function readRecoveryPlan(dir: string, bootId: string): RecoveryPlan {
  const names = readdirSync(dir).filter((name) => (LOG_FILES as readonly string[]).includes(name));
  const scanned: ScannedFile[] = [];
  for (const name of names) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, name));
    } catch (err) {
      throw new StorageError('IO', `store ${dir}: could not read its redo log ${name} (${(err as Error).message})`, { cause: err });
    }
    if (isTornHeader(bytes)) continue;
    let scan: ReturnType<typeof scanLog>;
    try {
      scan = scanLog(bytes, name);
    } catch (err) {
      throw new StorageError('CORRUPT', `store ${dir}: ${(err as Error).message}; refusing to recover from the rest of the log, which could lose acknowledged writes silently`, { cause: err });
    }
    scanned.push({ name, generation: scan.header.generation, bootId: scan.header.bootId, records: scan.records });
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
export function checkDataFileFollowsCheckpoint(dir: string, checkpoint: MetaPage): void {
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
export function checkpointBeforeReplay(dir: string, env: LmdbEnv, main: LmdbDbi, plan: RecoveryPlan): void {
  const fd = openSync(join(dir, 'data.mdb'), 'r+');
  try {
    fdatasyncSync(fd);
    appendCheckpointTo(dir, plan.checkpointFile!, env, main, fd);
  } finally {
    closeSync(fd);
  }
}

