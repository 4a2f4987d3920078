/**
 * A Store's write txns: the one open now (write() inside a group joins it, read() reads through
 * it), running fn in it and handing it to the committer for this write (committers.ts), the
 * recording runs of writeAsync (async-commits.ts), and the order of afterCommit callbacks.
 */
import { AsyncCommits, type Recording } from './async-commits.js';
import type { CommitFlushes } from './commit-flushes.js';
import { DirectCommitter, HeldCommitter, LoggedCommitter, type Committer } from './committers.js';
import { CountingWriteTxn } from './counting-write-txn.js';
import type { Database } from './database.js';
import type { FormatState } from './format-state.js';
import { HeldTxn } from './held-txn.js';
import type { InFlight } from './in-flight.js';
import type { LogOwnership } from './log-ownership.js';
import { decodeChanges } from './redo-log-file.js';
import { StorageError } from './storage-error.js';
import type { StoreEnv } from './store-env.js';
import type { ResolvedStoreOptions } from './store-options.js';
import type { LmdbReadTxn, LmdbWriteTxn, ReadTxn, TxnHost, WriteTxn } from './txn.js';
import type { WriteContext } from './write-context.js';
import { WRITE_SEQUENCE_KEY } from './write-sequence.js';

/** What the write txns use of the Store itself. */
export interface WriteTxnsHost {
  read<T>(fn: (txn: ReadTxn) => T): T;
  sync(): Promise<void>;
  dropDatabase(name: string): boolean;
  /** Told before each outermost write txn begins (Store.beforeTxn). */
  beforeWrite(): void;
  readonly work: InFlight;
}

export class WriteTxns implements WriteContext {
  activeRead: LmdbReadTxn | null = null;
  activeWrite: LmdbWriteTxn | null = null;
  /** True while activeWrite is a writeGroup's txn, which write() joins. */
  grouping = false;
  commits = 0;
  joinedWrites = 0;
  readonly held: HeldTxn;
  readonly asyncCommits: AsyncCommits;
  /** Puts, deletes and clears made by joined writes of the current group. */
  private groupChanges = 0;
  /** afterCommit callbacks of txns committed while a replay was in flight (see afterCommit). */
  private readonly heldCallbacks: (() => void)[] = [];
  private readonly committers: { readonly direct: Committer; readonly logged: Committer; readonly held: Committer };

  constructor(
    readonly path: string,
    readonly options: ResolvedStoreOptions,
    readonly host: TxnHost,
    readonly env: StoreEnv,
    readonly flushes: CommitFlushes,
    readonly format: FormatState,
    readonly log: LogOwnership,
    private readonly store: WriteTxnsHost,
  ) {
    this.held = new HeldTxn(this);
    this.committers = { direct: new DirectCommitter(this, this.held), logged: new LoggedCommitter(this, this.held), held: new HeldCommitter(this, this.held) };
    this.asyncCommits = new AsyncCommits(this, {
      runGroup: (fn, recording, logged) => this.run(fn, true, recording, logged),
      read: (fn) => store.read(fn),
      sync: () => store.sync(),
      work: store.work,
    });
  }

  /** write(fn): joins the group's txn when one is open, else a txn of its own. */
  write<T>(fn: (txn: WriteTxn) => T): T {
    if (this.grouping && this.activeWrite !== null) return this.joinGroup(this.activeWrite, fn);
    return this.run(fn, false, null);
  }

  writeGroup<T>(fn: (txn: WriteTxn) => T): T {
    if (this.grouping && this.activeWrite !== null) return fn(this.activeWrite);
    return this.run(fn, true, null);
  }

  /**
   * One write txn running fn, committed by the committer for this write, or recorded and aborted
   * for writeAsync (`recording`). `logged` false: a redo-logged write's apply, whose record is
   * already in the log (async-commits.ts).
   */
  private run<T>(fn: (txn: WriteTxn) => T, group: boolean, recording: Recording | null, logged = true): T {
    this.env.checkOpen();
    if (this.options.readOnly) throw new StorageError('READ_ONLY', `store ${this.path} was opened read-only`);
    if (this.activeWrite !== null) throw new StorageError('BUSY', 'write() cannot be nested: use the outer write txn');
    if (this.activeRead !== null) throw new StorageError('BUSY', 'write() cannot run inside read()');
    this.store.beforeWrite();
    this.held.applyUnapplied();
    const committer = this.committerFor(recording, logged);
    committer.prepare();
    for (;;) {
      const txn = committer.begin();
      if (recording !== null && txn.log === null) txn.recorded = [];
      this.enterWrite(txn, group);
      let result: T;
      let sequence: Uint8Array | undefined;
      try {
        result = fn(txn);
        if (isPromiseLike(result)) throw new StorageError('INVALID', 'write() callbacks must be synchronous');
        if (txn.broken !== null) throw txn.broken;
        if (recording !== null) {
          this.record(txn, recording);
          return result;
        }
        sequence = txn.changed ? this.format.bumpWriteSequence(txn) : undefined;
        this.options.faults?.beforeCommit();
      } catch (err) {
        committer.abort(txn);
        if (txn.mapFull) {
          this.env.grow();
          continue;
        }
        throw err;
      }
      if (committer.commit(txn, sequence)) return result;
      this.env.grow();
    }
  }

