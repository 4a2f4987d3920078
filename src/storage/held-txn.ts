/**
 * Held writes ('log' durability with logWritesPerCommit > 1; docs/decisions/013-held-writes.md):
 * a logged write of the synchronous API,
 * once its record is flushed, leaves its native txn open instead of committing it, and the next
 * such write goes on in it. The write is durable when it returns (its record), its afterCommit
 * callbacks run then, and this process's reads see it (read() reads through the held txn); LMDB
 * commits the txn after that many writes or HELD_MAX_PAYLOAD_BYTES of records, when the event
 * loop turns (setImmediate), and before anything that needs LMDB's committed state or a txn of
 * its own: another kind of write (db.promises, an apply), a checkpoint (only after a commit), a
 * handover, sync(), copyTo(), stats(), close(). Pages the txn dirtied are written over in memory,
 * so K writes to the same leaves, branches and free-page records write them once. A write that
 * fails inside it (fn throws, MAP_FULL, its log flush fails) cannot abort alone (no nested txns
 * in node-lmdb): the txn aborts and the writes held before it are applied again from their
 * records and committed at once (settle), before any checkpoint could retire the log file that
 * holds them. Other processes see held writes when the txn commits.
 */
import { explainDiskFull } from './disk-space.js';
import { HeldPayloads } from './held-payloads.js';
import { HELD_MAX_PAYLOAD_BYTES, dirtiedPages, type HeldWrites } from './held-writes.js';
import { StorageError } from './storage-error.js';
import { LmdbReadTxn, LmdbWriteTxn, type ReadTxn } from './txn.js';
import { secondsSince, type WriteContext } from './write-context.js';
import { WRITE_SEQUENCE_KEY } from './write-sequence.js';

export class HeldTxn {
  /** The write txn held open across logged writes, or null. */
  private held: HeldWrites | null = null;
  /** Held writes whose commit failed and could not be applied again yet (a full disk): applyAgain. */
  private unapplied: HeldWrites | null = null;
  /** The held writes' log records, one buffer reused from held txn to held txn. */
  private readonly payloads = new HeldPayloads(HELD_MAX_PAYLOAD_BYTES);
  /** A setImmediate is queued that commits whatever is held when the event loop turns. */
  private turnPending = false;

  constructor(private readonly ctx: WriteContext) {}

  /** The held txn, or null. */
  get current(): HeldWrites | null {
    return this.held;
  }

  /**
   * A logged write, durable by its record, stays in the held txn instead of committing: its
   * callbacks run now; LMDB commits after logWritesPerCommit writes, or when the event loop
   * turns. A write that changed nothing leaves the held txn as it was. `roomPages`: the map's free
   * pages when `txn` began, for a txn not held yet (HeldWrites.roomPages).
   */
  hold(txn: LmdbWriteTxn, held: HeldWrites | null, sequence: Uint8Array | undefined, started: bigint | undefined, roomPages: number): void {
    const ctx = this.ctx;
    ctx.leaveWrite(txn);
    const h = held ?? { native: txn.native, writes: 0, sequence: sequence!, openedDatabases: [], pages: 0, roomPages };
    if (held === null) {
      this.held = h;
      // One pending turn per store, not one per held txn: a loop that never yields would queue a
      // callback per txn, each keeping its txn's payloads alive until the loop ends.
      if (!this.turnPending) {
        this.turnPending = true;
        setImmediate(() => {
          this.turnPending = false;
          try {
            this.commit();
          } catch {
            /* the store closed itself (closeAfterFailure): every later call says why; the log has the writes */
          }
        });
      }
    }
    h.openedDatabases.push(...txn.openedDatabases);
    if (sequence !== undefined) {
      const payload = txn.log!.payload();
      h.writes += 1;
      h.pages += dirtiedPages(txn.log!);
      this.payloads.append(payload);
      h.sequence = sequence;
      ctx.format.committed(sequence);
    }
    if (started) ctx.flushes.onFlush?.('commit', secondsSince(started));
    ctx.afterCommit(txn.committed);
    if (h.writes >= ctx.options.logWritesPerCommit || this.payloads.byteLength >= HELD_MAX_PAYLOAD_BYTES) {
      try {
        this.commit();
      } catch (err) {
        if (this.unapplied === null) throw err; // else this write is durable in the log and committed with them, later
      }
    }
    ctx.log.noticeWriters();
  }

