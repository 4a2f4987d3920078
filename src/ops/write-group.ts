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
 * executeWriteGroupAsync is the same contract through store.writeAsync (storage/store.ts,
 * "Asynchronous commits"): the group's txn is recorded on this thread and committed, flushes
 * included, off it; the promise settles once the group is durable. Its BUSY fallback runs each
 * request alone, one writeAsync after another.
 */
import { StorageError } from '../storage/storage-error.js';
import type { EngineContext } from './engine-context.js';
import { OPERATIONS, type DynamoRequest, type DynamoResponse } from './operations.js';

export const GROUPABLE_OPERATIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'] as const;

export type GroupableOperation = (typeof GROUPABLE_OPERATIONS)[number];

export type GroupedRequest = { readonly operation: GroupableOperation; readonly request: DynamoRequest };

export type GroupedResult = { readonly ok: true; readonly response: DynamoResponse } | { readonly ok: false; readonly error: unknown };

const GROUPABLE: ReadonlySet<string> = new Set(GROUPABLE_OPERATIONS);

export function isGroupableOperation(name: string): name is GroupableOperation {
  return GROUPABLE.has(name);
}

export function executeWriteGroup(ctx: EngineContext, requests: readonly GroupedRequest[]): GroupedResult[] {
  for (const r of requests) {
    if (!isGroupableOperation(r.operation)) throw new RangeError(`${String(r.operation)} cannot run in a write group: only item writes can`);
  }
  if (requests.length === 0) return [];
  const run = new GroupRun(ctx, requests);
  try {
    return ctx.store.writeGroup(() => run.all());
  } catch (error) {
    if (error instanceof StorageError && error.code === 'BUSY' && !ctx.store.closed) {
      return requests.map((r) => runOne(ctx, r, false));
    }
    return run.failed(error);
  }
}

export async function executeWriteGroupAsync(ctx: EngineContext, requests: readonly GroupedRequest[]): Promise<GroupedResult[]> {
  for (const r of requests) {
    if (!isGroupableOperation(r.operation)) throw new RangeError(`${String(r.operation)} cannot run in a write group: only item writes can`);
  }
  if (requests.length === 0) return [];
  const run = new GroupRun(ctx, requests);
  try {
    return await ctx.store.writeAsync(() => run.all());
  } catch (error) {
    if (!(error instanceof StorageError && error.code === 'BUSY') || ctx.store.closed) return run.failed(error);
  }
  const results: GroupedResult[] = [];
  for (const r of requests) results.push(await runAloneAsync(ctx, r));
  return results;
}

/** The requests of a group, run in its txn (maybe more than once: a re-run after map growth or a conflict), and the results of the last run. */
class GroupRun {
  private results: GroupedResult[] = [];

  constructor(
    private readonly ctx: EngineContext,
    private readonly requests: readonly GroupedRequest[],
  ) {}

  all(): GroupedResult[] {
    this.results = [];
    for (const r of this.requests) this.results.push(runOne(this.ctx, r, true));
    return this.results;
  }

  /** The group failed with `error`: the results of requests that had failed on their own stay; every other is `error`. */
  failed(error: unknown): GroupedResult[] {
    return this.requests.map((_, i) => {
      const own = this.results[i];
      return own !== undefined && !own.ok ? own : { ok: false, error };
    });
  }
}

/** One request in its own asynchronous commit; if it failed after writing, its own error (nothing was written). */
async function runAloneAsync(ctx: EngineContext, r: GroupedRequest): Promise<GroupedResult> {
  try {
    return await ctx.store.writeAsync(() => runOne(ctx, r, false));
  } catch (error) {
    const own = error instanceof StorageError && error.code === 'BUSY' && error.cause !== undefined ? error.cause : error;
    return { ok: false, error: own };
  }
}

/** In a group a StorageError escapes so the store aborts the whole group (see the header). */
function runOne(ctx: EngineContext, r: GroupedRequest, grouped: boolean): GroupedResult {
  try {
    return { ok: true, response: OPERATIONS[r.operation](ctx, r.request) as DynamoResponse };
  } catch (error) {
    if (grouped && error instanceof StorageError) throw error;
    return { ok: false, error };
  }
}
