/**
 * Issue 12's acceptance for sync, end to end through a broker (embedded aedes, or MQTT_URL): a
 * device whose table was re-created, whose store was re-flashed, or whose clock stepped back
 * after a split delivers its latest writes to the hub and they win there. Then what the hub
 * cannot apply, and storage errors on either side.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { startHub, type Hub } from '../../src/hub/start-hub.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { StorageError } from '../../src/storage/storage-error.js';

import type { SyncHandle } from '../../src/sync/sync-options.js';
import { connect } from 'mqtt';
import { decodeSyncBatch, encodeSyncAck } from '../../src/sync/protocol/sync-batch.js';
import { ackTopic, parseTopic } from '../../src/sync/protocol/topics.js';
import { startBroker, type TestBroker } from './broker.js';
import { createReadings, tableContents, tempDb, tempPath, until, type Cleanup } from './fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Fails every commit while `broken` (a full SD card reports EIO at commit). */
class BrokenDisk extends FaultInjector {
  broken = false;
  failed = 0;
  override beforeCommit(): void {
    if (this.broken) {
      this.failed += 1;
      throw new StorageError('IO', 'injected fault: disk full');
    }
    super.beforeCommit();
  }
}

// A device id per test run: a shared broker (MQTT_URL) keeps other runs' retained schemas.
const run = Math.random().toString(36).slice(2, 8);

async function setup(): Promise<{ broker: TestBroker; hub: Hub; hubDb: Edgetable }> {
  const broker = await startBroker();
  cleanups.push(() => broker.stop());
  const { db: hubDb } = tempDb(cleanups, 'etb-hub-');
  const hub = startHub({ db: hubDb, url: broker.url, mode: 'per-device' });
  cleanups.push(() => hub.stop());
  return { broker, hub, hubDb };
}

async function sync(db: Edgetable, url: string, deviceId: string, ackTimeoutMs = 1000): Promise<SyncHandle> {
  const s = await db.startSync({ url, deviceId, tables: ['Readings'], ackTimeoutMs });
  cleanups.push(() => s.stop());
  return s;
}

function write(db: Edgetable, from: number, to: number, value: string): void {
  for (let i = from; i < to; i++) db.putItem({ TableName: 'Readings', Item: { sensor: { S: `s-${i % 4}` }, ts: { N: String(i) }, v: { S: value } } });
}

