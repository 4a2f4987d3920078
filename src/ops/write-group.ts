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
 *   is written and every request's result is that error.
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
  try {
    return ctx.store.writeGroup(() => requests.map((r) => runOne(ctx, r, true)));
  } catch (error) {
    if (error instanceof StorageError && error.code === 'BUSY' && !ctx.store.closed) {
      return requests.map((r) => runOne(ctx, r, false));
    }
    return requests.map(() => ({ ok: false, error }));
  }
}

export async function executeWriteGroupAsync(ctx: EngineContext, requests: readonly GroupedRequest[]): Promise<GroupedResult[]> {
  for (const r of requests) {
    if (!isGroupableOperation(r.operation)) throw new RangeError(`${String(r.operation)} cannot run in a write group: only item writes can`);
  }
  if (requests.length === 0) return [];
  try {
    return await ctx.store.writeAsync(() => requests.map((r) => runOne(ctx, r, true)));
  } catch (error) {
    if (!(error instanceof StorageError && error.code === 'BUSY') || ctx.store.closed) return requests.map(() => ({ ok: false, error }));
  }
  const results: GroupedResult[] = [];
  for (const r of requests) results.push(await runAloneAsync(ctx, r));
  return results;
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
