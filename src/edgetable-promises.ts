/**
 * `db.promises`: every operation of the embedded API as a promise, as node:fs/promises sits
 * beside node:fs. A thin layer: reads run the same synchronous operation at once (they see every
 * committed write, including one whose flush is still running); writes go through the one
 * CommitQueue (ops/commit-queue.ts), which groups them and flushes off the event loop. A write's
 * promise resolves only when it is durable, and rejects with the same error the synchronous
 * method would throw.
 */
import { CommitQueue, type CommitQueueOptions, type CommitQueueStats } from './ops/commit-queue.js';
import type { EngineContext } from './ops/engine-context.js';
import type { WriteTxn } from './storage/txn.js';
import { OPERATIONS, OPERATION_TABLE, defineOperationMethods, type DynamoRequest, type OperationName } from './ops/operations.js';
import type { OperationInput, OperationOutput, PromiseOperationMethods } from './api/operation-types.js';

/**
 * One camelCase method per DynamoDB operation returning a promise (`db.promises.putItem(request)`),
 * typed by api/ PromiseOperationMethods and defined below from the operation table.
 */
export interface EdgetablePromises extends PromiseOperationMethods {}

export class EdgetablePromises {
  private readonly queue: CommitQueue;

  /** `closeStore`: db.close(), then the store's released() (Edgetable supplies both). */
  constructor(
    private readonly ctx: EngineContext,
    private readonly closeStore: () => Promise<void>,
  ) {
    this.queue = new CommitQueue(ctx);
  }

  /**
   * Closes the store as db.close() does (queued writes commit first, durably) and resolves once
   * nothing of this process holds the folder any more: flushes still on the thread pool have
   * returned and every descriptor of it is closed, so the card can be unmounted. db.close()
   * returns before those flushes do.
   */
  close(): Promise<void> {
    return this.closeStore();
  }

  /**
   * Runs an operation by its DynamoDB name; a write resolves when durable. A literal name types the
   * request and response (api/); a request built at run time may be any object, validated as always.
   */
  execute<N extends OperationName>(operation: N, request: OperationInput<N>): Promise<OperationOutput<N>>;
  execute<N extends OperationName>(operation: N, request: DynamoRequest): Promise<OperationOutput<N>>;
  execute<N extends OperationName>(operation: N, request: DynamoRequest): Promise<OperationOutput<N>> {
    // Reads never write: answered at once, never queued.
    if (OPERATION_TABLE[operation].kind === 'read') {
      try {
        return Promise.resolve(OPERATIONS[operation](this.ctx, request));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return this.queue.submit(operation, request);
  }

  /** Tunes grouping (the HTTP server passes its `groupCommit` options here). */
  configure(options: CommitQueueOptions): void {
    this.queue.configure(options);
  }

  /** Starts the queued writes' group now instead of after its window. */
  flush(): void {
    this.queue.flush();
  }

  /** Resolves when every write submitted so far has settled. */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** Groups, requests and the largest group so far. */
  stats(): CommitQueueStats {
    return this.queue.stats();
  }

  /**
   * A replication write (replication/replica.ts) on the same queue as every write here; resolves
   * with its result once durable (ops/commit-queue.ts submitTxn).
   * @internal
   */
  commitTxn<T>(work: (txn: WriteTxn) => T): Promise<T> {
    return this.queue.submitTxn(work);
  }

  /** For Edgetable.close(): queued writes commit now, synchronously and durably. */
  drainSync(): void {
    this.queue.drainSync();
  }
}

defineOperationMethods(EdgetablePromises.prototype, (name) => (api, request) => api.execute(name, request as DynamoRequest));
