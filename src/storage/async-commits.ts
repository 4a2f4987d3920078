/**
 * Asynchronous commits: Store.writeAsync(fn) (db.promises' group commit, see ops/commit-queue.ts)
 * keeps every flush off the main thread. fn runs as a writeGroup in a real LMDB write txn on this
 * thread, which records its puts and deletes (so every read, cursor and count in fn sees fn's own
 * writes exactly as in any write txn) and is then ABORTED: no page is written on this thread. The
 * recorded changes are replayed by batch-commit.ts as one txn on a libuv worker (begin, changes,
 * commit with both its flushes in 'sync' durability), conditional on the store-wide write
 * sequence still being the value fn's txn saw; in 'relaxed' durability sync() then flushes the
 * meta page on the thread pool. In 'log' durability the record is appended to the redo log and
 * flushed on the thread pool instead, then applied on this thread without a flush. Contract:
 * - The promise resolves with fn's result only once the changes are durable: one trip to the
 *   thread pool for a lone write in 'sync' durability. It rejects with fn's error (nothing
 *   written) or a StorageError (nothing written, or for a failed final flush: committed but not
 *   known to be on disk).
 * - fn may run several times (as for write()): when another commit (this process's synchronous
 *   write txns, another process) came between the recording and the replay, the replay applies
 *   nothing and fn re-runs on the new state; also after map growth. After MAX_REPLAY_CONFLICTS
 *   conflicts, and when fn did something a replay cannot express (it created or dropped a
 *   database, or cleared one), fn runs once more in an ordinary write txn committed on this
 *   thread (its flushes then do run here: both in 'sync' durability; the data flush in
 *   'relaxed', then sync()).
 * - One writeAsync at a time per store: fn runs at once (in the caller's turn) when none is
 *   pending, else after the previous one settled, so fn never runs while a replay is in flight
 *   (its write txn would wait on this thread for the worker's commit). A synchronous write() made
 *   meanwhile does wait for it (LMDB has one writer lock), and if it commits before the worker's
 *   txn began, the replay finds the sequence moved and fn re-runs.
 * - While a replay is in flight the map cannot be resized: a write() that finds the map full then
 *   throws StorageError('BUSY') instead of growing it (retrying succeeds once the replay ended).
 * - close() while a replay is in flight lets it finish and flush; the native env closes after.
 */
import { replayChanges, type ReplayOutcome } from './batch-commit.js';
import type { Database } from './database.js';
import { explainDiskFull } from './disk-space.js';
import type { InFlight } from './in-flight.js';
import { relogApplied, settledAtReopen } from './redo-log-failure.js';
import { sequenceOf, type RedoLog } from './redo-log.js';
import { StorageError } from './storage-error.js';
import type { LmdbReadTxn, LmdbWriteTxn, ReadTxn, RecordedChange, WriteTxn } from './txn.js';
import { secondsSince, type WriteContext } from './write-context.js';
import { WRITE_SEQUENCE_KEY, nextWriteSequence } from './write-sequence.js';

/** Replays of one writeAsync that may find another commit in between before it commits on this thread. */
export const MAX_REPLAY_CONFLICTS = 3;

/** What writeAsync's recording run of fn leaves behind. */
export type Recording = { changes: RecordedChange[]; sequence: Uint8Array | undefined; opened: Database[]; unreplayable: string | null; committed: (() => void)[]; payload?: Uint8Array };

const newRecording = (): Recording => ({ changes: [], sequence: undefined, opened: [], unreplayable: null, committed: [] });

/** What asynchronous commits use of the Store besides its write context. */
export interface AsyncCommitHost {
  /** Runs fn as a write group: recorded (and aborted) when `recording` is given; `logged` false: a redo record's apply. */
  runGroup<T>(fn: (txn: WriteTxn) => T, recording: Recording | null, logged?: boolean): T;
  read<T>(fn: (txn: ReadTxn) => T): T;
  sync(): Promise<void>;
  /** Work on the thread pool that holds the native env or a descriptor of the folder (Store.released()). */
  readonly work: InFlight;
}

export class AsyncCommits {
  /** The last writeAsync call's settlement: the next one starts after it (one at a time). */
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;
  /** Replays that applied, replays that found another commit first, fallbacks to this thread. */
  private readonly replays = { committed: 0, conflicts: 0, onThisThread: 0 };

  constructor(
    private readonly ctx: WriteContext,
    private readonly store: AsyncCommitHost,
  ) {}

