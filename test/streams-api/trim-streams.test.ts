/**
 * Stream retention beside sync: records older than the retention are trimmed, except what sync
 * still needs (not yet acknowledged by the hub, or younger than sync's own retentionMs), and a
 * sync acknowledgement leaves a streamed table's records to stream retention.
 */
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { acknowledgeShard } from '../../src/stream/acknowledge-shard.js';
import { writeSyncSettings } from '../../src/stream/shard-state.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const HOUR = 60 * 60 * 1000;

function setup(stream: boolean, retentionMs = 0): { db: Edgetable; clock: { ms: number } } {
  const clock = { ms: Date.UTC(2026, 0, 1) };
  const db = temp.open({ now: () => clock.ms, durability: 'relaxed', streamTrimIntervalMs: 0, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
  db.createTable({
    TableName: 'Tab',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } } : {}),
  });
  const table = db.context.catalog.require('Tab');
  db.store.write((txn) => writeSyncSettings(txn, table.meta, { outboxBudgetBytes: 0, whenFull: 'reject', retentionMs }));
  for (let i = 1; i <= 4; i++) db.putItem({ TableName: 'Tab', Item: { pk: { S: `k${i}` } } });
  return { db, clock };
}

const sequences = (db: Edgetable) => db.readShard('Tab', db.listShards('Tab')[0]!.ShardId).Records.map((r) => Number(r.dynamodb.SequenceNumber));

describe('stream retention on a synced table', () => {
  it('keeps records the hub has not acknowledged, however old', () => {
    const { db, clock } = setup(true);
    const table = db.context.catalog.require('Tab');
    const shard = db.listShards('Tab')[0]!.ShardId;
    expect(acknowledgeShard(db.store, table, shard, 2, 0, clock.ms).records).toBe(2);
    expect(sequences(db)).toEqual([1, 2, 3, 4]); // acknowledged, but the stream still serves them
    clock.ms += 25 * HOUR;
    expect(db.trimStreams()).toBe(2);
    expect(sequences(db)).toEqual([3, 4]);
  });

  it("keeps acknowledged records for sync's own retention when it is longer", () => {
    const { db, clock } = setup(true, 48 * HOUR);
    const table = db.context.catalog.require('Tab');
    acknowledgeShard(db.store, table, db.listShards('Tab')[0]!.ShardId, 4, 48 * HOUR, clock.ms);
    clock.ms += 25 * HOUR;
    expect(db.trimStreams()).toBe(0);
    clock.ms += 24 * HOUR;
    expect(db.trimStreams()).toBe(4);
    expect(sequences(db)).toEqual([]);
  });

  it('leaves tables that never had a stream to sync pruning', () => {
    const { db, clock } = setup(false);
    clock.ms += 25 * HOUR;
    expect(db.trimStreams()).toBe(0);
    acknowledgeShard(db.store, db.context.catalog.require('Tab'), db.listShards('Tab')[0]!.ShardId, 3, 0, clock.ms);
    expect(sequences(db)).toEqual([4]);
  });
});

describe('a stream on a synced table', () => {
  it('shows only the changes made while the stream was enabled', async () => {
    const { db, clock } = setup(false); // synced, no stream: k1..k4 are logged for sync only
    const streams = new DynamoDBStreamsClient({ region: 'us-east-1', endpoint: 'http://edgetable.local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, requestHandler: db.requestHandler(), maxAttempts: 1 });
    clock.ms += 1000;
    const arn = (db.updateTable({ TableName: 'Tab', StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }).TableDescription as { LatestStreamArn: string }).LatestStreamArn;
    clock.ms += 1000;
    db.putItem({ TableName: 'Tab', Item: { pk: { S: 'during' } } });
    clock.ms += 1000;
    db.updateTable({ TableName: 'Tab', StreamSpecification: { StreamEnabled: false } });
    clock.ms += 1000;
    db.putItem({ TableName: 'Tab', Item: { pk: { S: 'after' } } }); // still logged for sync
    const shardId = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards![0]!.ShardId!;
    const iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator!;
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
    expect(page.Records!.map((r) => r.dynamodb!.Keys!.pk!.S)).toEqual(['during']);
    expect(page.NextShardIterator).toBeUndefined();
    expect(sequences(db)).toEqual([1, 2, 3, 4, 5, 6]); // the change log itself holds every change
    streams.destroy();
  });
});
