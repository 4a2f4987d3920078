/**
 * A device whose table definition conflicts with the hub's table of the same name is told so and
 * does not stall silently (issue 17): the hub answers 'conflict' naming the difference and lists
 * it; the device shows it per table, stops sending the table, rejects flush waiters on it, and
 * resumes once either side's definition changes. A conflict answer the hub gave under the device's
 * previous definition, handled after the change, counts for nothing (the one observed failure of
 * the index test under load: the hub answers the announcement and the batch, two acks).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import { SyncError } from '../../src/sync/sync-error.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import type { Edgetable } from '../../src/edgetable.js';
import { MqttLink } from '../../src/sync/mqtt-link.js';
import { encodeSyncAck, encodeSyncBatch, type SyncAck } from '../../src/sync/protocol/sync-batch.js';
import { ackTopic, batchTopic, schemaTopic } from '../../src/sync/protocol/topics.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { tableSchema } from '../../src/sync/protocol/table-schema.js';
import { startBroker } from './broker.js';
import { tableContents, tempDb, until, type Cleanup } from './fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function createWorkOrders(db: Edgetable, hashKey: string, withIndex = false): void {
  db.createTable({
    TableName: 'WorkOrders',
    KeySchema: [{ AttributeName: hashKey, KeyType: 'HASH' }],
    AttributeDefinitions: [
      { AttributeName: hashKey, AttributeType: 'S' },
      ...(withIndex ? [{ AttributeName: 'tech', AttributeType: 'S' as const }] : []),
    ],
    ...(withIndex ? { GlobalSecondaryIndexes: [{ IndexName: 'ByTech', KeySchema: [{ AttributeName: 'tech', KeyType: 'HASH' as const }], Projection: { ProjectionType: 'ALL' as const } }] } : {}),
    BillingMode: 'PAY_PER_REQUEST',
  });
}

function addIndex(db: Edgetable, projection: 'ALL' | 'KEYS_ONLY'): void {
  db.updateTable({
    TableName: 'WorkOrders',
    AttributeDefinitions: [{ AttributeName: 'tech', AttributeType: 'S' }],
    GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'ByTech', KeySchema: [{ AttributeName: 'tech', KeyType: 'HASH' }], Projection: { ProjectionType: projection } } }],
  });
}

/**
 * Delivers, on the device's ack topic, the hub's 'conflict' answer to a batch it judged under the
 * device's previous definition, then an ack of another stream; the device handles its acks one at
 * a time in order, so once that one counts in staleAcks the late conflict ack has been handled.
 */
