/** startHub({ forward }): a device's writes reach the DynamoDB endpoint through the hub. */
import { afterEach, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';
import { startDynalite, TEST_CREDENTIALS } from './forward/dynalite.js';
import { createEndpointTable, endpointClient, endpointContents, hubContents } from './forward/endpoint-fixtures.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('startHub with forward', () => {
  it("forwards what devices sync, deletes included, and reports its counters in hub.status()", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const client = endpointClient(dynalite.endpoint);
    cleanups.push(() => client.destroy());
    const store = tempDb(cleanups, 'etb-hub-forward-');
    const hub = startHub({ db: store.db, url: broker.url, forward: { endpoint: dynalite.endpoint, credentials: TEST_CREDENTIALS, pollMs: 20 } });
    cleanups.push(() => hub.stop());

    const device = tempDb(cleanups, 'etb-hub-forward-dev-');
    createReadings(device.db);
    writeReadings(device.db, 0, 100);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-2', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    await until(() => (hub.status().forward?.forwarded ?? 0) > 0, 60_000, 'forwarding started');
    for (let i = 0; i < 100; i += 10) device.db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: `s-${i % 64}` }, ts: { N: String(i) } } });
    await sync.flushed();
    await until(() => hub.status().forward?.lagRecords === 0 && hubContents(store.db, 'Readings').length === 90, 60_000, 'the hub forwarded what the device synced');
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(store.db, 'Readings'));
    const f = hub.status().forward!;
    expect(f).toMatchObject({ endpoint: dynalite.endpoint, errors: 0, tables: [{ table: 'Readings', state: 'forwarding' }] });
    expect(f.forwarded).toBeGreaterThanOrEqual(90);
  }, 90_000);

  it("goes on past a device's record the endpoint refuses: dead-lettered at the hub, the rest forwarded, the log pruned behind it", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const client = endpointClient(dynalite.endpoint);
    cleanups.push(() => client.destroy());
    // The endpoint's table has an index on gk (a number) that the device's table has not.
    await createEndpointTable(client, {
      TableName: 'Readings',
      KeySchema: [ { AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' } ],
      AttributeDefinitions: [ { AttributeName: 'sensor', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }, { AttributeName: 'gk', AttributeType: 'N' } ],
      GlobalSecondaryIndexes: [{ IndexName: 'ByGk', KeySchema: [{ AttributeName: 'gk', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    const store = tempDb(cleanups, 'etb-hub-forward-');
    const hub = startHub({ db: store.db, url: broker.url, logPruneIntervalMs: 100, forward: { endpoint: dynalite.endpoint, credentials: TEST_CREDENTIALS, pollMs: 20, baseBackoffMs: 5, maxBackoffMs: 50 } });
    cleanups.push(() => hub.stop());

    const device = tempDb(cleanups, 'etb-hub-forward-dev-');
    createReadings(device.db);
    writeReadings(device.db, 0, 30);
    device.db.putItem({ TableName: 'Readings', Item: { sensor: { S: 's-poison' }, ts: { N: '1' }, gk: { S: 'not a number' } } });
    writeReadings(device.db, 30, 60);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-3', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    await sync.flushed();
    await until(() => hubContents(store.db, 'Readings').length === 61 && hub.status().forward?.lagRecords === 0, 60_000, 'applied and forwarded');
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(store.db, 'Readings').filter((item) => !item.includes('s-poison')));
    expect(hub.status().forward).toMatchObject({ permanentFailures: 1, deadLettered: 1, errors: 0 });
    const letters = store.db.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? [];
    expect(letters.map((l) => [l['source'], l['key']])).toEqual([[{ S: 'forward' }, { M: { sensor: { S: 's-poison' }, ts: { N: '1' } } }]]);
    await until(() => (hub.status().logRecordsPruned ?? 0) >= 61, 10_000, 'the hub log pruned past the poison');
  }, 90_000);
});
