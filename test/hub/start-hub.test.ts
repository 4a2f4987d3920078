import { afterEach, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import { MqttLink } from '../../src/sync/mqtt-link.js';
import { encodeSyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { batchTopic } from '../../src/sync/protocol/topics.js';
import { readShardRaw } from '../../src/stream/stream-reader.js';
import { decodeStreamRecord, encodeChangeRecord } from '../../src/stream/change-record.js';
import { compareVersions, type Version } from '../../src/replication/hub-records.js';
import type { Edgetable } from '../../src/edgetable.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tableContents, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const OFFLINE_ITEMS = Number(process.env.SYNC_OFFLINE_ITEMS ?? 20_000);

async function setup() {
  const broker = await startBroker();
  cleanups.push(() => broker.stop());
  return broker;
}

function hubOn(url: string, mode?: 'merged' | 'per-device', maxClockDriftMs?: number) {
  const store = tempDb(cleanups, 'etb-hub-');
  const hub = startHub({ db: store.db, url, ...(mode ? { mode } : {}), ...(maxClockDriftMs !== undefined ? { maxClockDriftMs } : {}) });
  cleanups.push(() => hub.stop());
  return { hub, db: store.db };
}

/** A bare MQTT client that publishes what a test forges, closed after the test. */
async function forgerLink(url: string, clientId: string): Promise<MqttLink> {
  const link = new MqttLink({ url, clientId, reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
  cleanups.push(() => link.close());
  await until(() => link.online, 10_000, 'forger online');
  return link;
}

function withClock<T>(offsetMs: number, fn: () => T): T {
  const real = Date.now;
  Date.now = () => real() + offsetMs;
  try {
    return fn();
  } finally {
    Date.now = real;
  }
}

/** Last-writer-wins oracle from the devices' own logs (kept by retentionMs). */
function expectedWinners(devices: { id: string; db: Edgetable }[]): string[] {
  const best = new Map<string, { version: Version; item: unknown }>();
  for (const { id, db } of devices) {
    for (const shard of db.listShards('Readings')) {
      for (const { bytes } of readShardRaw(db.store, 'Readings', shard.ShardId, 1, 1_000_000)) {
        const r = decodeStreamRecord(bytes);
        if (r.kind !== 'change') continue;
        const key = JSON.stringify(r.keys);
        const version = { hlc: r.hlc, device: id, incarnation: '' };
        const current = best.get(key);
        if (!current || compareVersions(version, current.version) > 0) best.set(key, { version, item: r.eventName === 'REMOVE' ? undefined : r.newImage });
      }
    }
  }
  return [...best.values()]
    .filter((b) => b.item !== undefined)
    .map((b) => {
      const item = b.item as Record<string, { S?: string; N?: string }>;
      return JSON.stringify(Object.keys(item).sort().map((k) => [k, item[k]]));
    })
    .sort();
}

describe('startHub', () => {
  // Two hubs on one namespace used to both apply here; one consumes now, the other stands by (hub-presence.test.ts).
  it('two devices write the same keys with skewed clocks: the hub ends with the last-writer-wins winner per key', async () => {
    const broker = await setup();
    // Clocks up to 2 hours ahead are within this hub's bound (a record further ahead is refused:
    // test/hub/hostile-device.test.ts).
    const hubs = [hubOn(broker.url, undefined, 3 * 3_600_000)];
    await until(() => hubs[0]!.hub.status().role === 'active', 10_000, 'the hub consuming');
    const standby = hubOn(broker.url, undefined, 3 * 3_600_000);
    const a = tempDb(cleanups, 'etb-dev-a-');
    const b = tempDb(cleanups, 'etb-dev-b-');
    createReadings(a.db);
    createReadings(b.db);
    const syncs = [];
    for (const [id, d] of [['dev-a', a.db], ['dev-b', b.db]] as const) {
      const s = await d.startSync({ url: broker.url, deviceId: id, tables: ['Readings'], retentionMs: 3_600_000 });
      cleanups.push(() => s.stop());
      syncs.push(s);
    }
    // dev-a's clock runs an hour ahead; dev-b writes later in real time. Then both write the same
    // keys in the same (frozen) millisecond, so ties are broken by HLC counter and device id.
    withClock(3_600_000, () => writeReadings(a.db, 0, 300));
    writeReadings(b.db, 0, 600);
    const frozen = Date.now() + 7_200_000;
    withClock(frozen - Date.now(), () => {
      const real = Date.now;
      Date.now = () => frozen;
      try {
        writeReadings(a.db, 600, 700);
        writeReadings(b.db, 650, 750);
      } finally {
        Date.now = real;
      }
    });
    b.db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: 's-0' }, ts: { N: '640' } } });
    await Promise.all(syncs.map((s) => s.flushed()));
    const expected = expectedWinners([{ id: 'dev-a', db: a.db }, { id: 'dev-b', db: b.db }]);
    expect(expected).toHaveLength(750);
    for (const h of hubs) expect(tableContents(h.db, 'Readings')).toEqual(expected);
    expect(standby.hub.status().role).toBe('standby');
    expect(standby.hub.status().recordsApplied).toBe(0);
    // dev-a wins every key it wrote in 0..300 despite dev-b's later real-time writes.
    const winner = JSON.parse(tableContents(hubs[0]!.db, 'Readings').find((l) => l.includes('"r5"'))!) as [string, unknown][];
    expect(winner).toEqual(JSON.parse(tableContents(a.db, 'Readings').find((l) => l.includes('"r5"'))!));
  }, 60_000);

  it('collects version records past the horizon on its timer (apply-batch.test.ts: each txn on a worker) and stops cleanly with passes due', async () => {
    const broker = await setup();
    const store = tempDb(cleanups, 'etb-hub-');
    const hub = startHub({ db: store.db, url: broker.url, versionHorizonMs: 1, versionCollectIntervalMs: 50, logPruneIntervalMs: 0 });
    let stopped = false;
    cleanups.push(() => (stopped ? undefined : hub.stop()));
    const device = tempDb(cleanups, 'etb-dev-');
    createReadings(device.db, 'Readings', 1);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'dev-v', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    writeReadings(device.db, 0, 30);
    await sync.flushed();
    await until(() => hub.status().versionsCollected >= 30, 10_000, 'the timer to collect the 30 versions');
    expect(hub.status().lastError).toBeUndefined();
    expect(tableContents(store.db, 'Readings')).toEqual(tableContents(device.db, 'Readings'));
    await hub.stop();
    stopped = true;
  }, 30_000);

  it('rejects and reports a batch published on another device’s topic, applying nothing', async () => {
    const broker = await setup();
    const { hub, db } = hubOn(broker.url);
    const device = tempDb(cleanups, 'etb-dev-');
    createReadings(device.db, 'Readings', 1);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'honest', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    await until(() => hub.status().tables.includes('Readings'), 10_000, 'schema');
    writeReadings(device.db, 0, 10);
    await sync.flushed();
    const records = readShardRaw(device.db.store, 'Readings', 0, 1, 10);
    const forged = encodeSyncBatch({ deviceId: 'mallory', incarnation: 'forged-incarnation', table: 'Readings', tableId: 'forged-table-id', shard: 0, parent: undefined, records: [{ seq: 100, bytes: new Uint8Array([0x80]) }] });
    const link = await forgerLink(broker.url, 'forger');
    link.publish(batchTopic('honest', 'Readings', 0), forged);
    link.publish(batchTopic('honest', 'Readings', 0), new Uint8Array([1, 2, 3]));
    await until(() => hub.status().rejectedTotal >= 2, 10_000, 'rejections');
    const [wrongDevice, malformed] = hub.status().rejected;
    expect(wrongDevice).toMatchObject({ topic: 'edgetable/v1/honest/Readings/0', reason: 'batch of device mallory published on the topic of device honest' });
    expect(malformed!.reason).toMatch(/^malformed batch: /);
    expect(records).toHaveLength(0); // pruned after the ack
    expect(tableContents(db, 'Readings')).toEqual(tableContents(device.db, 'Readings'));
  }, 30_000);

  it('rejects a batch whose image breaks DynamoDB\'s rules (a number beyond 9.99E+125), applying nothing', async () => {
    const broker = await setup();
    const { hub, db } = hubOn(broker.url);
    const device = tempDb(cleanups, 'etb-dev-');
    createReadings(device.db, 'Readings', 1);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'honest', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    await until(() => hub.status().tables.includes('Readings'), 10_000, 'schema');
    writeReadings(device.db, 0, 3);
    await sync.flushed();
    const before = tableContents(db, 'Readings');
    const keys = { sensor: { S: 's-x' }, ts: { N: '1' } };
    const record = encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { N: `1${'0'.repeat(300)}` } }, timeMs: Date.now(), hlc: { ms: Date.now(), counter: 0 }, sizeBytes: 10, ttl: false });
    const forged = encodeSyncBatch({ deviceId: 'honest', incarnation: 'forged-incarnation', table: 'Readings', tableId: 'forged-table-id', shard: 0, parent: undefined, records: [{ seq: 1_000_000, bytes: record }] });
    const link = await forgerLink(broker.url, 'forger-2');
    link.publish(batchTopic('honest', 'Readings', 0), forged);
    await until(() => hub.status().rejectedTotal >= 1, 10_000, 'rejection');
    expect(hub.status().rejected[0]!.reason).toMatch(/Number overflow/);
    expect(tableContents(db, 'Readings')).toEqual(before);
  }, 30_000);

  it(`a device offline for ${OFFLINE_ITEMS} writes catches up; per-device mode keeps its own table`, async () => {
    const broker = await setup();
    const { hub, db } = hubOn(broker.url, 'per-device');
    const device = tempDb(cleanups, 'etb-dev-');
    createReadings(device.db);
    await broker.outage();
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'field-7', tables: ['Readings'], compression: 'deflate' });
    cleanups.push(() => sync.stop());
    writeReadings(device.db, 0, OFFLINE_ITEMS);
    await new Promise((r) => setTimeout(r, 200));
    expect(sync.status()).toMatchObject({ online: false, recordsAcked: 0 });
    expect(sync.status().shards.reduce((n, s) => n + s.lagRecords, 0)).toBe(OFFLINE_ITEMS);
    const started = Date.now();
    await broker.restore();
    await sync.flushed();
    const elapsed = Date.now() - started;
    console.log(`catch-up: ${OFFLINE_ITEMS} records in ${elapsed} ms after reconnecting (${Math.round((OFFLINE_ITEMS / elapsed) * 1000)} records/s, ${(sync.status().wireBytesSent / OFFLINE_ITEMS).toFixed(1)} wire bytes/record deflated)`);
    expect(hub.status().tables).toContain('Readings.field-7'); // a shared broker may hold other devices' retained schemas
    expect(hub.status().tables).not.toContain('Readings');
    expect(tableContents(db, 'Readings.field-7')).toEqual(tableContents(device.db, 'Readings'));
  }, 120_000);

  it("whenFull 'drop-oldest' while offline: the gap record reaches the hub and is reported", async () => {
    const broker = await setup();
    const { hub, db } = hubOn(broker.url);
    const device = tempDb(cleanups, 'etb-dev-');
    createReadings(device.db, 'Readings', 1);
    await broker.outage();
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'small', tables: ['Readings'], outboxBudgetBytes: 20_000, whenFull: 'drop-oldest' });
    cleanups.push(() => sync.stop());
    writeReadings(device.db, 0, 2000);
    expect(sync.status().shards[0]!.lagBytes).toBeLessThanOrEqual(20_000 + 25 * 200);
    await broker.restore();
    await sync.flushed();
    const gaps = hub.status().gaps;
    expect(gaps).toHaveLength(1);
    const hubItems = tableContents(db, 'Readings');
    expect(gaps[0]).toMatchObject({ device: 'small', table: 'Readings', shard: 0, firstSeq: 1, reason: 'dropped by the device outbox (drop-oldest)' });
    expect(gaps[0]!.records + hubItems.length).toBe(2000);
    // What survived is exactly the newest writes.
    expect(hubItems).toEqual(tableContents(device.db, 'Readings').filter((l) => hubItems.includes(l)));
  }, 60_000);
});