/** The `v` of every item, in key order. */
function values(db: Edgetable, table: string): string[] {
  return tableContents(db, table).map((line) => (JSON.parse(line) as [string, { S?: string }][]).find(([k]) => k === 'v')![1].S!);
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

describe('sync in the field', () => {
  it('a deleted and re-created table is a new stream: its writes (sequence numbers from 1 again) reach the hub and win', async () => {
    const { broker, hub, hubDb } = await setup();
    const device = `recreate-${run}`;
    const { db } = tempDb(cleanups, 'etb-dev-');
    createReadings(db, 'Readings', 1);
    let s = await sync(db, broker.url, device, 15_000);
    write(db, 0, 40, 'first');
    await s.flushed();
    await s.stop();
    db.deleteTable({ TableName: 'Readings' });
    createReadings(db, 'Readings', 1);
    write(db, 0, 20, 'second'); // sequences 1..20: all at or below the old stream's 40
    s = await sync(db, broker.url, device);
    await s.flushed();
    const hubTable = `Readings.${device}`;
    const got = values(hubDb, hubTable);
    expect(got.filter((v) => v === 'second')).toHaveLength(20); // every write of the new table
    expect(got.filter((v) => v === 'first')).toHaveLength(20); // keys 20..39, which it did not write
    expect(hub.status().duplicateRecords).toBe(0);
  }, 60_000);

  it('a running agent picks up a table re-created under it', async () => {
    const { broker, hubDb } = await setup();
    const device = `live-recreate-${run}`;
    const { db } = tempDb(cleanups, 'etb-dev-');
    createReadings(db, 'Readings', 1);
    const s = await sync(db, broker.url, device);
    write(db, 0, 10, 'first');
    await s.flushed();
    db.deleteTable({ TableName: 'Readings' });
    createReadings(db, 'Readings', 1);
    write(db, 0, 10, 'second');
    await until(() => values(hubDb, `Readings.${device}`).every((v) => v === 'second'), 20_000, 'the re-created table to reach the hub');
    await s.flushed();
    expect(s.status().shards.every((x) => x.lagRecords === 0)).toBe(true);
  }, 60_000);

  it('a re-flashed store under the same device id is a new incarnation: its writes reach the hub and win', async () => {
    const { broker, hub, hubDb } = await setup();
    const device = `reflash-${run}`;
    const path = tempPath(cleanups, 'etb-dev-');
    let db = open({ path });
    createReadings(db, 'Readings', 1);
    let s = await sync(db, broker.url, device, 15_000);
    const before = s.status().incarnation;
    write(db, 0, 30, 'before');
    await s.flushed();
    await s.stop();
    db.close();
    rmSync(path, { recursive: true, force: true }); // the SD card is re-flashed
    db = open({ path });
    const reopened = db;
    cleanups.push(() => {
      if (!reopened.store.closed) reopened.close();
    });
    createReadings(db, 'Readings', 1);
    write(db, 0, 10, 'after');
    // A long ack time-out: a page resent only because a loaded machine acked it late would count
    // as a duplicate, and this test is about the new incarnation's records never being taken for
    // the old one's.
    s = await sync(db, broker.url, device, 15_000);
    expect(s.status().incarnation).not.toBe(before);
    await s.flushed();
    const got = values(hubDb, `Readings.${device}`);
    expect(got.filter((v) => v === 'after')).toHaveLength(10);
    expect(got.filter((v) => v === 'before')).toHaveLength(20);
    expect(hub.status().duplicateRecords).toBe(0);
  }, 60_000);

  it('a device whose clock stepped back after a split: its later writes win at the hub', async () => {
    const { broker, hubDb } = await setup();
    const device = `stepback-${run}`;
    const { db } = tempDb(cleanups, 'etb-dev-');
    createReadings(db, 'Readings', 1);
    const s = await sync(db, broker.url, device);
    withClock(3_600_000, () => write(db, 0, 40, 'early')); // before NTP: an hour ahead
    await s.flushed();
    const split = db.splitPartition('Readings', 0)!;
    expect(split).toBeDefined();
    write(db, 0, 40, 'late'); // NTP answered: the wall clock is an hour behind the writes above
    await s.flushed();
    expect(values(db, 'Readings').every((v) => v === 'late')).toBe(true);
    expect(values(hubDb, `Readings.${device}`)).toEqual(values(db, 'Readings'));
    expect(db.listShards('Readings').find((x) => x.ShardId === 0)!.Open).toBe(false);
  }, 60_000);

  it('bounded drift: writes stamped far in the future are refused at the hub (never applied by their clock), and the device reports them and its clock ahead', async () => {
    const { broker, hub, hubDb } = await setup();
    const device = `future-${run}`;
    const { db } = tempDb(cleanups, 'etb-dev-');
    createReadings(db, 'Readings', 1);
    const s = await sync(db, broker.url, device);
    withClock(3 * 3_600_000, () => write(db, 0, 5, 'future')); // the wall clock three hours ahead
    await s.flushed();
    expect(hub.status()).toMatchObject({ clockRefused: 5, recordsApplied: 0, deadLetteredRecords: 5 });
    expect(values(hubDb, `Readings.${device}`)).toEqual([]);
    expect(hub.status().clock.ms).toBeLessThan(Date.now() + 3_600_000);
    const status = s.status();
    expect(status.clockAhead).toBeGreaterThanOrEqual(1);
    expect(status.rejectedWrites).toBe(5);
    expect(status.lastRejections.every((r) => r.reason.startsWith('clock ahead: ') && !r.restored)).toBe(true);
    expect(status.lastError).toMatch(/^hub refused 5 write\(s\) to Readings: clock ahead: /);
    // An up-only table keeps its copies: the hub holds them in its dead-letter table, not in place of them.
    expect(values(db, 'Readings')).toEqual(['future', 'future', 'future', 'future', 'future']);
    // Its store clock stays ahead (it never goes back): a write made now is stamped after them, and refused too.
    write(db, 5, 6, 'now');
    await s.flushed();
    expect(hub.status()).toMatchObject({ clockRefused: 6, recordsApplied: 0 });
  }, 60_000);

  it('a batch the hub cannot apply is refused: the device moves on and shows it in its status', async () => {
    // A hub refuses what it cannot apply (a record failing DynamoDB's validation: test/replication/apply-batch.test.ts
    // proves the dead-letter side). A device's own writes always pass, and a table the hub holds with
    // another key schema is a conflict, not a refusal (schema-conflict.test.ts), so a scripted hub
    // answers here: it refuses every batch of the device as a hub would, up to its last record.
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const device = `refused-${run}`;
    const hub = connect(broker.url, { clientId: `refusing-hub-${run}`, protocolVersion: 4, reconnectPeriod: 0 });
    cleanups.push(() => new Promise<void>((r) => hub.end(true, {}, () => r())));
    let refusedBatches = 0;
    hub.on('message', (topic, payload) => {
      const t = parseTopic(topic);
      if (t.kind !== 'batch') return;
      const batch = decodeSyncBatch(payload);
      refusedBatches += 1;
      const seq = batch.records[batch.records.length - 1]!.seq;
      hub.publish(ackTopic(device), Buffer.from(encodeSyncAck({ incarnation: batch.incarnation, table: batch.table, tableId: batch.tableId, shard: batch.shard, seq, status: 'refused', message: `record ${seq}: One or more parameter values were invalid`, hubClock: { ms: Date.now(), counter: 0 } })), { qos: 1 });
    });
    await hub.subscribeAsync(`edgetable/v1/${device}/+/+`, { qos: 1 });
    const { db } = tempDb(cleanups, 'etb-dev-');
    createReadings(db, 'Readings', 1);
    const s = await sync(db, broker.url, device);
    write(db, 0, 25, 'x');
    await s.flushed(); // resolves: the refusal moved the cursor
    const status = s.status();
    expect(status.refusedRecords).toBe(25);
    expect(status.refusedBatches).toBe(refusedBatches);
    expect(status.lastError).toMatch(/hub refused Readings\/0 up to 25 \(kept in its dead-letter table\): record \d+: /);
    expect(status.shards[0]).toMatchObject({ lagRecords: 0, refused: { records: 25 } });
    expect(db.replica.syncStatus(['Readings'])[0]!.refused).toMatchObject({ batches: status.refusedBatches, records: 25 }); // what `edgetable sync status` shows
  }, 60_000);

  it('storage errors never stop the agent or the hub: counted, reported, retried, and both recover when space comes back', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const hubDisk = new BrokenDisk();
    const hubDb = open({ path: tempPath(cleanups, 'etb-hub-'), faults: hubDisk });
    cleanups.push(() => {
      if (!hubDb.store.closed) hubDb.close();
    });
    const hub = startHub({ db: hubDb, url: broker.url, mode: 'per-device' });
    cleanups.push(() => hub.stop());
    const deviceDisk = new BrokenDisk();
    const db = open({ path: tempPath(cleanups, 'etb-dev-'), faults: deviceDisk });
    cleanups.push(() => {
      if (!db.store.closed) db.close();
    });
    const device = `full-disk-${run}`;
    createReadings(db, 'Readings', 1);
    const s = await sync(db, broker.url, device);
    await until(() => hub.status().tables.includes(`Readings.${device}`), 20_000, 'the schema');
    write(db, 0, 30, 'a');
    // The hub's disk fills: batches are answered 'retry' and counted; the device keeps them.
    hubDisk.broken = true;
    await until(() => hub.status().applyErrors >= 2 && s.status().rejectedAcks >= 2, 20_000, 'the hub to fail and answer retry');
    expect(hub.status().lastError).toMatch(/disk full/);
    expect(s.status().lastError).toMatch(/the hub could not apply the batch: .*disk full/);
    expect(s.status().shards[0]!.lagRecords).toBe(30);
    // The device's disk fills too: its ack txns fail; the agent counts, reports and backs off.
    deviceDisk.broken = true;
    hubDisk.broken = false;
    await until(() => s.status().storageErrors >= 1, 20_000, 'the agent to hit the device storage error');
    expect(s.status().lastError).toMatch(/disk full/);
    expect(() => write(db, 30, 31, 'refused')).toThrow(StorageError); // foreground writes get a clear error
    expect(values(db, 'Readings')).toHaveLength(30); // reads keep working
    deviceDisk.broken = false;
    await s.flushed();
    expect(values(hubDb, `Readings.${device}`)).toEqual(values(db, 'Readings'));
    expect(hub.status().online).toBe(true);
    expect(s.status().online).toBe(true);
  }, 90_000);
});
