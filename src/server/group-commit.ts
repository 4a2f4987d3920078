/**
 * Server-side group commit: item writes that arrive together share one store write group, so N
 * concurrent writers pay one fsync instead of N (ops/write-group.ts has the per-request
 * semantics). Reads never wait here: only the operations in GROUPABLE_OPERATIONS are queued.
 *
 * When a group runs: a write opens a group and it runs `windowMs` later (0 = on the next
 * setImmediate, i.e. after the requests already read in this event-loop turn), or as soon as it
 * holds `maxRequests`. While a group's commit blocks the event loop, new requests queue in the
 * sockets and form the next group, so groups grow with the load without any timer.
 * Each promise resolves only after its group committed (or failed): a response never reports a
 * write that is not yet durable. Requests run in arrival order.
 */
import { executeWriteGroup, type GroupableOperation, type GroupedRequest, type GroupedResult } from '../ops/write-group.js';
import type { EngineContext } from '../ops/engine-context.js';
import type { DynamoRequest } from '../ops/operations.js';

export type GroupCommitOptions = {
  /** How long the first write of a group waits for others, ms. Default 0 (same event-loop turn). */
  readonly windowMs?: number;
  /** A group runs at once when it holds this many requests. Default 64. */
  readonly maxRequests?: number;
};

export type GroupCommitStats = { groups: number; requests: number; largestGroup: number };

export const DEFAULT_GROUP_COMMIT_WINDOW_MS = 0;
export const DEFAULT_GROUP_COMMIT_MAX_REQUESTS = 64;

type Pending = { readonly request: GroupedRequest; readonly resolve: (result: GroupedResult) => void };

export class GroupCommitter {
  private readonly windowMs: number;
  private readonly maxRequests: number;
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private readonly counters: GroupCommitStats = { groups: 0, requests: 0, largestGroup: 0 };

  constructor(
    private readonly ctx: EngineContext,
    options: GroupCommitOptions = {},
  ) {
    this.windowMs = Math.max(0, options.windowMs ?? DEFAULT_GROUP_COMMIT_WINDOW_MS);
    this.maxRequests = Math.max(1, Math.floor(options.maxRequests ?? DEFAULT_GROUP_COMMIT_MAX_REQUESTS));
  }

  submit(operation: GroupableOperation, request: DynamoRequest): Promise<GroupedResult> {
    return new Promise((resolve) => {
      this.queue.push({ request: { operation, request }, resolve });
      if (this.queue.length >= this.maxRequests) this.flush();
      else this.timer ??= this.windowMs === 0 ? setImmediate(() => this.flush()) : setTimeout(() => this.flush(), this.windowMs);
    });
  }

  /** Runs the queued requests now as one group. */
  flush(): void {
    this.cancelTimer();
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let results: GroupedResult[];
    try {
      results = executeWriteGroup(this.ctx, batch.map((p) => p.request));
    } catch (error) {
      results = batch.map(() => ({ ok: false, error }));
    }
    this.counters.groups += 1;
    this.counters.requests += batch.length;
    this.counters.largestGroup = Math.max(this.counters.largestGroup, batch.length);
    batch.forEach((p, i) => p.resolve(results[i] ?? { ok: false, error: new Error('internal: no result for a grouped write') }));
  }

  stats(): GroupCommitStats {
    return { ...this.counters };
  }

  private cancelTimer(): void {
    const timer = this.timer;
    this.timer = undefined;
    if (timer === undefined) return;
    if (this.windowMs === 0) clearImmediate(timer as NodeJS.Immediate);
    else clearTimeout(timer as NodeJS.Timeout);
  }
}