  /** Only the synchronous API's logged writes share the held txn; any other write commits it first. */
  private committerFor(recording: Recording | null, logged: boolean): Committer {
    if (this.log.redo === null || !logged) return this.committers.direct;
    return recording === null && this.options.logWritesPerCommit > 1 ? this.committers.held : this.committers.logged;
  }

  /** What writeAsync replays of a recording run of fn; the txn aborts: nothing of it is written here. */
  private record(txn: LmdbWriteTxn, recording: Recording): void {
    recording.changes = txn.recorded ?? [];
    recording.sequence = txn.getCopy(this.env.catalog, WRITE_SEQUENCE_KEY);
    if (txn.changed) this.format.checkSince(txn, recording.sequence);
    recording.opened = [...txn.openedDatabases];
    recording.unreplayable = txn.unreplayable;
    recording.committed = txn.committed; // run by the replay if, and when, it commits
    if (txn.log !== null && txn.changed) recording.payload = Uint8Array.prototype.slice.call(txn.log.payload());
    this.endWrite(txn, false);
  }

  /** Runs a write() made inside a group on the group's txn; poisons the group if it fails half-done. */
  private joinGroup<T>(txn: LmdbWriteTxn, fn: (txn: WriteTxn) => T): T {
    this.joinedWrites += 1;
    const before = this.groupChanges;
    const counted = new CountingWriteTxn(txn, () => {
      this.groupChanges += 1;
    });
    try {
      const result = fn(counted);
      if (isPromiseLike(result)) throw new StorageError('INVALID', 'write() callbacks must be synchronous');
      return result;
    } catch (err) {
      if (err instanceof StorageError) {
        txn.broken ??= err; // a storage failure fails the group, even if fn catches it
      } else if (this.groupChanges !== before && txn.broken === null) {
        const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        txn.broken = new StorageError('BUSY', `write group aborted: a write in it failed after changing the store (${detail})`, { cause: err });
      }
      throw err;
    }
  }

  enterWrite(txn: LmdbWriteTxn, group: boolean): void {
    this.activeWrite = txn;
    this.grouping = group;
  }

  leaveWrite(txn: LmdbWriteTxn): void {
    txn.end();
    this.activeWrite = null;
    this.grouping = false;
  }

  /** Commits or aborts the native txn; commit errors propagate raw (LMDB aborted the txn). */
  endWrite(txn: LmdbWriteTxn, commit: boolean): void {
    this.leaveWrite(txn);
    const registry = this.env.registry;
    if (!commit) {
      txn.native.abort();
      registry.forgetOpenedIn(txn);
      return;
    }
    try {
      txn.native.commit();
    } catch (err) {
      registry.forgetOpenedIn(txn);
      throw err;
    }
    this.flushes.lmdbCommitted();
  }

  enterRead(txn: LmdbReadTxn): void {
    this.activeRead = txn;
  }

  leaveRead(): void {
    this.activeRead = null;
  }

  countCommit(): void {
    this.commits += 1;
  }

  /**
   * Runs a commit's afterCommit callbacks (txn.ts), in commit order: while a replay is in flight, a
   * txn committed on this thread meanwhile committed after it (LMDB's writer lock) or made it
   * conflict, so its callbacks wait until the replay settled and its own callbacks (if it
   * committed) ran.
   */
  afterCommit(callbacks: readonly (() => void)[], replaySettled = false): void {
    if (!replaySettled && this.env.replaysInFlight > 0) {
      this.heldCallbacks.push(...callbacks);
      return;
    }
    const run = replaySettled ? [...callbacks, ...this.heldCallbacks.splice(0)] : callbacks;
    for (const fn of run) {
      try {
        fn();
      } catch {
        /* the commit happened; a callback's failure must not turn it into an error */
      }
    }
  }

  /** Applies a log record's changes in `txn` (the active write txn), as the write that logged them made them. */
  applyChanges(txn: LmdbWriteTxn, payload: Uint8Array): void {
    const registry = this.env.registry;
    for (const change of decodeChanges(payload)) {
      const db: Database = change.db === '' ? this.env.catalog : registry.get(change.db);
      if (change.op === 'put') txn.put(db, change.key, change.value);
      else if (change.op === 'delete') txn.delete(db, change.key);
      else if (change.op === 'clear') txn.clear(db);
      else if (change.op === 'drop') this.store.dropDatabase(change.db);
      else if (db.handle === null) registry.openHandle(db, txn);
    }
  }
}

function isPromiseLike(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