async function deliverLateConflict(brokerUrl: string, deviceId: string, sync: { status(): { incarnation: string; staleAcks: number } }, tableId: string, difference: string): Promise<void> {
  const lateHub = new MqttLink({ url: brokerUrl, clientId: `late-hub-${deviceId}`, reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
  cleanups.push(() => lateHub.close());
  await until(() => lateHub.online, 10_000, 'the late hub online');
  const late: SyncAck = { incarnation: sync.status().incarnation, table: 'WorkOrders', tableId, shard: 0, seq: 0, status: 'conflict', message: difference, hubClock: { ms: Date.now(), counter: 0 } };
  const staleBefore = sync.status().staleAcks;
  await lateHub.publishAcknowledged(ackTopic(deviceId), Buffer.from(encodeSyncAck(late)));
  await lateHub.publishAcknowledged(ackTopic(deviceId), Buffer.from(encodeSyncAck({ ...late, tableId: `${tableId}-other` })));
  await until(() => sync.status().staleAcks === staleBefore + 1, 10_000, 'the late conflict ack handled');
}

function writeOrders(db: Edgetable, hashKey: string, from: number, to: number): void {
  for (let i = from; i < to; i++) db.putItem({ TableName: 'WorkOrders', Item: { [hashKey]: { S: `o-${i}` }, site: { S: 'site-7' }, tech: { S: `t-${i % 3}` } } });
}

async function setup(hubTable: (db: Edgetable) => void) {
  const broker = await startBroker();
  cleanups.push(() => broker.stop());
  const hubStore = tempDb(cleanups, 'etb-hub-conflict-');
  hubTable(hubStore.db);
  const hub = startHub({ db: hubStore.db, url: broker.url });
  cleanups.push(() => hub.stop());
  return { broker, hub, hubDb: hubStore.db };
}

describe('a table definition that conflicts with the hub', () => {
  it('different key schema: the device shows the conflict, stops sending, rejects flushed(); a fix at the hub resumes it', async () => {
    const { broker, hub, hubDb } = await setup((db) => createWorkOrders(db, 'site'));
    const device = tempDb(cleanups, 'etb-dev-conflict-');
    createWorkOrders(device.db, 'orderId');
    writeOrders(device.db, 'orderId', 0, 10);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-1', tables: ['WorkOrders'], conflictRetryMs: 500 });
    cleanups.push(() => sync.stop());

    const flushing = sync.flushed();
    await expect(flushing).rejects.toThrow(SyncError);
    await expect(flushing).rejects.toThrow(/the hub's table WorkOrders conflicts with this device's/);
    const difference = "key schema differs: the hub's WorkOrders has site (S, HASH), this device's has orderId (S, HASH)";
    await until(() => sync.status().tables[0]?.conflict !== undefined, 10_000, 'the conflict in the device status');
    expect(sync.status().tables).toEqual([{ table: 'WorkOrders', state: 'base', base: expect.objectContaining({ total: 10, acked: 0 }), conflict: difference, conflictSinceMs: expect.any(Number) }]);
    expect(sync.status().lastError).toContain(difference);
    expect(hub.status().schemaConflicts).toEqual([{ deviceId: 'van-1', table: 'WorkOrders', difference, sinceMs: expect.any(Number) }]);
    // A flush asked while the table is in conflict is refused at once, naming the difference.
    await expect(sync.flushed()).rejects.toThrow(`the hub's table WorkOrders conflicts with this device's: ${difference}`);

    // It does not hammer the hub: one probe per conflictRetryMs, and nothing is applied or dead-lettered.
    const sentBefore = sync.status().batchesSent;
    await new Promise((r) => setTimeout(r, 1600));
    const probes = sync.status().batchesSent - sentBefore;
    expect(probes).toBeGreaterThanOrEqual(2);
    expect(probes).toBeLessThanOrEqual(4);
    // Its items (held before sync) wait in the first sync's base read, none acknowledged.
    expect(sync.status().tables[0]!.base).toMatchObject({ total: 10, acked: 0 });
    expect(tableContents(hubDb, 'WorkOrders')).toEqual([]);
    expect(tableContents(hubDb, DEAD_LETTER_TABLE)).toEqual([]);
    expect(hub.status().batchesApplied).toBe(0);

    // The operator gives the hub table the devices' key schema: the next probe is applied.
    hubDb.deleteTable({ TableName: 'WorkOrders' });
    createWorkOrders(hubDb, 'orderId');
    await until(() => sync.status().tables[0]!.conflict === undefined, 10_000, 'the conflict to clear');
    await sync.flushed();
    expect(tableContents(hubDb, 'WorkOrders')).toEqual(tableContents(device.db, 'WorkOrders'));
    expect(tableContents(hubDb, 'WorkOrders')).toHaveLength(10);
    expect(hub.status().schemaConflicts).toEqual([]);
  }, 30_000);

  it('different indexes: named in the conflict; the device adding the index resumes at once, not at the next retry', async () => {
    const { broker, hub, hubDb } = await setup((db) => createWorkOrders(db, 'orderId', true));
    const device = tempDb(cleanups, 'etb-dev-conflict-ix-');
    createWorkOrders(device.db, 'orderId');
    writeOrders(device.db, 'orderId', 0, 5);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-2', tables: ['WorkOrders'], conflictRetryMs: 60_000 });
    cleanups.push(() => sync.stop());
    await until(() => sync.status().tables[0]?.conflict !== undefined, 10_000, 'the conflict');
    expect(sync.status().tables[0]!.conflict).toBe('index definitions differ: global index ByTech only at the hub (key tech (S, HASH), projection ALL)');
    expect(hub.status().schemaConflicts.map((c) => c.deviceId)).toEqual(['van-2']);

    addIndex(device.db, 'ALL');
    writeOrders(device.db, 'orderId', 5, 8);
    const started = Date.now();
    await sync.flushed();
    expect(Date.now() - started).toBeLessThan(20_000); // far below the 60 s retry: the new definition was announced and sent at once
    expect(sync.status().tables).toEqual([{ table: 'WorkOrders', state: 'log' }]);
    expect(tableContents(hubDb, 'WorkOrders')).toEqual(tableContents(device.db, 'WorkOrders'));
    expect(tableContents(hubDb, 'WorkOrders')).toHaveLength(8);
    expect(hub.status().schemaConflicts).toEqual([]);
  }, 30_000);

  it('a conflict ack judged under the old definition, handled after updateTable and before the new one is announced, neither rejects flushed() nor holds the table until the next retry', async () => {
    const { broker, hub, hubDb } = await setup((db) => createWorkOrders(db, 'orderId', true));
    const device = tempDb(cleanups, 'etb-dev-conflict-late-');
    createWorkOrders(device.db, 'orderId');
    // A poll only when something happens (a flush, an applied ack, a reconnect), none on a timer:
    // nothing announces the new definition between updateTable and the late ack, whatever the load.
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-4', tables: ['WorkOrders'], conflictRetryMs: 60_000, pollIntervalMs: 60_000 });
    cleanups.push(() => sync.stop());
    // Nothing to send yet: the hub's answer to the announcement is the conflict.
    await until(() => sync.status().tables[0]?.conflict !== undefined, 10_000, 'the conflict');
    const difference = 'index definitions differ: global index ByTech only at the hub (key tech (S, HASH), projection ALL)';
    expect(sync.status().tables[0]!.conflict).toBe(difference);

    addIndex(device.db, 'ALL');
    writeOrders(device.db, 'orderId', 0, 3);
    await deliverLateConflict(broker.url, 'van-4', sync, device.db.context.catalog.require('WorkOrders').def.TableId, difference);
    const started = Date.now();
    await sync.flushed();
    expect(Date.now() - started).toBeLessThan(10_000); // far below the 60 s retry
    expect(sync.status().tables).toEqual([{ table: 'WorkOrders', state: 'log' }]);
    expect(tableContents(hubDb, 'WorkOrders')).toEqual(tableContents(device.db, 'WorkOrders'));
    expect(tableContents(hubDb, 'WorkOrders')).toHaveLength(3);
    expect(hub.status().schemaConflicts).toEqual([]);
  }, 30_000);

  it('a late conflict ack for a definition changed to one that still conflicts: the new difference is reported and flushed() rejected with it', async () => {
    const { broker, hub, hubDb } = await setup((db) => createWorkOrders(db, 'orderId', true));
    const device = tempDb(cleanups, 'etb-dev-conflict-still-');
    createWorkOrders(device.db, 'orderId');
    // A conflict answered within ackTimeoutMs of a change may predate it (sync-agent.ts): it is
    // recorded once that much time has passed, here 2 s.
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-5', tables: ['WorkOrders'], conflictRetryMs: 60_000, ackTimeoutMs: 2000 });
    cleanups.push(() => sync.stop());
    await until(() => sync.status().tables[0]?.conflict !== undefined, 10_000, 'the conflict');
    const before = 'index definitions differ: global index ByTech only at the hub (key tech (S, HASH), projection ALL)';

    addIndex(device.db, 'KEYS_ONLY');
    writeOrders(device.db, 'orderId', 0, 3);
    await deliverLateConflict(broker.url, 'van-5', sync, device.db.context.catalog.require('WorkOrders').def.TableId, before);
    const after = "index definitions differ: global index ByTech differs: the hub's has key tech (S, HASH), projection ALL, this device's has key tech (S, HASH), projection KEYS_ONLY";
    await expect(sync.flushed()).rejects.toThrow(after);
    expect(sync.status().tables).toEqual([{ table: 'WorkOrders', state: 'log', conflict: after, conflictSinceMs: expect.any(Number) }]);
    expect(hub.status().schemaConflicts).toEqual([{ deviceId: 'van-5', table: 'WorkOrders', difference: after, sinceMs: expect.any(Number) }]);
    expect(tableContents(hubDb, 'WorkOrders')).toEqual([]);
    expect(sync.status().shards[0]!.lagRecords).toBe(3);
  }, 30_000);

  it('a device that agrees with the hub never sees a conflict', async () => {
    const { broker, hub, hubDb } = await setup((db) => createWorkOrders(db, 'orderId', true));
    const device = tempDb(cleanups, 'etb-dev-agree-');
    createWorkOrders(device.db, 'orderId', true);
    writeOrders(device.db, 'orderId', 0, 5);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'van-3', tables: ['WorkOrders'] });
    cleanups.push(() => sync.stop());
    await sync.flushed();
    expect(sync.status().tables).toEqual([{ table: 'WorkOrders', state: 'log' }]);
    expect(hub.status().schemaConflicts).toEqual([]);
    expect(tableContents(hubDb, 'WorkOrders')).toHaveLength(5);
  }, 30_000);

  it('a device from before conflict reporting (no announcedAtMs) is refused as it used to be: dead-lettered, never sent a conflict it could not decode', async () => {
    const { broker, hub, hubDb } = await setup((db) => createWorkOrders(db, 'site'));
    const other = tempDb(cleanups, 'etb-dev-legacy-def-');
    createWorkOrders(other.db, 'orderId');
    const { version: _v, ...legacySchema } = { ...tableSchema(other.db.context.catalog.require('WorkOrders').def) };
    const old = new MqttLink({ url: broker.url, clientId: 'old-device', reconnectPeriodMs: 250, subscriptions: ['edgetable/v1/old-1/ack'], onMessage: () => undefined, onState: () => undefined });
    cleanups.push(() => old.close());
    await until(() => old.online && hub.status().online, 10_000, 'online');
    await old.publishAcknowledged(schemaTopic('old-1', 'WorkOrders'), JSON.stringify({ version: 1, ...legacySchema }), true);
    const keys = { orderId: { S: 'o-1' } };
    const record = encodeChangeRecord({ eventName: 'INSERT', keys, newImage: keys, timeMs: Date.now(), hlc: { ms: Date.now(), counter: 0 }, sizeBytes: 10, ttl: false });
    await old.publishAcknowledged(batchTopic('old-1', 'WorkOrders', 0), Buffer.from(encodeSyncBatch({ deviceId: 'old-1', incarnation: 'inc-old', table: 'WorkOrders', tableId: 'tid-old', shard: 0, parent: undefined, records: [{ seq: 1, bytes: record }] })));
    await until(() => hub.status().refusedBatches === 1, 10_000, 'the refusal');
    expect(hub.status().schemaConflicts).toEqual([]);
    expect(tableContents(hubDb, DEAD_LETTER_TABLE)).toHaveLength(1);
    expect(tableContents(hubDb, 'WorkOrders')).toEqual([]);
  }, 30_000);
});
