/**
 * The hub's forwarder against dynalite: puts, updates and deletes across shards and a partition
 * split; unprocessed items and throttling; older versions never replacing newer ones; key schema
 * mismatches reported; a restart resuming from the durable cursor.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { startForwarder, type ForwardOptions } from '../../../src/hub/forward/start-forwarder.js';
import { createEndpointClient, type EndpointClient } from '../../../src/hub/forward/endpoint-client.js';
import { encodeVersion, VERSION_ATTRIBUTE } from '../../../src/hub/forward/version-attribute.js';
import type { Edgetable } from '../../../src/edgetable.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../../sync/fixtures.js';
import { startDynalite, TEST_CREDENTIALS } from './dynalite.js';
import { createEndpointTable, endpointClient, endpointContents, hubContents, scanEndpoint } from './endpoint-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const dynalite = await startDynalite();
  cleanups.push(() => dynalite.stop());
  const client = endpointClient(dynalite.endpoint);
  cleanups.push(() => client.destroy());
  const hub = tempDb(cleanups, 'etb-forward-');
  return { endpoint: dynalite.endpoint, client, db: hub.db };
}

function forwarder(db: Edgetable, options: ForwardOptions) {
  const f = startForwarder(db, { credentials: TEST_CREDENTIALS, pollMs: 20, baseBackoffMs: 5, maxBackoffMs: 50, ...options });
  cleanups.push(() => f.stop());
  return f;
}

/** Updates every third reading, deletes every fifth (after the updates). */
function churn(db: Edgetable, from: number, to: number): void {
  for (let i = from; i < to; i += 3) {
    db.updateItem({ TableName: 'Readings', Key: { sensor: { S: `s-${i % 64}` }, ts: { N: String(i) } }, UpdateExpression: 'SET v = :v, updated = :t', ExpressionAttributeValues: { ':v': { N: String(i + 1000) }, ':t': { BOOL: true } } });
  }
  for (let i = from; i < to; i += 5) db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: `s-${i % 64}` }, ts: { N: String(i) } } });
}

const forwarded = (f: { status(): { lagRecords: number } }) => f.status().lagRecords === 0;

