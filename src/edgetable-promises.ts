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
import { OPERATIONS, type DynamoRequest, type OperationName } from './ops/operations.js';

type ResponseOf<N extends OperationName> = ReturnType<(typeof OPERATIONS)[N]>;

/** Operations that never write: answered at once, never queued. */
const READS: ReadonlySet<OperationName> = new Set<OperationName>(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems', 'DescribeTable', 'ListTables', 'DescribeTimeToLive']);

export class EdgetablePromises {
  private readonly queue: CommitQueue;

  constructor(private readonly ctx: EngineContext) {
    this.queue = new CommitQueue(ctx);
  }

  /** Runs an operation by its DynamoDB name; a write resolves when durable. */
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

  createTable(request: DynamoRequest) {
    return this.execute('CreateTable', request);
  }
  describeTable(request: DynamoRequest) {
    return this.execute('DescribeTable', request);
  }
  listTables(request: DynamoRequest = {}) {
    return this.execute('ListTables', request);
  }
  deleteTable(request: DynamoRequest) {
    return this.execute('DeleteTable', request);
  }
  updateTable(request: DynamoRequest) {
    return this.execute('UpdateTable', request);
  }
  putItem(request: DynamoRequest) {
    return this.execute('PutItem', request);
  }
  getItem(request: DynamoRequest) {
    return this.execute('GetItem', request);
  }
  updateItem(request: DynamoRequest) {
    return this.execute('UpdateItem', request);
  }
  deleteItem(request: DynamoRequest) {
    return this.execute('DeleteItem', request);
  }
  batchGetItem(request: DynamoRequest) {
    return this.execute('BatchGetItem', request);
  }
  batchWriteItem(request: DynamoRequest) {
    return this.execute('BatchWriteItem', request);
  }
  query(request: DynamoRequest) {
    return this.execute('Query', request);
  }
  scan(request: DynamoRequest) {
    return this.execute('Scan', request);
  }
  transactWriteItems(request: DynamoRequest) {
    return this.execute('TransactWriteItems', request);
  }
  transactGetItems(request: DynamoRequest) {
    return this.execute('TransactGetItems', request);
  }
  updateTimeToLive(request: DynamoRequest) {
    return this.execute('UpdateTimeToLive', request);
  }
  describeTimeToLive(request: DynamoRequest) {
    return this.execute('DescribeTimeToLive', request);
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

  /** For Edgetable.close(): queued writes commit now, synchronously and durably. */
  drainSync(): void {
    this.queue.drainSync();
  }
}