  /** Commits the held txn, if there is one. */
  commit(): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    const ctx = this.ctx;
    try {
      try {
        ctx.options.faults?.beforeHeldCommit();
      } catch (err) {
        held.native.abort(); // as LMDB does to a txn whose commit fails
        throw err;
      }
      held.native.commit();
    } catch (err) {
      // LMDB aborted it: the writes it held are durable in the log only.
      ctx.env.registry.forgetOpenedIn(held);
      this.applyAgain(held, err);
      return;
    }
    this.payloads.clear();
    ctx.countCommit();
    ctx.log.redo?.afterCommit();
  }

  /** Held writes whose commit failed are applied again first; then what is held commits. */
  commitAll(): void {
    this.applyUnapplied();
    this.commit();
  }

  /** Every read and write first applies held writes whose commit failed (a full disk), failing until it can. */
  applyUnapplied(): void {
    if (this.unapplied !== null) this.applyAgain(this.unapplied, undefined);
  }

  /**
   * A write in the held txn failed before it could be held (fn threw, the map was full, its log
   * flush failed): node-lmdb has no nested txns, so the txn aborts with it, and the writes held
   * before it are applied again from their records and committed, as a recovery would.
   */
  settle(txn: LmdbWriteTxn, held: HeldWrites): void {
    this.held = null;
    this.ctx.endWrite(txn, false);
    this.ctx.env.registry.forgetOpenedIn(held);
    this.applyAgain(held, undefined);
  }

  /** Reads through the held txn: this process sees its held writes. */
  read<T>(fn: (txn: ReadTxn) => T): T {
    const txn = new LmdbReadTxn(this.ctx.host, this.held!.native, false);
    this.ctx.enterRead(txn);
    try {
      return fn(txn);
    } finally {
      this.ctx.leaveRead();
      txn.end();
      // A handle opened in the held txn lives only if it commits: commit it now.
      if (txn.openedHandle) this.commit();
    }
  }

  /**
   * Applies held writes again in a txn of their own and commits it (no checkpoint may come
   * between: their records are the only durable copy). If that fails (a full disk) they stay
   * `unapplied`, and every read and write first tries again, failing until it succeeds.
   */
  private applyAgain(held: HeldWrites, cause: unknown): void {
    const ctx = this.ctx;
    this.unapplied = held;
    let txn: LmdbWriteTxn | null = null;
    try {
      txn = new LmdbWriteTxn(ctx.host, ctx.env.begin(false), true);
      ctx.enterWrite(txn, false);
      for (const payload of this.payloads) ctx.applyChanges(txn, payload);
      txn.native.putBinary(ctx.env.catalog.handle!, WRITE_SEQUENCE_KEY, held.sequence);
      if (txn.broken !== null) throw txn.broken;
      const ending = txn;
      txn = null;
      ctx.endWrite(ending, true);
    } catch (err) {
      if (txn !== null) ctx.endWrite(txn, false);
      const why = `${cause === undefined ? '' : `after their commit failed (${(cause as Error).message}), `}they could not be committed again (${(err as Error).message})`;
      throw explainDiskFull(new StorageError('IO', `store ${ctx.path}: ${held.writes} acknowledged writes held in its write txn are durable in its redo log only: ${why}; every read and write commits them first, and fails until it can`, { cause: err }), ctx.path);
    }
    this.unapplied = null;
    this.payloads.clear();
    ctx.countCommit();
  }
}
