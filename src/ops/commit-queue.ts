/**
 * Group commit for every promise caller: db.promises, and through it `serve`. Writes queue here;
 * the queue runs each run of item writes as one group (ops/write/write-group.ts
 * runWriteGroupAsync: one txn, each request with its own condition, response and error)
 * through store.writeAsync: the group is computed on this thread in a write txn that is recorded
 * and aborted, then committed by a libuv worker (begin, changes, commit with its flushes; in
 * 'relaxed' durability the meta flush follows on the thread pool); only then do the group's
 * promises resolve. No flush of an item-write group runs on the event loop. Writes issued while a
 * group is committing wait and form the next group, so groups grow with the load: N concurrent
 * writers pay about two flushes per group instead of two per write.
 *
 * Replication writes (replication/replica.ts: a hub applying a device batch, a device applying
 * what the hub sent down, restoring refused writes, sweeping after a base read, moving a cursor)
 * are queued here too, as a txn function (submitTxn): each commits alone through store.writeAsync,
 * in submission order with every other write, so they reach observers, change records, versions
 * and the group counters exactly as the API's writes do, and never two commits are undurable.
 *
 * Table operations (CreateTable, UpdateTable, DeleteTable, UpdateTimeToLive) and tags still
 * commit on this thread, each alone, with their flushes (in 'relaxed' durability the data flush
 * here and store.sync() awaited on the pool): they create and drop databases, which a replayed
 * batch cannot do. They are rare next to item writes.
 *
 * Contract:
 * - A promise resolves (or rejects with the write's own error) only when its write is durable:
 *   after its commit's flushes. A failed commit or flush rejects every write of the group that
 *   would have written with that StorageError; a write that failed on its own (a condition, a
 *   validation) keeps its own error (write-group.ts).
 * - Writes run in submission order; one sees the writes submitted before it (as if each had
 *   committed alone). Writes that are not item writes (CreateTable, UpdateTable, DeleteTable,
 *   UpdateTimeToLive, tags) run in the same order, each alone, as described above.
 * - One group at a time: the next commits only after the previous one is durable, so at most
 *   one commit is ever not yet durable (what the power-cut harness checks).
 * - A group starts `windowMs` after its first write was queued (0: on the next setImmediate, after
 *   the requests of this event-loop turn), or at once when it holds maxRequests; writes queued
 *   during a flush start their window when it ends (with 0, writers woken by the flush join).
 *   A group is a leading run of item writes of the queue, or one other write.
 * - drainSync() runs whatever is queued now with ordinary synchronous commits (for close()). A
 *   group already in flight then either commits and is flushed (store.ts keeps the descriptor
 *   open for it), or, when a drained commit came before its worker txn began, is rejected with
 *   StorageError('CLOSED'), nothing of it written.
 */
import { StorageError } from '../storage/storage-error.js';
import type { WriteTxn } from '../storage/txn.js';
import type { EngineContext } from './engine-context.js';
import type { OperationOutput } from '../api/operation-types.js';
import { OPERATIONS, type DynamoRequest, type OperationName } from './operations.js';
import { isGroupableOperation, runWriteGroup, runWriteGroupAsync, type GroupOutcome } from './write/write-group.js';

export type CommitQueueOptions = {
  /** How long the first write of a group waits for others, ms. Default 0 (same event-loop turn). */
  readonly windowMs?: number;
  /** A group holds at most this many requests; it runs at once when full. Default 256. */
  readonly maxRequests?: number;
};

export type CommitQueueStats = { groups: number; requests: number; largestGroup: number };

export const DEFAULT_GROUP_COMMIT_WINDOW_MS = 0;
export const DEFAULT_GROUP_COMMIT_MAX_REQUESTS = 256;

/**
 * What a queued write's run leaves: its promise's resolution with the response of that run, called
 * once the write is durable. The queue runs every kind of write in one list; each keeps its own
 * response type inside this closure (made by submit for its operation), so nothing is asserted.
 */
type Deliver = () => void;

/** A queued DynamoDB operation. */
type OperationPending = { readonly operation: OperationName; readonly run: (ctx: EngineContext) => Deliver; readonly fail: (error: unknown) => void };

/** A queued write: a DynamoDB operation, or (operation 'txn') a replication txn function. */
type Pending = OperationPending | { readonly operation: 'txn'; readonly work: (txn: WriteTxn) => Deliver; readonly fail: (error: unknown) => void };

type Outcome = GroupOutcome<Deliver>;

export class CommitQueue {
  private windowMs = DEFAULT_GROUP_COMMIT_WINDOW_MS;
  private maxRequests = DEFAULT_GROUP_COMMIT_MAX_REQUESTS;
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private timerIsImmediate = true;
  private flushing = false;
  private idleWaiters: (() => void)[] = [];
  private readonly counters: CommitQueueStats = { groups: 0, requests: 0, largestGroup: 0 };

  constructor(
    private readonly ctx: EngineContext,
    options: CommitQueueOptions = {},
  ) {
    this.configure(options);
  }

  configure(options: CommitQueueOptions): void {
    if (options.windowMs !== undefined) this.windowMs = Math.max(0, options.windowMs);
    if (options.maxRequests !== undefined) this.maxRequests = Math.max(1, Math.floor(options.maxRequests));
  }

