/**
 * The DynamoDB Streams API through the real @aws-sdk/client-dynamodb-streams, over HTTP and
 * in-process: StreamSpecification on CreateTable/UpdateTable, DescribeTable's stream fields,
 * ListStreams, DescribeStream, GetShardIterator, GetRecords (DynamoDB's record format per view
 * type), partition splits, TTL deletions, iterator expiry, trimming and retention.
 */
import { CreateTableCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand, UpdateItemCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
  type DynamoDBStreamsClient,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDbs } from '../ops/temp-db.js';
import { describeAllShards, openClients, SdkStreamReader, type Clients } from './streams-client.js';

const temp = useTempDbs();
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 0);

const keys = {
  KeySchema: [
    { AttributeName: 'pk', KeyType: 'HASH' as const },
    { AttributeName: 'sk', KeyType: 'RANGE' as const },
  ],
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' as const },
    { AttributeName: 'sk', AttributeType: 'N' as const },
  ],
};
type ViewType = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';

const item = (pk: string, sk: number, v: string) => ({ pk: { S: pk }, sk: { N: String(sk) }, v: { S: v } });

async function streamTable(c: Clients, name: string, view: ViewType | undefined, extra: Record<string, unknown> = {}): Promise<string | undefined> {
  await c.dynamo.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      ...keys,
      ...(view ? { StreamSpecification: { StreamEnabled: true, StreamViewType: view } } : {}),
      ...extra,
    }),
  );
  return (await c.dynamo.send(new DescribeTableCommand({ TableName: name }))).Table!.LatestStreamArn;
}

async function iterator(streams: DynamoDBStreamsClient, arn: string, type: ShardIteratorType, shardId?: string, sequence?: string): Promise<string> {
  const id = shardId ?? (await describeAllShards(streams, arn))[0]!.ShardId!;
  const r = await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: id, ShardIteratorType: type, ...(sequence ? { SequenceNumber: sequence } : {}) }));
  return r.ShardIterator!;
}

