/**
 * How one write txn of a Store becomes durable, one implementation per way of committing:
 * - direct: LMDB commits on this thread and flushes as the env's flush mode says
 *   (commit-flushes.ts: 'sync' both flushes inside the commit, 'relaxed' the data pages only);
 *   also a redo-logged write's apply, whose record is in the log already (async-commits.ts);
 * - logged ('log'): the txn's changes are appended to the redo log and flushed BEFORE LMDB
 *   commits it (MDB_NOSYNC): one flush of one sequential append per commit, and nothing a reader
 *   sees is less durable than the log; a commit that then fails takes its record back;
 *   ('interval'): appended the same way, the flush left to deferred-flush.ts;
 * - held ('log' with logWritesPerCommit > 1): logged, then left in the held txn (held-txn.ts).
 * Store.runWrite runs fn between begin() and commit() and re-runs it when commit() finds the map full.
 */
import { explainDiskFull } from './disk-space.js';
import { dirtiedPages, hasRoomToHold, roomToHold, type HeldWrites } from './held-writes.js';
import type { HeldTxn } from './held-txn.js';
import { sequenceOf, type RecordRef, type RedoLog } from './redo-log.js';
import { MDB_MAP_FULL, StorageError, lmdbCode, toStorageError } from './storage-error.js';
import { LmdbWriteTxn } from './txn.js';
import { ChangeWriter } from './redo-log-file.js';
import { secondsSince, type WriteContext } from './write-context.js';

export interface Committer {
  /** Before the write's first run of fn. */
  prepare(): void;
  /** The txn fn runs in (made the Store's write txn by the caller). */
  begin(): LmdbWriteTxn;
  /** fn threw or the txn broke: the txn ends and nothing of it is written. */
  abort(txn: LmdbWriteTxn): void;
  /**
   * Makes the txn durable and the store's state (or held: durable, committed later). False when
   * the map was full: nothing was written, the caller grows it and runs fn again.
   */
  commit(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): boolean;
}

/** LMDB's commit of `txn` on this thread, and what follows a commit; `record`: its redo record, taken back if the commit fails. */
function commitInLmdb(ctx: WriteContext, txn: LmdbWriteTxn, sequence: Uint8Array | undefined, started: bigint | undefined, record?: { redo: RedoLog; ref: RecordRef }): boolean {
  try {
    ctx.endWrite(txn, true);
  } catch (err) {
    if (record !== undefined) {
      try {
        record.redo.undo(record.ref);
      } catch (undoErr) {
        throw ctx.log.settleLogged(undoErr);
      }
    }
    if (lmdbCode(err) === MDB_MAP_FULL) return false;
    throw explainDiskFull(toStorageError(err, 'commit'), ctx.path);
  }
  ctx.countCommit();
  // Only once committed: a sequence value of an aborted txn may be another process's next one.
  if (sequence !== undefined) ctx.format.committed(sequence);
  if (started) ctx.flushes.onFlush?.('commit', secondsSince(started));
  ctx.afterCommit(txn.committed);
  ctx.log.redo?.afterCommit();
  ctx.log.noticeWriters();
  return true;
}

const startedIfTimed = (ctx: WriteContext): bigint | undefined => (ctx.flushes.onFlush ? process.hrtime.bigint() : undefined);

export class DirectCommitter implements Committer {
  constructor(
    private readonly ctx: WriteContext,
    private readonly held: HeldTxn,
  ) {}

  prepare(): void {
    this.held.commit(); // only the synchronous API's logged writes share the held txn
  }

  begin(): LmdbWriteTxn {
    return new LmdbWriteTxn(this.ctx.host, this.ctx.env.begin(false), true);
  }

  abort(txn: LmdbWriteTxn): void {
    this.ctx.endWrite(txn, false);
  }

  commit(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): boolean {
    return commitInLmdb(this.ctx, txn, sequence, startedIfTimed(this.ctx));
  }
}

export class LoggedCommitter implements Committer {
  /** The current write txn's redo record, reused from txn to txn (its payload is the record: no second copy of each change). */
  protected readonly writer = new ChangeWriter();
  protected redo!: RedoLog;

  constructor(
    protected readonly ctx: WriteContext,
    protected readonly held: HeldTxn,
  ) {}

