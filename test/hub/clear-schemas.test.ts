import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'mqtt';
import { clearRetainedSchemas } from '../../src/hub/clear-schemas.js';
import { startHub } from '../../src/hub/start-hub.js';
import { MqttLink } from '../../src/sync/mqtt-link.js';
import { SyncError } from '../../src/sync/sync-error.js';
import { ValidationException } from '../../src/model/errors.js';
import { Topics } from '../../src/sync/protocol/topics.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DAY_MS = 86_400_000;

/** The retained schema topics of `topics`' namespace (default: 'edgetable') a fresh subscriber receives. */
async function retainedSchemaTopics(url: string, topics = new Topics()): Promise<string[]> {
  const client = connect(url, { clientId: `probe-${Math.random().toString(36).slice(2, 8)}`, protocolVersion: 4, reconnectPeriod: 0 });
  try {
    const found = new Set<string>();
    client.on('message', (topic, payload, packet) => {
      if (packet.retain && payload.length > 0) found.add(topic);
    });
    await client.subscribeAsync(topics.schemaSubscription, { qos: 1 });
    await new Promise((r) => setTimeout(r, 300));
    return [...found].sort();
  } finally {
    await client.endAsync(true);
  }
}

async function retain(url: string, entries: [device: string, table: string, announcedAtMs: number | undefined][], topics = new Topics()): Promise<void> {
  const link = new MqttLink({ url, clientId: 'retainer', reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
  try {
    await until(() => link.online, 10_000, 'online');
    for (const [device, table, at] of entries) {
      await link.publishAcknowledged(topics.schema(device, table), JSON.stringify({ version: 1, TableName: table, KeySchema: [], AttributeDefinitions: [], ...(at !== undefined ? { announcedAtMs: at } : {}) }), true);
    }
  } finally {
    await link.close();
  }
}

describe('clearRetainedSchemas', () => {
  it('clears the retained schemas of the devices named by pattern, and only those', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const now = Date.now();
    await retain(broker.url, [['gone-1', 'Ghost', now - 90 * DAY_MS], ['gone-2', 'Ghost', now], ['gone-2', 'Other', now], ['pump-1', 'Readings', now]]);
    expect(await retainedSchemaTopics(broker.url)).toHaveLength(4);

    const cleared = await clearRetainedSchemas({ url: broker.url, devices: ['gone-*'], settleMs: 300 });
    expect(cleared).toEqual(['edgetable/v1/gone-1/Ghost/schema', 'edgetable/v1/gone-2/Ghost/schema', 'edgetable/v1/gone-2/Other/schema']);
    expect(await retainedSchemaTopics(broker.url)).toEqual(['edgetable/v1/pump-1/Readings/schema']);
    // Nothing left to clear: a second run clears nothing.
    expect(await clearRetainedSchemas({ url: broker.url, devices: ['gone-*'], settleMs: 300 })).toEqual([]);
  }, 30_000);

  it('olderThanMs keeps recent announcements; one without announcedAtMs counts as old', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const now = Date.now();
    await retain(broker.url, [['old-1', 'T1', now - 40 * DAY_MS], ['legacy-1', 'T1', undefined], ['new-1', 'T1', now - 1000]]);
    const cleared = await clearRetainedSchemas({ url: broker.url, olderThanMs: 30 * DAY_MS, settleMs: 300 });
    expect(cleared).toEqual(['edgetable/v1/legacy-1/T1/schema', 'edgetable/v1/old-1/T1/schema']);
    expect(await retainedSchemaTopics(broker.url)).toEqual(['edgetable/v1/new-1/T1/schema']);
  }, 30_000);

  it('a live device whose schema was cleared announces it again when a restarted hub asks, and its writes arrive', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const device = tempDb(cleanups, 'etb-dev-cleared-');
    createReadings(device.db, 'Readings', 1);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'live-1', tables: ['Readings'], ackTimeoutMs: 300 });
    cleanups.push(() => sync.stop());
    await until(() => sync.status().online, 10_000, 'device online');
    expect(await clearRetainedSchemas({ url: broker.url, settleMs: 300 })).toEqual(['edgetable/v1/live-1/Readings/schema']);
    // A hub starting now finds no retained schema; the device is still connected and does not reconnect.
    const hubStore = tempDb(cleanups, 'etb-hub-cleared-');
    const hub = startHub({ db: hubStore.db, url: broker.url });
    cleanups.push(() => hub.stop());
    writeReadings(device.db, 0, 10);
    await sync.flushed();
    expect(hub.status().recordsApplied).toBe(10);
  }, 30_000);

  it("clears only the schemas of its namespace: other deployments' on the same broker stay", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const now = Date.now();
    const acme = new Topics('acme');
    const field = new Topics('acme/field');
    await retain(broker.url, [['gone-1', 'Ghost', now]]);
    await retain(broker.url, [['gone-1', 'Ghost', now], ['pump-1', 'Readings', now]], acme);
    await retain(broker.url, [['gone-1', 'Ghost', now]], field);

    expect(await clearRetainedSchemas({ url: broker.url, namespace: 'acme', devices: ['gone-*'], settleMs: 300 })).toEqual(['acme/v1/gone-1/Ghost/schema']);
    expect(await retainedSchemaTopics(broker.url, acme)).toEqual(['acme/v1/pump-1/Readings/schema']);
    expect(await retainedSchemaTopics(broker.url, field)).toEqual(['acme/field/v1/gone-1/Ghost/schema']);
    expect(await retainedSchemaTopics(broker.url)).toEqual(['edgetable/v1/gone-1/Ghost/schema']);
    // The default namespace is 'edgetable': it clears that one only.
    expect(await clearRetainedSchemas({ url: broker.url, settleMs: 300 })).toEqual(['edgetable/v1/gone-1/Ghost/schema']);
    expect(await clearRetainedSchemas({ url: broker.url, namespace: 'acme/field', settleMs: 300 })).toEqual(['acme/field/v1/gone-1/Ghost/schema']);
    expect(await retainedSchemaTopics(broker.url, acme)).toEqual(['acme/v1/pump-1/Readings/schema']);
  }, 30_000);

  it('an invalid namespace is a ValidationException, before connecting', async () => {
    for (const bad of ['', 'acme//field', 'acme/+', 'acme/#', 'a'.repeat(65)]) {
      await expect(clearRetainedSchemas({ url: 'mqtt://127.0.0.1:9', namespace: bad, connectTimeoutMs: 5000 })).rejects.toThrow(ValidationException);
    }
    await expect(clearRetainedSchemas({ url: 'mqtt://127.0.0.1:9', namespace: 'acme/#' })).rejects.toThrow(`invalid namespace "acme/#": 1 to 8 levels of 1-64 [a-zA-Z0-9_.-] separated by '/'`);
  });

  it('an unreachable broker is a SyncError naming the url', async () => {
    await expect(clearRetainedSchemas({ url: 'mqtt://127.0.0.1:9', connectTimeoutMs: 500 })).rejects.toThrow(SyncError);
    await expect(clearRetainedSchemas({ url: 'mqtt://127.0.0.1:9', connectTimeoutMs: 500 })).rejects.toThrow(/cannot reach the broker at mqtt:\/\/127\.0\.0\.1:9/);
  }, 10_000);
});
