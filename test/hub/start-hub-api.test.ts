/** startHub({ port }): the hub serves the DynamoDB and Streams APIs on the store it applies batches into. */
import { afterEach, describe, expect, it } from 'vitest';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, ListStreamsCommand } from '@aws-sdk/client-dynamodb-streams';
import { startHub } from '../../src/hub/start-hub.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const credentials = { accessKeyId: 'hub', secretAccessKey: 'hub' };

async function hubWithApi() {
  const broker = await startBroker();
  cleanups.push(() => broker.stop());
  const store = tempDb(cleanups, 'etb-hub-api-');
  const hub = startHub({ db: store.db, url: broker.url, port: 0 });
  cleanups.push(() => hub.stop());
  await hub.ready;
  const endpoint = `http://127.0.0.1:${hub.status().api!.port}`;
  const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint, maxAttempts: 1 });
  cleanups.push(() => client.destroy());
  return { broker, hub, db: store.db, client, endpoint };
}

describe('startHub with port', () => {
  it('serves the DynamoDB API on the hub store: create, put, query through the AWS SDK', async () => {
    const { client, db, hub, endpoint } = await hubWithApi();
    expect(hub.status().api).toEqual({ host: '127.0.0.1', port: expect.any(Number) });
    await client.send(
      new CreateTableCommand({
        TableName: 'WorkOrders',
        KeySchema: [
          { AttributeName: 'site', KeyType: 'HASH' },
          { AttributeName: 'job', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'site', AttributeType: 'S' },
          { AttributeName: 'job', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
    for (const job of ['j1', 'j2', 'j3']) {
      await client.send(new PutItemCommand({ TableName: 'WorkOrders', Item: { site: { S: 'site-7' }, job: { S: job }, state: { S: 'assigned' } } }));
    }
    await client.send(new PutItemCommand({ TableName: 'WorkOrders', Item: { site: { S: 'site-8' }, job: { S: 'j9' } } }));
    const page = await client.send(new QueryCommand({ TableName: 'WorkOrders', KeyConditionExpression: 'site = :s', ExpressionAttributeValues: { ':s': { S: 'site-7' } } }));
    expect(page.Items?.map((i) => i['job']?.S)).toEqual(['j1', 'j2', 'j3']);
    // The same Edgetable instance: the write is in the hub's store at once.
    expect(db.getItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-8' }, job: { S: 'j9' } } }).Item).toBeDefined();

    // The Streams API on the same port reads the hub table's change log.
    const streams = new DynamoDBStreamsClient({ region: 'us-east-1', credentials, endpoint, maxAttempts: 1 });
    cleanups.push(() => streams.destroy());
    const listed = await streams.send(new ListStreamsCommand({ TableName: 'WorkOrders' }));
    expect(listed.Streams).toHaveLength(1);
    const arn = listed.Streams![0]!.StreamArn!;
    const described = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    const jobs: string[] = [];
    for (const shard of described.StreamDescription?.Shards ?? []) {
      const it = await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }));
      const records = await streams.send(new GetRecordsCommand({ ShardIterator: it.ShardIterator! }));
      for (const r of records.Records ?? []) jobs.push(r.dynamodb?.NewImage?.['job']?.S ?? '');
    }
    expect(jobs.sort()).toEqual(['j1', 'j2', 'j3', 'j9']);
  });

  it("a batch applied from a device is visible through the DynamoDB API", async () => {
    const { broker, client, hub } = await hubWithApi();
    const device = tempDb(cleanups, 'etb-hub-api-dev-');
    createReadings(device.db);
    writeReadings(device.db, 0, 50);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-1', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    await until(() => hub.status().recordsApplied >= 50, 20_000, 'the device batches applied');
    const got = await client.send(new GetItemCommand({ TableName: 'Readings', Key: { sensor: { S: 's-7' }, ts: { N: '7' } } }));
    expect(got.Item).toEqual({ sensor: { S: 's-7' }, ts: { N: '7' }, v: { N: '49' }, tag: { S: 'r7' } });
    const page = await client.send(new QueryCommand({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 's-3' } } }));
    expect(page.Items?.map((i) => i['ts']?.N)).toEqual(['3']);
  });

  it('serves the API with the request limits given as apiLimits (those of serve, docs/security.md)', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const store = tempDb(cleanups, 'etb-hub-api-');
    const hub = startHub({ db: store.db, url: broker.url, port: 0, apiLimits: { maxBodyBytes: 1024, maxConnections: 8 } });
    cleanups.push(() => hub.stop());
    await hub.ready;
    const res = await fetch(`http://127.0.0.1:${hub.status().api!.port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: JSON.stringify({ pad: 'x'.repeat(2048) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ __type: 'com.amazon.coral.validate#ValidationException', message: 'Request size exceeded the limit of 1024 bytes' });
  });
});