  /** Queues a write; settles with its operation's output, or its error, when durable (see the header). */
  submit<N extends OperationName>(operation: N, request: DynamoRequest): Promise<OperationOutput<N>> {
    return new Promise((resolve, fail) => {
      const run = (ctx: EngineContext): Deliver => {
        const response = OPERATIONS[operation](ctx, request);
        return () => resolve(response);
      };
      this.queue.push({ operation, run, fail });
      if (this.flushing) return; // the group after the flush takes it
      if (this.queue.length >= this.maxRequests) this.runGroup();
      else this.schedule(this.windowMs);
    });
  }

  /**
   * Queues a replication txn (see the header): `work` runs in a write txn when its turn comes and
   * may run more than once (store.writeAsync), so it decides only on what it reads there. Resolves
   * with its result once durable; rejects with its error (nothing written) or a StorageError.
   */
  submitTxn<T>(work: (txn: WriteTxn) => T): Promise<T> {
    return new Promise((resolve, fail) => {
      const run = (txn: WriteTxn): Deliver => {
        const result = work(txn);
        return () => resolve(result);
      };
      this.queue.push({ operation: 'txn', work: run, fail });
      if (this.flushing) return;
      this.schedule(this.windowMs);
    });
  }

  /** Starts the queued writes' group now (unless one is flushing: it follows that one). */
  flush(): void {
    if (!this.flushing) this.runGroup();
  }

  /** Resolves when nothing is queued and no group is committing or flushing. */
  whenIdle(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Runs every queued write now with synchronous, durable commits (the store is about to close). */
  drainSync(): void {
    this.cancelTimer();
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const results = this.execute(batch);
    batch.forEach((p, i) => settle(p, results[i]!));
  }

  stats(): CommitQueueStats {
    return { ...this.counters };
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined) return;
    this.timerIsImmediate = delayMs === 0;
    this.timer = delayMs === 0 ? setImmediate(() => this.runGroup()) : setTimeout(() => this.runGroup(), delayMs);
  }

  private runGroup(): void {
    this.cancelTimer();
    let length = 0;
    while (length < this.queue.length && length < this.maxRequests && isGroupableOperation(this.queue[length]!.operation)) length += 1;
    const batch = this.queue.splice(0, Math.max(1, length));
    if (batch.length === 0) {
      this.wakeIdle();
      return;
    }
    const { store } = this.ctx;
    this.flushing = true;
    let settled: Promise<Outcome[]>;
    const first = batch[0]!;
    if (store.closed) {
      settled = Promise.resolve(batch.map(() => closedResult()));
    } else if (length > 0) {
      this.count(batch);
      settled = runWriteGroupAsync(this.ctx, batch.filter(isOperation));
    } else if (first.operation === 'txn') {
      this.count(batch);
      settled = store.writeAsync(first.work).then((deliver): Outcome[] => [{ ok: true, response: deliver }]);
    } else {
      const results = this.execute(batch);
      settled = (store.closed || !store.hasUnflushedCommits ? Promise.resolve() : store.sync()).then(() => results);
    }
    settled.then(
      (results) => batch.forEach((p, i) => settle(p, results[i]!)),
      (error: unknown) => batch.forEach((p) => p.fail(error)),
    ).finally(() => {
      this.flushing = false;
      if (this.queue.length >= this.maxRequests) this.runGroup();
      else if (this.queue.length > 0) this.schedule(this.windowMs);
      else this.wakeIdle();
    });
  }

  /** Runs a batch in order: each run of item writes as one group, any other write alone. */
  private execute(batch: readonly Pending[]): Outcome[] {
    this.count(batch);
    const results: Outcome[] = [];
    let at = 0;
    while (at < batch.length) {
      let end = at;
      while (end < batch.length && isGroupableOperation(batch[end]!.operation)) end += 1;
      if (end > at) {
        results.push(...runWriteGroup(this.ctx, batch.slice(at, end).filter(isOperation)));
        at = end;
        continue;
      }
      const p = batch[at]!;
      try {
        results.push({ ok: true, response: p.operation === 'txn' ? this.ctx.store.write(p.work) : p.run(this.ctx) });
      } catch (error) {
        results.push({ ok: false, error });
      }
      at += 1;
    }
    return results;
  }

  private count(batch: readonly Pending[]): void {
    this.counters.groups += 1;
    this.counters.requests += batch.length;
    this.counters.largestGroup = Math.max(this.counters.largestGroup, batch.length);
  }

  private cancelTimer(): void {
    const timer = this.timer;
    this.timer = undefined;
    if (timer === undefined) return;
    if (this.timerIsImmediate) clearImmediate(timer as NodeJS.Immediate);
    else clearTimeout(timer as NodeJS.Timeout);
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

function isOperation(p: Pending): p is OperationPending {
  return p.operation !== 'txn';
}

function settle(p: Pending, outcome: Outcome): void {
  if (outcome.ok) outcome.response();
  else p.fail(outcome.error);
}

function closedResult(): Outcome {
  return { ok: false, error: new StorageError('CLOSED', 'the store was closed before this write ran') };
}