let open: Clients[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

describe.each(['http', 'in-process'] as const)('DynamoDB Streams over %s', (transport) => {
  const clock = { ms: T0 };
  const connect = async (options = {}) => {
    clock.ms = T0;
    const c = await openClients(temp, transport, { now: () => clock.ms, ...options });
    open.push(c);
    return c;
  };

  it('enables a stream on CreateTable: DescribeTable, ListStreams and DescribeStream describe it', async () => {
    const c = await connect();
    const arn = await streamTable(c, 'Orders', 'NEW_AND_OLD_IMAGES');
    c.db.splitPartition('Orders', c.db.context.catalog.require('Orders').def.partitions[0]!.id);
    const table = (await c.dynamo.send(new DescribeTableCommand({ TableName: 'Orders' }))).Table!;
    expect(table.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(table.LatestStreamLabel).toBe('2026-01-01T12:00:00.000');
    expect(arn).toBe(`${table.TableArn}/stream/2026-01-01T12:00:00.000`);
    await streamTable(c, 'Plain', undefined);

    const listed = await c.streams.send(new ListStreamsCommand({}));
    expect(listed.Streams).toEqual([{ StreamArn: arn, TableName: 'Orders', StreamLabel: '2026-01-01T12:00:00.000' }]);
    expect((await c.streams.send(new ListStreamsCommand({ TableName: 'Plain' }))).Streams).toEqual([]);

    const d = (await c.streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!;
    expect(d).toMatchObject({ StreamArn: arn, StreamLabel: '2026-01-01T12:00:00.000', StreamStatus: 'ENABLED', StreamViewType: 'NEW_AND_OLD_IMAGES', TableName: 'Orders', KeySchema: keys.KeySchema });
    expect(d.CreationRequestDateTime).toEqual(new Date(T0));
    expect(d.Shards).toHaveLength(3); // the first partition split before anything was written
    for (const s of d.Shards!) {
      expect(s.ShardId).toMatch(/^shardId-\d{20}-[0-9a-f]{8}$/);
      expect(s.SequenceNumberRange).toEqual({ StartingSequenceNumber: '000000000000000000001' });
    }
    expect(d.Shards!.map((s) => s.ParentShardId)).toEqual([undefined, d.Shards![0]!.ShardId, d.Shards![0]!.ShardId]);
    const paged = await describeAllShards(c.streams, arn!, 1);
    expect(paged).toEqual(d.Shards);
  });

  it('GetRecords returns INSERT, MODIFY and REMOVE in DynamoDB Streams record format', async () => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', 'NEW_AND_OLD_IMAGES'))!;
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('a', 1, 'one') }));
    clock.ms += 2500;
    await c.dynamo.send(new UpdateItemCommand({ TableName: 'Orders', Key: { pk: { S: 'a' }, sk: { N: '1' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'two' } } }));
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('a', 1, 'two') })); // identical: no record
    await c.dynamo.send(new DeleteItemCommand({ TableName: 'Orders', Key: { pk: { S: 'a' }, sk: { N: '1' } } }));
    await c.dynamo.send(new DeleteItemCommand({ TableName: 'Orders', Key: { pk: { S: 'a' }, sk: { N: '1' } } })); // absent: no record

    const first = await c.streams.send(new GetRecordsCommand({ ShardIterator: await iterator(c.streams, arn, 'TRIM_HORIZON'), Limit: 2 }));
    expect(first.Records).toHaveLength(2);
    const rest = await c.streams.send(new GetRecordsCommand({ ShardIterator: first.NextShardIterator! }));
    const records = [...first.Records!, ...rest.Records!];
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    const [insert, modify, remove] = records;
    expect(insert).toMatchObject({ eventVersion: '1.1', eventSource: 'aws:dynamodb', awsRegion: 'ddblocal' });
    expect(insert!.userIdentity).toBeUndefined();
    expect(insert!.dynamodb).toEqual({
      ApproximateCreationDateTime: new Date(T0),
      Keys: { pk: { S: 'a' }, sk: { N: '1' } },
      NewImage: item('a', 1, 'one'),
      SequenceNumber: '000000000000000000001',
      SizeBytes: 7 + 11, // keys (pk 2+1, sk 2+2) + NewImage (keys + v 1+3), by DynamoDB's item-size rules
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
    expect(modify!.dynamodb).toMatchObject({ ApproximateCreationDateTime: new Date(T0 + 2000), NewImage: item('a', 1, 'two'), OldImage: item('a', 1, 'one'), SequenceNumber: '000000000000000000002' });
    expect(remove!.dynamodb!.NewImage).toBeUndefined();
    expect(remove!.dynamodb!.OldImage).toEqual(item('a', 1, 'two'));
    expect(new Set(records.map((r) => r.eventID)).size).toBe(3);
    expect(rest.NextShardIterator).toBeDefined(); // the shard is open: more may come
    const empty = await c.streams.send(new GetRecordsCommand({ ShardIterator: rest.NextShardIterator! }));
    expect(empty.Records).toEqual([]);
  });

  it.each([
    ['KEYS_ONLY', false, false],
    ['NEW_IMAGE', true, false],
    ['OLD_IMAGE', false, true],
  ] as const)('view type %s shows NewImage %s and OldImage %s', async (view, hasNew, hasOld) => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', view))!;
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('a', 1, 'one') }));
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('a', 1, 'two') }));
    const { Records } = await c.streams.send(new GetRecordsCommand({ ShardIterator: await iterator(c.streams, arn, 'TRIM_HORIZON') }));
    const modify = Records![1]!.dynamodb!;
    expect(modify.StreamViewType).toBe(view);
    expect(modify.Keys).toEqual({ pk: { S: 'a' }, sk: { N: '1' } });
    expect(modify.NewImage).toEqual(hasNew ? item('a', 1, 'two') : undefined);
    expect(modify.OldImage).toEqual(hasOld ? item('a', 1, 'one') : undefined);
    expect(modify.SizeBytes).toBe(7 + (hasNew ? 11 : 0) + (hasOld ? 11 : 0));
  });

  it('positions iterators at TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER and AFTER_SEQUENCE_NUMBER', async () => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', 'KEYS_ONLY'))!;
    for (let i = 1; i <= 3; i++) await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('a', i, 'x') }));
    const latest = await iterator(c.streams, arn, 'LATEST');
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('a', 4, 'x') }));
    const seqs = async (it: string) => (await c.streams.send(new GetRecordsCommand({ ShardIterator: it }))).Records!.map((r) => Number(r.dynamodb!.SequenceNumber));
    expect(await seqs(await iterator(c.streams, arn, 'TRIM_HORIZON'))).toEqual([1, 2, 3, 4]);
    expect(await seqs(latest)).toEqual([4]);
    expect(await seqs(await iterator(c.streams, arn, 'AT_SEQUENCE_NUMBER', undefined, '000000000000000000002'))).toEqual([2, 3, 4]);
    expect(await seqs(await iterator(c.streams, arn, 'AFTER_SEQUENCE_NUMBER', undefined, '000000000000000000002'))).toEqual([3, 4]);
    await expect(iterator(c.streams, arn, 'AT_SEQUENCE_NUMBER', undefined, '000000000000000000009')).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(iterator(c.streams, arn, 'AT_SEQUENCE_NUMBER')).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('UpdateTable enables and disables streams with DynamoDB errors; records exist only while enabled', async () => {
    const c = await connect();
    await streamTable(c, 'Orders', undefined);
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('before', 1, 'x') }));
    clock.ms += 1000;
    const enabled = await c.dynamo.send(new UpdateTableCommand({ TableName: 'Orders', StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }));
    const arn = enabled.TableDescription!.LatestStreamArn!;
    expect(arn).toMatch(/\/stream\/2026-01-01T12:00:01\.000$/);
    await expect(c.dynamo.send(new UpdateTableCommand({ TableName: 'Orders', StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Table already has an enabled stream: TableName: Orders',
    });
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('during', 1, 'x') }));
    const reader = await iterator(c.streams, arn, 'TRIM_HORIZON');
    clock.ms += 1000;
    await c.dynamo.send(new UpdateTableCommand({ TableName: 'Orders', StreamSpecification: { StreamEnabled: false } }));
    await expect(c.dynamo.send(new UpdateTableCommand({ TableName: 'Orders', StreamSpecification: { StreamEnabled: false } }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Table already has stream disabled: TableName: Orders',
    });
    clock.ms += 1000;
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('after', 1, 'x') }));

    const table = (await c.dynamo.send(new DescribeTableCommand({ TableName: 'Orders' }))).Table!;
    expect(table.StreamSpecification).toBeUndefined();
    expect(table.LatestStreamArn).toBe(arn);
    const d = (await c.streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!;
    expect(d.StreamStatus).toBe('DISABLED');
    expect(d.Shards![0]!.SequenceNumberRange!.EndingSequenceNumber).toBe('000000000000000000001');
    const page = await c.streams.send(new GetRecordsCommand({ ShardIterator: reader }));
    expect(page.Records!.map((r) => r.dynamodb!.Keys!.pk!.S)).toEqual(['during']);
    expect(page.NextShardIterator).toBeUndefined(); // disabled: the shard is closed and read to its end
  });

  it('reads every record across a partition split: children after parents, nothing skipped', async () => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', 'NEW_AND_OLD_IMAGES'))!;
    const reader = new SdkStreamReader(c.streams, arn, 3);
    const written: string[] = [];
    const put = async (pk: string, v: string) => {
      await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item(pk, 1, v) }));
      written.push(`${pk}=${v}`);
    };
    for (let i = 0; i < 20; i++) await put(`k${i}`, 'a');
    const seen = (await reader.poll()).map((r) => `${r.dynamodb!.Keys!.pk!.S}=${r.dynamodb!.NewImage!.v!.S}`);
    for (let i = 0; i < 10; i++) await put(`k${i}`, 'b');
    const [parent] = c.db.context.catalog.require('Orders').def.partitions;
    expect(c.db.splitPartition('Orders', parent!.id)).toBeDefined();
    for (let i = 0; i < 20; i++) await put(`k${i}`, 'c');
    seen.push(...(await reader.poll()).map((r) => `${r.dynamodb!.Keys!.pk!.S}=${r.dynamodb!.NewImage!.v!.S}`));

    expect([...seen].sort()).toEqual([...written].sort());
    for (let i = 0; i < 20; i++) {
      const k = `k${i}=`;
      expect(seen.filter((s) => s.startsWith(k))).toEqual(written.filter((s) => s.startsWith(k)));
    }
    const shards = await describeAllShards(c.streams, arn);
    expect(shards).toHaveLength(3);
    const parentId = shards[0]!.ShardId!;
    expect(shards[0]!.SequenceNumberRange!.EndingSequenceNumber).toBe('000000000000000000030');
    expect(shards.slice(1).map((s) => s.ParentShardId)).toEqual([parentId, parentId]);
    expect(reader.order[0]).toBe(parentId);
  });

  it('shows TTL deletions with the DynamoDB service identity', async () => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', 'OLD_IMAGE'))!;
    c.db.updateTimeToLive({ TableName: 'Orders', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: { ...item('gone', 1, 'x'), expires: { N: String(T0 / 1000 - 60) } } }));
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: { ...item('kept', 1, 'x'), expires: { N: String(T0 / 1000 + 3600) } } }));
    await c.dynamo.send(new DeleteItemCommand({ TableName: 'Orders', Key: { pk: { S: 'kept' }, sk: { N: '1' } } }));
    expect(c.db.sweepExpired()).toBe(1);
    const { Records } = await c.streams.send(new GetRecordsCommand({ ShardIterator: await iterator(c.streams, arn, 'TRIM_HORIZON') }));
    const removes = Records!.filter((r) => r.eventName === 'REMOVE');
    expect(removes.map((r) => [r.dynamodb!.Keys!.pk!.S, r.userIdentity])).toEqual([
      ['kept', undefined],
      ['gone', { PrincipalId: 'dynamodb.amazonaws.com', Type: 'Service' }],
    ]);
    expect(removes[1]!.dynamodb!.OldImage).toMatchObject(item('gone', 1, 'x'));
  });

  it('expires iterators after 15 minutes', async () => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', 'KEYS_ONLY'))!;
    const it = await iterator(c.streams, arn, 'TRIM_HORIZON');
    clock.ms += 15 * 60 * 1000;
    const page = await c.streams.send(new GetRecordsCommand({ ShardIterator: it }));
    clock.ms += 1;
    await expect(c.streams.send(new GetRecordsCommand({ ShardIterator: it }))).rejects.toBeInstanceOf(ExpiredIteratorException);
    expect((await c.streams.send(new GetRecordsCommand({ ShardIterator: page.NextShardIterator! }))).Records).toEqual([]);
    await expect(c.streams.send(new GetRecordsCommand({ ShardIterator: 'not-an-iterator' }))).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('trims records older than the retention: TrimmedDataAccessException behind the trim horizon', async () => {
    const c = await connect({ streamRetentionMs: 60 * 60 * 1000 });
    const arn = (await streamTable(c, 'Orders', 'KEYS_ONLY'))!;
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('old', 1, 'x') }));
    clock.ms += 50 * 60 * 1000;
    const stale = await iterator(c.streams, arn, 'TRIM_HORIZON');
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: item('new', 1, 'x') }));
    expect(c.db.trimStreams()).toBe(0);
    clock.ms += 11 * 60 * 1000;
    expect(c.db.trimStreams()).toBe(1);
    await expect(c.streams.send(new GetRecordsCommand({ ShardIterator: stale }))).rejects.toBeInstanceOf(TrimmedDataAccessException);
    await expect(iterator(c.streams, arn, 'AT_SEQUENCE_NUMBER', undefined, '000000000000000000001')).rejects.toBeInstanceOf(TrimmedDataAccessException);
    const shard = (await describeAllShards(c.streams, arn))[0]!;
    expect(shard.SequenceNumberRange!.StartingSequenceNumber).toBe('000000000000000000002');
    const { Records } = await c.streams.send(new GetRecordsCommand({ ShardIterator: await iterator(c.streams, arn, 'TRIM_HORIZON') }));
    expect(Records!.map((r) => r.dynamodb!.Keys!.pk!.S)).toEqual(['new']);
  });

  it('answers unknown streams and shards with ResourceNotFoundException and bad requests with ValidationException', async () => {
    const c = await connect();
    const arn = (await streamTable(c, 'Orders', 'KEYS_ONLY'))!;
    const missing = arn.replace('Orders', 'Nothing');
    await expect(c.streams.send(new DescribeStreamCommand({ StreamArn: missing }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: `Requested resource not found: Stream: ${missing} not found`,
    });
    await expect(c.streams.send(new DescribeStreamCommand({ StreamArn: missing }))).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(iterator(c.streams, arn, 'TRIM_HORIZON', 'shardId-00000000000000000099-00000000')).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(c.streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: 'shardId-00000000000000000000-00000000', ShardIteratorType: 'SIDEWAYS' as ShardIteratorType }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: "1 validation error detected: Value 'SIDEWAYS' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]",
    });
    await expect(c.streams.send(new GetRecordsCommand({ ShardIterator: await iterator(c.streams, arn, 'LATEST'), Limit: 1001 }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000",
    });
    await expect(c.streams.send(new ListStreamsCommand({ TableName: 'Nothing' }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});
