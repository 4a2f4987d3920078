/**
 * The hub commits device batches off the event loop (start-hub.ts, replica.ts applyHubBatch on
 * db.promises' commit queue, which commits by store.writeAsync) and keeps the guarantees of a synchronous commit: an
 * ack only once the batch is durable, one device's batches applied and acknowledged in the order
 * sent, a redelivered batch a duplicate, stop() waiting for the batch in hand.
 *
 * The hub store's durable writes (store.writeAsync, whose worker commit flushes) take 100 ms
 * more, half before the txn is recorded and half after the commit, so an ack sent before its
 * commit completed, or a batch applied while the previous one is still committing, shows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type MqttClient } from 'mqtt';
import { open, type Edgetable } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { decodeSyncAck, encodeSyncBatch, type SyncAck } from '../../src/sync/protocol/sync-batch.js';
import { ackTopic, batchTopic } from '../../src/sync/protocol/topics.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tableContents, tempPath, until, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const FLUSH_DELAY_MS = 100;

/** Records seq from..to of device dev-1 (one item each), as one batch's payload. */
function batch(from: number, to: number): Buffer {
  const records = [];
  for (let seq = from; seq <= to; seq++) {
    const keys = { sensor: { S: 's-1' }, ts: { N: String(seq) } };
    const ms = Date.now();
    records.push({ seq, bytes: encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { N: String(seq) } }, timeMs: ms, hlc: { ms, counter: seq }, sizeBytes: 20, ttl: false }) });
  }
  return Buffer.from(encodeSyncBatch({ deviceId: 'dev-1', incarnation: 'inc-1', table: 'Readings', tableId: 'tid-1', shard: 0, parent: undefined, records }));
}

type Probe = { db: Edgetable; durable: () => number; recordedWithDurable: number[] };

/** A hub store whose durable writes take FLUSH_DELAY_MS more, counting those that completed. */
function slowHubStore(): Probe {
  const faults = new FaultInjector();
  const db = open({ path: tempPath(cleanups, 'etb-hub-async-'), faults });
  cleanups.push(() => (db.store.closed ? undefined : db.close()));
  createReadings(db, 'Readings', 1);
  let durable = 0;
  const writeAsync = db.store.writeAsync.bind(db.store);
  const pause = () => new Promise((r) => setTimeout(r, FLUSH_DELAY_MS / 2));
  db.store.writeAsync = async (fn) => {
    await pause();
    const result = await writeAsync(fn);
    await pause();
    durable += 1;
    return result;
  };
  // Each batch's txn is recorded (on the event loop) before its replay; note how many flushes had completed.
  const recordedWithDurable: number[] = [];
  faults.betweenRecordAndReplay = () => void recordedWithDurable.push(durable);
  return { db, durable: () => durable, recordedWithDurable };
}

async function device(url: string): Promise<{ client: MqttClient; acks: { ack: SyncAck; durable: number }[] }> {
  const client = connect(url, { clientId: 'dev-1', protocolVersion: 4, reconnectPeriod: 0 });
  cleanups.push(() => new Promise<void>((r) => client.end(true, {}, () => r())));
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await client.subscribeAsync(ackTopic('dev-1'), { qos: 1 });
  return { client, acks: [] };
}

