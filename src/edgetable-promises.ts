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
import { OPERATIONS, type DynamoRequest, type OperationName } from './ops/operations.js';
import type { OperationInput, OperationOutput } from './api/operation-types.js';

type ResponseOf<N extends OperationName> = OperationOutput<N>;

/** Operations that never write: answered at once, never queued. */
const READS: ReadonlySet<OperationName> = new Set<OperationName>(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems', 'DescribeTable', 'ListTables', 'DescribeTimeToLive', 'ListTagsOfResource', 'DescribeLimits', 'DescribeEndpoints']);

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
  execute<N extends OperationName>(operation: N, request: OperationInput<N>): Promise<ResponseOf<N>>;
  execute<N extends OperationName>(operation: N, request: DynamoRequest): Promise<ResponseOf<N>>;
  execute<N extends OperationName>(operation: N, request: DynamoRequest): Promise<ResponseOf<N>> {
    if (READS.has(operation)) {
      try {
        return Promise.resolve(OPERATIONS[operation](this.ctx, request) as ResponseOf<N>);
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return this.queue.submit(operation, request).then((result) => {
      if (!result.ok) throw result.error;
      return result.response as ResponseOf<N>;
    });
  }

  createTable(request: OperationInput<'CreateTable'>): Promise<OperationOutput<'CreateTable'>> {
    return this.execute('CreateTable', request);
  }
  describeTable(request: OperationInput<'DescribeTable'>): Promise<OperationOutput<'DescribeTable'>> {
    return this.execute('DescribeTable', request);
  }
  listTables(request: OperationInput<'ListTables'> = {}): Promise<OperationOutput<'ListTables'>> {
    return this.execute('ListTables', request);
  }
  deleteTable(request: OperationInput<'DeleteTable'>): Promise<OperationOutput<'DeleteTable'>> {
    return this.execute('DeleteTable', request);
  }
  updateTable(request: OperationInput<'UpdateTable'>): Promise<OperationOutput<'UpdateTable'>> {
    return this.execute('UpdateTable', request);
  }
  putItem(request: OperationInput<'PutItem'>): Promise<OperationOutput<'PutItem'>> {
    return this.execute('PutItem', request);
  }
  getItem(request: OperationInput<'GetItem'>): Promise<OperationOutput<'GetItem'>> {
    return this.execute('GetItem', request);
  }
  updateItem(request: OperationInput<'UpdateItem'>): Promise<OperationOutput<'UpdateItem'>> {
    return this.execute('UpdateItem', request);
  }
  deleteItem(request: OperationInput<'DeleteItem'>): Promise<OperationOutput<'DeleteItem'>> {
    return this.execute('DeleteItem', request);
  }
  batchGetItem(request: OperationInput<'BatchGetItem'>): Promise<OperationOutput<'BatchGetItem'>> {
    return this.execute('BatchGetItem', request);
  }
  batchWriteItem(request: OperationInput<'BatchWriteItem'>): Promise<OperationOutput<'BatchWriteItem'>> {
    return this.execute('BatchWriteItem', request);
  }
  query(request: OperationInput<'Query'>): Promise<OperationOutput<'Query'>> {
    return this.execute('Query', request);
  }
  scan(request: OperationInput<'Scan'>): Promise<OperationOutput<'Scan'>> {
    return this.execute('Scan', request);
  }
  transactWriteItems(request: OperationInput<'TransactWriteItems'>): Promise<OperationOutput<'TransactWriteItems'>> {
    return this.execute('TransactWriteItems', request);
  }
  transactGetItems(request: OperationInput<'TransactGetItems'>): Promise<OperationOutput<'TransactGetItems'>> {
    return this.execute('TransactGetItems', request);
  }
  updateTimeToLive(request: OperationInput<'UpdateTimeToLive'>): Promise<OperationOutput<'UpdateTimeToLive'>> {
    return this.execute('UpdateTimeToLive', request);
  }
  describeTimeToLive(request: OperationInput<'DescribeTimeToLive'>): Promise<OperationOutput<'DescribeTimeToLive'>> {
    return this.execute('DescribeTimeToLive', request);
  }
  tagResource(request: OperationInput<'TagResource'>): Promise<OperationOutput<'TagResource'>> {
    return this.execute('TagResource', request);
  }
  untagResource(request: OperationInput<'UntagResource'>): Promise<OperationOutput<'UntagResource'>> {
    return this.execute('UntagResource', request);
  }
  listTagsOfResource(request: OperationInput<'ListTagsOfResource'>): Promise<OperationOutput<'ListTagsOfResource'>> {
    return this.execute('ListTagsOfResource', request);
  }
  describeLimits(request: OperationInput<'DescribeLimits'> = {}): Promise<OperationOutput<'DescribeLimits'>> {
    return this.execute('DescribeLimits', request);
  }
  describeEndpoints(request: OperationInput<'DescribeEndpoints'> = {}): Promise<OperationOutput<'DescribeEndpoints'>> {
    return this.execute('DescribeEndpoints', request);
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
