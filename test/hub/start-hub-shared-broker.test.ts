/**
 * A hub on a broker shared with other deployments (docs/sync.md, "Securing a shared broker"): it
 * applies only the devices its allow-list admits, and a retained schema creates a table only while
 * fresh or once its device sends batches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import { MqttLink } from '../../src/sync/mqtt-link.js';
import { encodeSyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { batchTopic, schemaTopic } from '../../src/sync/protocol/topics.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { ValidationException } from '../../src/model/errors.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tableContents, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';
import { captureLog } from '../log/capture-log.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DAY_MS = 86_400_000;

async function forger(url: string, clientId: string): Promise<MqttLink> {
  const link = new MqttLink({ url, clientId, reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
  cleanups.push(() => link.close());
  await until(() => link.online, 10_000, 'forger online');
  return link;
}

/** A schema announcement of table `name` (key sensor S / ts N) made at `announcedAtMs`. */
function schemaOf(name: string, announcedAtMs: number | undefined): string {
  return JSON.stringify({
    version: 1,
    TableName: name,
    KeySchema: [
      { AttributeName: 'sensor', KeyType: 'HASH' },
      { AttributeName: 'ts', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'sensor', AttributeType: 'S' },
      { AttributeName: 'ts', AttributeType: 'N' },
    ],
    ...(announcedAtMs !== undefined ? { announcedAtMs } : {}),
  });
}

function batchOf(deviceId: string, table: string, seq: number, sensor: string): Uint8Array {
  const keys = { sensor: { S: sensor }, ts: { N: String(seq) } };
  const now = Date.now();
  const record = encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { N: '1' } }, timeMs: now, hlc: { ms: now, counter: 0 }, sizeBytes: 20, ttl: false });
  return encodeSyncBatch({ deviceId, incarnation: `inc-${deviceId}`, table, tableId: `tid-${table}`, shard: 0, parent: undefined, records: [{ seq, bytes: record }] });
}