describe('startHub commits batches off the event loop', () => {
  it('acknowledges each batch only once it is durable, in the order sent; a redelivery is a duplicate', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const probe = slowHubStore();
    const appliedAtRejection: number[] = [];
    const hub = startHub({ db: probe.db, url: broker.url, onReject: () => appliedAtRejection.push(hub.status().batchesApplied) });
    cleanups.push(() => hub.stop());
    await until(() => hub.status().online, 10_000, 'hub online');
    const dev = await device(broker.url);
    dev.client.on('message', (_t, payload) => dev.acks.push({ ack: decodeSyncAck(payload), durable: probe.durable() }));

    // The first batch creates the hub's bookkeeping databases: that commit runs on the event loop
    // (store.writeAsync cannot replay a txn that creates a database). Every later one is replayed.
    dev.client.publish(batchTopic('dev-1', 'Readings', 0), batch(1, 5), { qos: 1 });
    await until(() => dev.acks.length === 1, 15_000, 'the first ack');
    const before = { durable: probe.durable(), stats: probe.db.store.asyncCommitStats };

    // Three batches back to back: the hub takes each only after the previous one was answered.
    for (const [from, to] of [[6, 10], [11, 15], [16, 20]] as const) dev.client.publish(batchTopic('dev-1', 'Readings', 0), batch(from, to), { qos: 1 });
    await until(() => dev.acks.length === 4, 15_000, 'four acks');
    expect(dev.acks.map((a) => [a.ack.status, a.ack.seq])).toEqual([['applied', 5], ['applied', 10], ['applied', 15], ['applied', 20]]);
    // The nth ack left after the nth flush completed; the nth batch was recorded after the (n-1)th flushed.
    dev.acks.forEach((a, i) => expect(a.durable).toBeGreaterThanOrEqual(i + 1));
    expect(probe.recordedWithDurable).toEqual([before.durable, before.durable + 1, before.durable + 2]);
    expect(probe.db.store.asyncCommitStats.committed - before.stats.committed).toBe(3);
    expect(probe.db.store.asyncCommitStats.onThisThread).toBe(before.stats.onThisThread);
    expect(tableContents(probe.db, 'Readings')).toHaveLength(20);

    // The third batch again (its ack lost, say): nothing changes, it is acknowledged up to 20.
    dev.client.publish(batchTopic('dev-1', 'Readings', 0), batch(11, 15), { qos: 1 });
    await until(() => dev.acks.length === 5, 15_000, 'the redelivery ack');
    expect(dev.acks[4]!.ack).toMatchObject({ status: 'applied', seq: 20 });
    expect(hub.status()).toMatchObject({ batchesApplied: 5, recordsApplied: 20, duplicateRecords: 5, applyErrors: 0 });
    expect(tableContents(probe.db, 'Readings')).toHaveLength(20);

    // Messages are answered in the order received: garbage sent right after a batch is rejected
    // only once that batch was applied (the next message waits while a commit is in flight).
    dev.client.publish(batchTopic('dev-1', 'Readings', 0), batch(21, 25), { qos: 1 });
    dev.client.publish(batchTopic('dev-1', 'Readings', 0), Buffer.from('not a batch'), { qos: 1 });
    await until(() => appliedAtRejection.length === 1, 15_000, 'the rejection');
    expect(appliedAtRejection).toEqual([6]);
    await until(() => dev.acks.length === 6, 15_000, 'the last ack');
    expect(dev.acks[5]!.ack).toMatchObject({ status: 'applied', seq: 25 });
  }, 30_000);

  it('stop() waits for the batch being committed before it returns', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const probe = slowHubStore();
    const hub = startHub({ db: probe.db, url: broker.url });
    await until(() => hub.status().online, 10_000, 'hub online');
    const dev = await device(broker.url);
    dev.client.on('message', (_t, payload) => dev.acks.push({ ack: decodeSyncAck(payload), durable: probe.durable() }));
    dev.client.publish(batchTopic('dev-1', 'Readings', 0), batch(1, 5), { qos: 1 });
    await until(() => dev.acks.length === 1, 15_000, 'the first ack');
    dev.client.publish(batchTopic('dev-1', 'Readings', 0), batch(6, 10), { qos: 1 });
    await until(() => probe.recordedWithDurable.length === 1, 10_000, 'the second batch recorded');
    const durable = probe.durable();
    await hub.stop();
    // Its commit and flush completed before stop() returned: the store can close, the batch is there.
    expect(probe.durable()).toBe(durable + 1);
    probe.db.close();
    const reopened = open({ path: probe.db.store.path });
    expect(tableContents(reopened, 'Readings')).toHaveLength(10);
    reopened.close();
  }, 30_000);
});
