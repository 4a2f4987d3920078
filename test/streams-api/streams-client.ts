/**
 * Test helpers: the real @aws-sdk/client-dynamodb and @aws-sdk/client-dynamodb-streams against
 * one engine, over HTTP (the server on a loopback port) or in-process (createRequestHandler), and
 * a stream reader that uses only the Streams SDK the way a Kinesis-adapter-style consumer does.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Edgetable, OpenOptions } from '../../src/edgetable.js';
import { createRequestHandler } from '../../src/server/sdk-request-handler.js';
import { startServer } from '../../src/server/start-server.js';
import type { TempDbs } from '../ops/temp-db.js';

const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

export type Clients = { db: Edgetable; dynamo: DynamoDBClient; streams: DynamoDBStreamsClient; close(): Promise<void> };
export type TransportName = 'http' | 'in-process';

export async function openClients(temp: TempDbs, transport: TransportName, options: Partial<OpenOptions> = {}): Promise<Clients> {
  const db = temp.open({ durability: 'relaxed', ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0, streamTrimIntervalMs: 0, ...options });
  if (transport === 'http') {
    const server = await startServer({ db, port: 0 });
    const endpoint = `http://127.0.0.1:${server.port}`;
    const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint, maxAttempts: 1 });
    const streams = new DynamoDBStreamsClient({ region: 'us-east-1', credentials, endpoint, maxAttempts: 1 });
    return { db, dynamo, streams, close: async () => { dynamo.destroy(); streams.destroy(); await server.close(); } };
  }
  const requestHandler = createRequestHandler(db);
  const endpoint = 'http://edgetable.local';
  const dynamo = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint, requestHandler, maxAttempts: 1 });
  const streams = new DynamoDBStreamsClient({ region: 'us-east-1', credentials, endpoint, requestHandler, maxAttempts: 1 });
  return { db, dynamo, streams, close: async () => { dynamo.destroy(); streams.destroy(); } };
}

export async function describeAllShards(streams: DynamoDBStreamsClient, arn: string, limit?: number): Promise<Shard[]> {
  const shards: Shard[] = [];
  let start: string | undefined;
  do {
    const page = await streams.send(new DescribeStreamCommand({ StreamArn: arn, ...(limit ? { Limit: limit } : {}), ...(start ? { ExclusiveStartShardId: start } : {}) }));
    shards.push(...(page.StreamDescription?.Shards ?? []));
    start = page.StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return shards;
}

/**
 * Reads a stream as a DynamoDB Streams consumer does: each shard from TRIM_HORIZON, a child only
 * after its parent was read to its end (no NextShardIterator), iterators kept between polls.
 */
export class SdkStreamReader {
  /** Shard id -> the iterator to continue with; null once the shard is read to its end. */
  private readonly positions = new Map<string, string | null>();
  readonly order: string[] = [];

  constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly arn: string,
    private readonly pageLimit = 7,
  ) {}

  /** Every record not read before, in the order read. */
  async poll(): Promise<_Record[]> {
    const shards = await describeAllShards(this.streams, this.arn, 2);
    const known = new Set(shards.map((s) => s.ShardId!));
    const out: _Record[] = [];
    for (let progress = true; progress; ) {
      progress = false;
      // Newest shards first: only ParentShardId keeps a child from being read before its parent.
      for (const shard of [...shards].reverse()) {
        const id = shard.ShardId!;
        if (this.positions.get(id) === null) continue;
        const parent = shard.ParentShardId;
        if (parent !== undefined && known.has(parent) && this.positions.get(parent) !== null) continue;
        let iterator: string =
          this.positions.get(id) ?? (await this.streams.send(new GetShardIteratorCommand({ StreamArn: this.arn, ShardId: id, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator!;
        for (;;) {
          const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: this.pageLimit }));
          out.push(...(page.Records ?? []));
          if (!page.NextShardIterator) {
            this.positions.set(id, null);
            this.order.push(id);
            progress = true;
            break;
          }
          iterator = page.NextShardIterator;
          if ((page.Records ?? []).length === 0) break;
        }
        if (this.positions.get(id) !== null) this.positions.set(id, iterator);
      }
    }
    return out;
  }
}