describe('startHub on a shared broker', () => {
  it('applies only devices its allow-list admits; the others are counted per device, logged once, and keep their records', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const logs = captureLog('warn');
    cleanups.push(() => logs.restore());
    const hubStore = tempDb(cleanups, 'etb-hub-allow-');
    const hub = startHub({ db: hubStore.db, url: broker.url, allowDevices: ['pump-*', 'van-3'] });
    cleanups.push(() => hub.stop());

    const pump = tempDb(cleanups, 'etb-pump-');
    createReadings(pump.db, 'Readings', 1);
    writeReadings(pump.db, 0, 20);
    const stranger = tempDb(cleanups, 'etb-stranger-');
    createReadings(stranger.db, 'Foreign', 1);
    writeReadings(stranger.db, 0, 5, 'Foreign');
    const pumpSync = await pump.db.startSync({ url: broker.url, deviceId: 'pump-1', tables: ['Readings'] });
    cleanups.push(() => pumpSync.stop());
    const strangerSync = await stranger.db.startSync({ url: broker.url, deviceId: 'van-4', tables: ['Foreign'], ackTimeoutMs: 200 });
    cleanups.push(() => strangerSync.stop());

    await pumpSync.flushed();
    expect(tableContents(hubStore.db, 'Readings')).toEqual(tableContents(pump.db, 'Readings'));
    // The stranger's schema and its batches (sent again every 200 ms) are all refused.
    await until(() => (hub.status().refusedDevices[0]?.messages ?? 0) >= 4, 10_000, 'several refused messages of van-4');
    const status = hub.status();
    expect(status.refusedDevices).toEqual([{ deviceId: 'van-4', messages: expect.any(Number), firstAtMs: expect.any(Number), lastAtMs: expect.any(Number) }]);
    expect(status.refusedDeviceMessages).toBe(status.refusedDevices[0]!.messages);
    expect(status.tables).toEqual(['Readings']);
    expect(hubStore.db.context.catalog.find('Foreign')).toBeUndefined();
    expect(status.rejectedTotal).toBe(0);
    // Not acknowledged: the device keeps every record for the day it is admitted.
    expect(strangerSync.status().recordsAcked).toBe(0);
    // Its 5 items went up as a first sync's base read (docs/sync.md): none acknowledged.
    expect(strangerSync.status().tables).toEqual([expect.objectContaining({ table: 'Foreign', state: 'base', base: expect.objectContaining({ total: 5, acked: 0, done: false }) })]);
    const warnings = logs.lines().filter((l) => l.component === 'hub');
    expect(warnings.map((l) => l.msg)).toEqual(["ignoring device van-4: not on the hub's allow-list (further messages are counted, not logged)"]);
    expect(warnings[0]).toMatchObject({ level: 'warn', deviceId: 'van-4' });
  }, 30_000);

  it('an allow-list function, and bad patterns refused before anything opens', async () => {
    expect(() => startHub({ path: '/nonexistent/never-created', url: 'mqtt://127.0.0.1:1', allowDevices: ['van/1'] })).toThrow(ValidationException);
    expect(() => startHub({ path: '/nonexistent/never-created', url: 'mqtt://127.0.0.1:1', writeGrants: { 'van-*': { WorkOrders: 'site-7' as never } } })).toThrow(/writeGrants\["van-\*"\]\["WorkOrders"\] must be a list/);
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const hubStore = tempDb(cleanups, 'etb-hub-fn-');
    const hub = startHub({ db: hubStore.db, url: broker.url, allowDevices: (id) => id.endsWith('-ok') });
    cleanups.push(() => hub.stop());
    const link = await forger(broker.url, 'fn-forger');
    await until(() => hub.status().online, 10_000, 'hub online');
    link.publish(schemaTopic('a-ok', 'Admitted'), schemaOf('Admitted', Date.now()), true);
    link.publish(schemaTopic('b-no', 'Refused'), schemaOf('Refused', Date.now()), true);
    await until(() => hub.status().tables.includes('Admitted') && hub.status().refusedDeviceMessages === 1, 10_000, 'schemas handled');
    expect(hubStore.db.context.catalog.find('Refused')).toBeUndefined();
    expect(hub.authorizeSubscription('a-ok', 'Admitted', ['s-1'])).toBe(true);
    expect(hub.authorizeSubscription('b-no', 'Admitted', ['s-1'])).toBe(false);
  }, 30_000);

  it("the subscription map is the hub's authorizeSubscription", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const hubStore = tempDb(cleanups, 'etb-hub-subs-');
    const hub = startHub({ db: hubStore.db, url: broker.url, allowDevices: ['van-*'], subscriptions: { 'van-*': { WorkOrders: ['site-7'] } } });
    cleanups.push(() => hub.stop());
    expect(hub.authorizeSubscription('van-1', 'WorkOrders', ['site-7'])).toBe(true);
    expect(hub.authorizeSubscription('van-1', 'WorkOrders', ['site-8'])).toBe(false);
    expect(hub.authorizeSubscription('van-1', 'WorkOrders')).toBe(false);
    expect(hub.authorizeSubscription('pump-1', 'WorkOrders', ['site-7'])).toBe(false);
  }, 30_000);

  it('a retained schema of a device long gone creates no table; a stale one is created once its device sends a batch', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const link = await forger(broker.url, 'retainer');
    // Retained before the hub starts: what a broker holds for devices that announced long ago.
    await link.publishAcknowledged(schemaTopic('gone-1', 'Ghost'), schemaOf('Ghost', Date.now() - 30 * DAY_MS), true);
    await link.publishAcknowledged(schemaTopic('pre-1', 'Legacy'), schemaOf('Legacy', undefined), true); // a device before announcedAtMs
    await link.publishAcknowledged(schemaTopic('late-1', 'Late'), schemaOf('Late', Date.now() - 2 * DAY_MS), true);
    await link.publishAcknowledged(schemaTopic('fresh-1', 'Fresh'), schemaOf('Fresh', Date.now() - 60_000), true);
    await link.publishAcknowledged(schemaTopic('future-1', 'Future'), schemaOf('Future', Date.now() + 10 * DAY_MS), true);

    const hubStore = tempDb(cleanups, 'etb-hub-retained-');
    const hub = startHub({ db: hubStore.db, url: broker.url, schemaMaxAgeMs: DAY_MS });
    cleanups.push(() => hub.stop());
    await until(() => hub.status().staleSchemas >= 4 && hub.status().tables.includes('Fresh'), 10_000, 'the retained schemas');
    expect(hub.status().tables).toEqual(['Fresh']);
    for (const name of ['Ghost', 'Legacy', 'Late', 'Future']) expect(hubStore.db.context.catalog.find(name)).toBeUndefined();

    // late-1 is alive after all: its first batch creates the table from the retained schema and is applied.
    link.publish(batchTopic('late-1', 'Late', 0), batchOf('late-1', 'Late', 1, 's-late'));
    await until(() => hub.status().batchesApplied === 1, 10_000, 'the late device batch');
    expect(hub.status().tables).toEqual(['Fresh', 'Late']);
    expect(tableContents(hubStore.db, 'Late')).toEqual([JSON.stringify([['sensor', { S: 's-late' }], ['ts', { N: '1' }], ['v', { N: '1' }]])]);
    expect(hubStore.db.context.catalog.find('Ghost')).toBeUndefined();
  }, 30_000);
});