  prepare(): void {
    this.held.commit();
    this.recover();
  }

  /** After a failed flush (a full disk): a new generation first, or this write fails. */
  protected recover(): void {
    this.redo = this.ctx.log.redo!;
    this.redo.recover();
  }

  begin(): LmdbWriteTxn {
    const txn = new LmdbWriteTxn(this.ctx.host, this.ctx.env.begin(false), true);
    txn.log = this.writer.reset();
    return txn;
  }

  abort(txn: LmdbWriteTxn): void {
    this.ctx.endWrite(txn, false);
  }

  commit(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): boolean {
    const started = startedIfTimed(this.ctx);
    const ref = this.appendRecord(txn, sequence);
    return commitInLmdb(this.ctx, txn, sequence, started, ref === undefined ? undefined : { redo: this.redo, ref });
  }

  /** Appends the txn's record (a changing txn) and, in 'log', flushes it: durable before LMDB commits, so nothing a reader can see is less so. */
  protected appendRecord(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): RecordRef | undefined {
    if (sequence === undefined) return undefined;
    try {
      const ref = this.redo.append(sequenceOf(sequence), txn.log!.payload());
      this.redo.appended();
      return ref;
    } catch (err) {
      this.abort(txn);
      const settled = this.ctx.log.settleLogged(err);
      throw settled instanceof StorageError ? explainDiskFull(settled, this.ctx.path) : settled;
    }
  }
}

/** How long the held committer waits after a failed attempt to make room in the map. */
const ROOM_RETRY_MS = 1000;

export class HeldCommitter extends LoggedCommitter {
  /** The held txn this run of fn went on in, or null (it began one). */
  private attempt: HeldWrites | null = null;
  /** performance.now() before which no room is made (a resize failed). */
  private roomRetryAt = 0;

  override prepare(): void {
    if (this.ctx.log.redo?.failed) this.held.commit();
    this.recover();
    // A write that finds the map full inside the held txn would take the held writes down with
    // it, and growing the map needs a checkpoint, which must not come before they are committed:
    // the held txn commits first while the map is short of room.
    const held = this.held.current;
    if (held !== null && !hasRoomToHold(held.roomPages, held.pages)) this.held.commit();
    if (this.held.current === null) this.makeRoomToHold();
  }

  /**
   * Before a held txn begins: room in the map for a full one (a reopened store may have none).
   * A resize that fails (an asynchronous commit or a copy in flight, a checkpoint that failed)
   * costs a checkpoint first, so it is tried again only ROOM_RETRY_MS later; writes commit
   * unheld meanwhile.
   */
  private makeRoomToHold(): void {
    if (performance.now() < this.roomRetryAt) return;
    try {
      this.ctx.env.makeRoom(roomToHold(this.ctx.options.logWritesPerCommit));
    } catch {
      this.roomRetryAt = performance.now() + ROOM_RETRY_MS;
    }
  }

  override begin(): LmdbWriteTxn {
    this.attempt = this.held.current;
    const txn = new LmdbWriteTxn(this.ctx.host, this.attempt?.native ?? this.ctx.env.begin(false), true);
    txn.log = this.writer.reset();
    return txn;
  }

  override abort(txn: LmdbWriteTxn): void {
    if (this.attempt !== null) this.held.settle(txn, this.attempt);
    else this.ctx.endWrite(txn, false);
  }

  override commit(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): boolean {
    const started = startedIfTimed(this.ctx);
    const ref = this.appendRecord(txn, sequence);
    // A txn of its own is only held with room to spare: its commit must not find the map full.
    // The room is measured once, here, for the whole held txn (HeldWrites.roomPages).
    if (this.attempt !== null) {
      this.held.hold(txn, this.attempt, sequence, started, this.attempt.roomPages);
      return true;
    }
    const roomPages = sequence === undefined ? 0 : this.ctx.env.freePages();
    if (sequence !== undefined && hasRoomToHold(roomPages, dirtiedPages(txn.log!))) {
      this.held.hold(txn, null, sequence, started, roomPages);
      return true;
    }
    return commitInLmdb(this.ctx, txn, sequence, started, ref === undefined ? undefined : { redo: this.redo, ref });
  }
}
