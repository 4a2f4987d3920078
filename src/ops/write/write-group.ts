/**
 * Group commit for item writes: several requests run one after another inside ONE store write
 * group (storage/store.ts writeGroup), so they share one LMDB txn and one fsync. Each request
 * keeps its own semantics: it sees the writes of the requests before it in the list (exactly as
 * if they had committed first), checks its own condition, and gets its own response or error.
 *
 * Contract of executeWriteGroup:
 * - Only item writes may be grouped (GROUPABLE_OPERATIONS); another name throws a RangeError
 *   before anything runs.
 * - A logical error of one request (ConditionalCheckFailed, Validation, TransactionCanceled...)
 *   is that request's result; the others still commit. The operations write nothing before they
 *   have validated and planned everything, and the store aborts the group if one ever does.
 * - A storage failure (IO, commit failure, MAP_FULL at the cap) aborts the group: nothing of it
 *   is written, and every request that would have written gets that error; a request whose own
 *   result was already a failure (ConditionalCheckFailed, Validation...) keeps it, as it would
 *   have had it alone.
 * - When the store aborted the group because a request failed after writing (StorageError BUSY,
 *   see store.ts), each request is re-run on its own, with its own commit, so none is lost.
 * - Results are only returned after the group's commit: a response never reports a write that
 *   is not yet durable.
 *
 * runWriteGroup and runWriteGroupAsync are the same for any GroupMember: a write given as a function
 * that runs it and returns what its caller keeps (db.promises' queue keeps a typed delivery of its
 * response, ops/commit-queue.ts); executeWriteGroup runs requests by their operation's name.
 *
 * executeWriteGroupAsync is the same contract through store.writeAsync (storage/store.ts,
 * "Asynchronous commits"): the group's txn is recorded on this thread and committed, flushes
 * included, off it; the promise settles once the group is durable. Its BUSY fallback runs each
 * request alone, one writeAsync after another.
 */
import { StorageError } from '../../storage/storage-error.js';
import type { EngineContext } from '../engine-context.js';
import { OPERATIONS, type DynamoRequest, type DynamoResponse, type OperationName } from '../operations.js';

export const GROUPABLE_OPERATIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'] as const;

export type GroupableOperation = (typeof GROUPABLE_OPERATIONS)[number];

export type GroupedRequest = { readonly operation: GroupableOperation; readonly request: DynamoRequest };

export type GroupedResult = GroupOutcome<DynamoResponse>;

/** One write of a group: `run` performs it in the group's txn (maybe more than once: a re-run). */
export type GroupMember<R> = { readonly operation: OperationName; readonly run: (ctx: EngineContext) => R };

/** A member's result: what its `run` returned in the committed txn, or its error. */
export type GroupOutcome<R> = { readonly ok: true; readonly response: R } | { readonly ok: false; readonly error: unknown };

const GROUPABLE: ReadonlySet<string> = new Set(GROUPABLE_OPERATIONS);

export function isGroupableOperation(name: string): name is GroupableOperation {
  return GROUPABLE.has(name);
}

export function executeWriteGroup(ctx: EngineContext, requests: readonly GroupedRequest[]): GroupedResult[] {
  return runWriteGroup(ctx, requests.map(byName));
}

export function executeWriteGroupAsync(ctx: EngineContext, requests: readonly GroupedRequest[]): Promise<GroupedResult[]> {
  return runWriteGroupAsync(ctx, requests.map(byName));
}

function byName(r: GroupedRequest): GroupMember<DynamoResponse> {
  return { operation: r.operation, run: (ctx) => OPERATIONS[r.operation](ctx, r.request) as DynamoResponse };
}

export function runWriteGroup<R>(ctx: EngineContext, members: readonly GroupMember<R>[]): GroupOutcome<R>[] {
  checkGroupable(members);
  if (members.length === 0) return [];
  const run = new GroupRun(ctx, members);
  try {
    return ctx.store.writeGroup(() => run.all());
  } catch (error) {
    if (error instanceof StorageError && error.code === 'BUSY' && !ctx.store.closed) {
      return members.map((m) => runOne(ctx, m, false));
    }
    return run.failed(error);
  }
}

export async function runWriteGroupAsync<R>(ctx: EngineContext, members: readonly GroupMember<R>[]): Promise<GroupOutcome<R>[]> {
  checkGroupable(members);
  if (members.length === 0) return [];
  const run = new GroupRun(ctx, members);
  try {
    return await ctx.store.writeAsync(() => run.all());
  } catch (error) {
    if (!(error instanceof StorageError && error.code === 'BUSY') || ctx.store.closed) return run.failed(error);
  }
  const results: GroupOutcome<R>[] = [];
  for (const m of members) results.push(await runAloneAsync(ctx, m));
  return results;
}

function checkGroupable(members: readonly GroupMember<unknown>[]): void {
  for (const m of members) {
    if (!isGroupableOperation(m.operation)) throw new RangeError(`${String(m.operation)} cannot run in a write group: only item writes can`);
  }
}

/** The requests of a group, run in its txn (maybe more than once: a re-run after map growth or a conflict), and the results of the last run. */
class GroupRun<R> {
  private results: GroupOutcome<R>[] = [];

  constructor(
    private readonly ctx: EngineContext,
    private readonly members: readonly GroupMember<R>[],
  ) {}

  all(): GroupOutcome<R>[] {
    this.results = [];
    for (const m of this.members) this.results.push(runOne(this.ctx, m, true));
    return this.results;
  }

  /** The group failed with `error`: the results of requests that had failed on their own stay; every other is `error`. */
  failed(error: unknown): GroupOutcome<R>[] {
    return this.members.map((_, i) => {
      const own = this.results[i];
      return own !== undefined && !own.ok ? own : { ok: false, error };
    });
  }
}

/** One request in its own asynchronous commit; if it failed after writing, its own error (nothing was written). */
async function runAloneAsync<R>(ctx: EngineContext, m: GroupMember<R>): Promise<GroupOutcome<R>> {
  try {
    return await ctx.store.writeAsync(() => runOne(ctx, m, false));
  } catch (error) {
    const own = error instanceof StorageError && error.code === 'BUSY' && error.cause !== undefined ? error.cause : error;
    return { ok: false, error: own };
  }
}

/** In a group a StorageError escapes so the store aborts the whole group (see the header). */
function runOne<R>(ctx: EngineContext, m: GroupMember<R>, grouped: boolean): GroupOutcome<R> {
  try {
    return { ok: true, response: m.run(ctx) };
  } catch (error) {
    if (grouped && error instanceof StorageError) throw error;
    return { ok: false, error };
  }
}