describe('startForwarder', () => {
  it('forwards puts, updates and deletes from every shard, across a partition split, until the endpoint equals the hub', async () => {
    const { endpoint, client, db } = await setup();
    createReadings(db, 'Readings', 4);
    writeReadings(db, 0, 400);
    const f = forwarder(db, { endpoint, batchSize: 40 });
    churn(db, 0, 400);
    await until(() => f.status().forwarded > 0, 20_000, 'forwarding started');
    const split = db.splitPartition('Readings', db.listShards('Readings').find((s) => s.Open)!.ShardId);
    expect(split).toBeDefined();
    writeReadings(db, 400, 600);
    churn(db, 400, 600);
    const shards = db.listShards('Readings');
    expect(shards.filter((s) => s.ParentShardId !== undefined).length).toBe(2);
    await until(() => forwarded(f), 60_000, 'every record forwarded');
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(db, 'Readings'));
    const s = f.status();
    expect(s.tables).toEqual([{ table: 'Readings', state: 'forwarding' }]);
    expect(s.errors).toBe(0);
    expect(hubContents(db, 'Readings')).toHaveLength(600 - 120);
    // Every forwarded item carries its version, a sortable HLC string.
    for (const item of await scanEndpoint(client, 'Readings')) expect(item[VERSION_ATTRIBUTE]?.S).toMatch(/^\d{15}\.\d{10}$/);
  }, 120_000);

  it('resends unprocessed items and retries throttled BatchWriteItem calls with back-off (batch mode)', async () => {
    const { endpoint, client, db } = await setup();
    createReadings(db, 'Readings', 4);
    writeReadings(db, 0, 300);
    churn(db, 0, 300);
    const real = createEndpointClient({ endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS });
    cleanups.push(() => real.destroy());
    let calls = 0;
    const flaky: EndpointClient = {
      ...real,
      batchWriteItem: async (requestItems) => {
        calls += 1;
        if (calls % 4 === 0) throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ProvisionedThroughputExceededException' });
        if (calls % 3 !== 0) return real.batchWriteItem(requestItems);
        // Only the first half of each table's requests is written; the rest comes back unprocessed.
        const sent: typeof requestItems = {};
        const unprocessed: typeof requestItems = {};
        for (const [table, requests] of Object.entries(requestItems)) {
          const half = Math.ceil(requests.length / 2);
          sent[table] = requests.slice(0, half);
          if (requests.length > half) unprocessed[table] = requests.slice(half);
        }
        const left = await real.batchWriteItem(sent);
        for (const [table, requests] of Object.entries(left)) unprocessed[table] = [...requests, ...(unprocessed[table] ?? [])];
        return unprocessed;
      },
    };
    const f = forwarder(db, { endpoint, client: flaky, writeMode: 'batch', batchSize: 60 });
    await until(() => forwarded(f), 60_000, 'every record forwarded');
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(db, 'Readings'));
    const s = f.status();
    expect(s.unprocessedItems).toBeGreaterThan(0);
    expect(s.throttled).toBeGreaterThan(0);
    expect(s.retries).toBeGreaterThanOrEqual(s.throttled);
    expect(s.errors).toBe(0);
  }, 120_000);

  it('retries throttled conditional writes until each one is acknowledged', async () => {
    const { endpoint, client, db } = await setup();
    createReadings(db, 'Readings', 2);
    writeReadings(db, 0, 200);
    churn(db, 0, 200);
    const real = createEndpointClient({ endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS });
    cleanups.push(() => real.destroy());
    let calls = 0;
    const throttle = () => {
      calls += 1;
      if (calls % 3 === 0) throw Object.assign(new Error('Throughput exceeds the current capacity of your table or index.'), { name: 'ProvisionedThroughputExceededException' });
    };
    const flaky: EndpointClient = {
      ...real,
      putItem: async (input) => {
        throttle();
        return real.putItem(input);
      },
      deleteItem: async (input) => {
        throttle();
        return real.deleteItem(input);
      },
    };
    const f = forwarder(db, { endpoint, client: flaky, concurrency: 4 });
    await until(() => forwarded(f), 60_000, 'every record forwarded');
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(db, 'Readings'));
    expect(f.status().throttled).toBeGreaterThan(0);
    expect(f.status().errors).toBe(0);
  }, 120_000);

  it('never replaces a newer version at the endpoint with an older one, for puts and deletes', async () => {
    const { endpoint, client, db } = await setup();
    createReadings(db, 'Readings', 1);
    await createEndpointTable(client, {
      TableName: 'Readings',
      KeySchema: [ { AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' } ],
      AttributeDefinitions: [ { AttributeName: 'sensor', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' } ],
      BillingMode: 'PAY_PER_REQUEST',
    });
    // A newer version of two keys reached the endpoint first (another hub, a replay that raced ahead).
    const future = encodeVersion({ ms: Date.now() + 86_400_000, counter: 0 });
    for (const ts of ['1', '2']) {
      await client.send(new PutItemCommand({ TableName: 'Readings', Item: { sensor: { S: 'a' }, ts: { N: ts }, v: { S: 'newer' }, [VERSION_ATTRIBUTE]: { S: future } } }));
    }
    const f = forwarder(db, { endpoint });
    await until(() => f.status().tables[0]?.state === 'forwarding', 30_000, 'the table checked');
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: 'a' }, ts: { N: '1' }, v: { S: 'older' } } });
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: 'a' }, ts: { N: '2' }, v: { S: 'older' } } });
    db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: 'a' }, ts: { N: '2' } } });
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: 'a' }, ts: { N: '3' }, v: { S: 'only' } } });
    await until(() => forwarded(f), 30_000, 'every record forwarded');
    const get = async (ts: string) => (await client.send(new GetItemCommand({ TableName: 'Readings', Key: { sensor: { S: 'a' }, ts: { N: ts } } }))).Item;
    expect((await get('1'))?.['v']).toEqual({ S: 'newer' });
    expect((await get('2'))?.['v']).toEqual({ S: 'newer' }); // the older delete did not remove it
    expect((await get('3'))?.['v']).toEqual({ S: 'only' });
    // Key 2's put and delete are refused, or only its delete when both were read in one batch.
    expect(f.status().conditionalSkips).toBeGreaterThanOrEqual(2);
    expect(f.status().forwarded).toBe(1);
    expect(f.status().errors).toBe(0);

    // Forwarding the same records again (a replay after a crash) changes nothing and is no error.
    await f.stop();
    const again = forwarder(db, { endpoint: `${endpoint}/` }); // another endpoint key: its cursors start at 0
    await until(() => forwarded(again), 30_000, 'replayed');
    expect(again.status().conditionalSkips).toBeGreaterThanOrEqual(3);
    expect(again.status().forwarded).toBe(0);
    expect(again.status().errors).toBe(0);
    expect((await get('1'))?.['v']).toEqual({ S: 'newer' });
    expect((await get('3'))?.['v']).toEqual({ S: 'only' });
  }, 60_000);

  it('reports a table whose key schema differs at the endpoint, and forwards the others', async () => {
    const { endpoint, client, db } = await setup();
    createReadings(db, 'Readings', 1);
    createReadings(db, 'Other', 1);
    writeReadings(db, 0, 20, 'Readings');
    writeReadings(db, 0, 20, 'Other');
    await createEndpointTable(client, {
      TableName: 'Readings',
      KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'sensor', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    const f = forwarder(db, { endpoint });
    await until(() => f.status().tables.length === 2 && f.status().tables.every((t) => t.state !== 'pending'), 30_000, 'tables checked');
    await until(() => (f.status().forwarded >= 20), 30_000, 'Other forwarded');
    expect(f.status().tables).toEqual([
      { table: 'Other', state: 'forwarding' },
      { table: 'Readings', state: 'mismatch', message: "the endpoint's Readings has key schema HASH sensor S, the hub's has HASH sensor S, RANGE ts N" },
    ]);
    expect(await endpointContents(client, 'Other')).toEqual(hubContents(db, 'Other'));
    expect(await scanEndpoint(client, 'Readings')).toEqual([]);
  }, 60_000);

  it('resumes from its durable cursor after a stop: what was acknowledged is not sent again', async () => {
    const { endpoint, client, db } = await setup();
    createReadings(db, 'Readings', 2);
    writeReadings(db, 0, 300);
    const first = forwarder(db, { endpoint, batchSize: 20, concurrency: 1 });
    await until(() => first.status().forwarded >= 60, 30_000, 'some forwarded');
    await first.stop();
    const sent = first.status().forwarded;
    expect(sent).toBeLessThan(300);
    writeReadings(db, 300, 350);
    const second = forwarder(db, { endpoint, batchSize: 20 });
    await until(() => forwarded(second), 30_000, 'the rest forwarded');
    // At most the batch in flight at the stop is sent twice.
    expect(sent + second.status().forwarded + second.status().conditionalSkips).toBeLessThanOrEqual(350 + 20 * 2);
    // A write abandoned by the stop may still have landed: its replay is then refused as not newer.
    expect(second.status().forwarded + second.status().conditionalSkips).toBeGreaterThanOrEqual(350 - sent);
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(db, 'Readings'));
  }, 60_000);
});