  write<T>(fn: (txn: WriteTxn) => T): Promise<T> {
    // When none is pending, fn runs now, in the caller's turn (as write() would); else after the last.
    const run = this.pending === 0 ? this.writeNow(fn) : this.tail.then(() => this.writeNow(fn));
    this.pending += 1;
    const settled = run.then(
      () => void (this.pending -= 1),
      () => void (this.pending -= 1),
    );
    this.tail = settled;
    return run;
  }

  get stats(): { committed: number; conflicts: number; onThisThread: number } {
    return { ...this.replays };
  }

  private async writeNow<T>(fn: (txn: WriteTxn) => T): Promise<T> {
    const { ctx, store } = this;
    if (ctx.log.redo !== null) return this.writeLogged(ctx.log.redo, fn);
    for (let conflicts = 0; ; ) {
      const recording = newRecording();
      const result = store.runGroup(fn, recording);
      const handlesOpen = this.reopenHandles(recording.opened);
      if (recording.unreplayable !== null || !handlesOpen || conflicts >= MAX_REPLAY_CONFLICTS) {
        this.replays.onThisThread += 1;
        const value = store.runGroup(fn, null);
        if (ctx.flushes.pending) await store.sync();
        return value;
      }
      if (recording.changes.length === 0) {
        if (ctx.flushes.pending) await store.sync(); // what fn read may be a commit not flushed yet
        return result;
      }
      ctx.options.faults?.betweenRecordAndReplay?.();
      const outcome = await store.work.track(this.replay(recording));
      if (outcome === 'committed') {
        this.replays.committed += 1;
        if (ctx.flushes.pending && !ctx.env.closed) await store.sync(); // 'relaxed' (else replay() flushed it)
        return result;
      }
      if (outcome === 'conflict') {
        this.replays.conflicts += 1;
        conflicts += 1;
      } else if (outcome === 'map-full') {
        ctx.env.grow();
      } else {
        ctx.env.adoptMapSize();
      }
    }
  }

  /**
   * Durability 'log': fn runs as a recording txn (aborted), its record is appended and flushed on
   * the thread pool (one flush for every write appended meanwhile), and only then applied here,
   * without a flush, if the write sequence is still the one fn saw. Another commit in between (a
   * synchronous write() of this process) makes the record void and fn re-runs.
   */
  private async writeLogged<T>(redo: RedoLog, fn: (txn: WriteTxn) => T): Promise<T> {
    const { ctx, store } = this;
    for (let conflicts = 0; ; conflicts++) {
      // Handed over to another writer (redo-handover.ts) since: the log is gone, fn runs on the durable path.
      if (ctx.log.redo !== redo) return this.writeNow(fn);
      if (conflicts >= MAX_REPLAY_CONFLICTS) {
        this.replays.onThisThread += 1;
        return store.runGroup(fn, null);
      }
      const recording = newRecording();
      const result = store.runGroup(fn, recording);
      const payload = recording.payload;
      if (payload === undefined) return result; // nothing to write; what fn read is durable already
      const sequence = sequenceOf(nextWriteSequence(recording.sequence));
      let record = redo.append(sequence, payload);
      try {
        await redo.flush();
      } catch (err) {
        throw ctx.log.settleLogged(err);
      }
      if (ctx.env.failure !== null) throw settledAtReopen(ctx.env.failure, undefined); // closed by a failure: the log was kept, with this record
      if (ctx.env.closed) throw new StorageError('CLOSED', `store ${ctx.path} was closed before this write committed; nothing of it was written`);
      // Handed over to another writer meanwhile (redo-handover.ts): the log is gone; fn re-runs on the durable path.
      if (ctx.log.redo !== redo) return this.writeNow(fn);
      // Another write's flush that failed meanwhile: the new generation begins now, before the
      // apply (the apply's own recover() would retire this record's file after it committed), or
      // this write fails with nothing of it applied.
      // A checkpoint that began meanwhile will retire the file the record is in, without covering
      // this commit: the record goes into the current file too (the later copy wins on replay).
      try {
        redo.recover();
        if (!redo.isCurrent(record.file)) {
          record = redo.append(sequence, payload);
          redo.flushSync();
        }
      } catch (err) {
        throw ctx.log.settleLogged(err);
      }
      let applied: boolean;
      // Whether the record's file was still current when the apply committed: a checkpoint begun
      // after the commit covers it, one made inside the apply before it (map growth) does not.
      let coveredByLog = true;
      try {
        applied = store.runGroup((txn) => {
          coveredByLog = redo.isCurrent(record.file);
          return this.applyRecorded(txn as LmdbWriteTxn, recording, payload);
        }, null, false);
      } catch (err) {
        if (ctx.log.redo === redo) {
          try {
            redo.void(record, sequence);
            redo.flushSync();
          } catch (voidErr) {
            throw ctx.log.settleLogged(voidErr);
          }
        }
        throw err;
      }
      // The apply's commit may have handed the folder over (noticeWriters): its close flushed
      // data.mdb after this commit and removed the log, so nothing more is logged.
      const handedOver = ctx.log.redo !== redo;
      if (applied) {
        // Map growth inside the apply checkpoints on this thread, before this commit: log it again.
        if (!handedOver && !coveredByLog) relogApplied(redo, sequence, payload);
        this.replays.committed += 1;
        return result;
      }
      if (!handedOver) redo.void(record, sequence); // durable with the next flush; a later record with its sequence would win anyway
      this.replays.conflicts += 1;
    }
  }

  /** Applies a recorded txn's changes if the store is still at the write sequence it saw (see writeLogged). */
  private applyRecorded(txn: LmdbWriteTxn, recording: Recording, payload: Uint8Array): boolean {
    const now = txn.getCopy(this.ctx.env.catalog, WRITE_SEQUENCE_KEY);
    const then = recording.sequence;
    if ((now === undefined) !== (then === undefined) || (now !== undefined && Buffer.compare(now, then!) !== 0)) return false;
    this.ctx.applyChanges(txn, payload);
    for (const callback of recording.committed) txn.afterCommit(callback);
    return true;
  }

  /**
   * After a recording txn aborted, LMDB closed the handles it opened: reopen them in a read txn
   * so the replay can name them. False when one does not exist outside that txn (fn created it).
   */
  private reopenHandles(opened: readonly Database[]): boolean {
    if (opened.length === 0) return true;
    const registry = this.ctx.env.registry;
    return this.store.read((txn) => {
      for (const db of opened) {
        if (db.handle !== null) continue;
        try {
          registry.openHandle(db, txn as LmdbReadTxn);
        } catch (err) {
          if (err instanceof StorageError && err.code === 'NOT_FOUND') return false;
          throw err;
        }
      }
      return true;
    });
  }

  /**
   * Runs one replay on a libuv worker (batch-commit.ts); counts it as a commit and its data flush.
   * It holds the native env and the flush descriptor: if close() comes meanwhile, both stay open
   * until the replay ended, and a committed replay is flushed here (sync() needs an open store).
   */
  private async replay(recording: Recording): Promise<ReplayOutcome> {
    const { ctx } = this;
    ctx.env.checkOpen();
    const fd = ctx.flushes.useDescriptor();
    try {
      ctx.options.faults?.beforeCommit();
    } catch (err) {
      ctx.flushes.releaseDescriptor(fd);
      throw err;
    }
    const started = process.hrtime.bigint();
    const env = ctx.env.beginNativeWork();
    ctx.env.replaysInFlight += 1;
    let outcome: ReplayOutcome;
    try {
      outcome = await replayChanges(env, ctx.env.catalog.handle!, recording.changes, recording.sequence);
    } catch (err) {
      ctx.flushes.releaseDescriptor(fd);
      throw err instanceof StorageError ? explainDiskFull(err, ctx.path) : err;
    } finally {
      ctx.env.replaysInFlight -= 1;
      ctx.env.endNativeWork(env);
      // The replay's callbacks when it committed, then those of the txns committed after it.
      ctx.afterCommit(outcome! === 'committed' ? recording.committed : [], true);
    }
    if (outcome === 'committed') {
      ctx.countCommit();
      ctx.format.committed(nextWriteSequence(recording.sequence)); // what the replay wrote
      const metaWaits = ctx.flushes.replayCommitted(); // LMDB's flushes, on the worker
      ctx.flushes.onFlush?.('commit', secondsSince(started));
      if (metaWaits) {
        if (ctx.env.closed) {
          await ctx.flushes.flushDescriptor(fd); // closed meanwhile: its meta page is flushed here
          return outcome;
        }
        ctx.flushes.leaveUnflushed();
      }
    } else if (ctx.env.closed) {
      ctx.flushes.releaseDescriptor(fd);
      throw new StorageError('CLOSED', `store ${ctx.path} was closed before this write committed; nothing of it was written`);
    }
    ctx.flushes.releaseDescriptor(fd);
    return outcome;
  }
}
