/**
 * The hub-apply phase of the slowsync suite (bench/suites/slowsync.ts), in its own process started
 * with libslowsync.so preloaded so every flush takes SLOWSYNC_MS. argv[2]: JSON { path, budgetMs,
 * devices, records }. Prints one JSON line (HubApplyFigures) on stdout.
 *
 * One process holds an embedded aedes broker, a hub (startHub, store in durability 'sync': an ack
 * means the batch is on disk) and `devices` plain MQTT clients. Each device announces a schema and
 * then publishes pre-encoded batches of `records` records, one at a time, the next after the
 * hub's ack (as a sync agent does per shard). Devices carry no store, so the only flushes in the
 * process are the hub's. Meanwhile a 1 ms interval timer records its lateness and
 * perf_hooks.monitorEventLoopDelay the loop's delay: how long the hub keeps its event loop (its
 * MQTT keepalives, its API, its down publisher) waiting while it applies batches.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { connectAsync, type MqttClient } from 'mqtt';
import { open } from '../src/edgetable.js';
import { startHub } from '../src/hub/start-hub.js';
import { benchBroker } from './bench-broker.js';
import { withTimer } from './timer-lateness.js';
import { encodeChangeRecord } from '../src/stream/change-record.js';
import { decodeSyncAck, encodeSyncBatch } from '../src/sync/protocol/sync-batch.js';
import { schemaTopic, batchTopic, ackTopic } from '../src/sync/protocol/topics.js';

type Args = { path: string; budgetMs: number; devices: number; records: number };
export type HubApplyFigures = {
  devices: number;
  recordsPerBatch: number;
  batches: number;
  seconds: number;
  batchesPerSecond: number;
  worstTimerDelayMs: number;
  p99TimerDelayMs: number;
  /** perf_hooks.monitorEventLoopDelay (10 ms resolution sampling of the loop's delay). */
  loopDelayMaxMs: number;
  hubFlushes: number;
  /** Time the event loop spent in each of the hub's write txns (recording, or commit with flushes on this thread): median / max. */
  writeHeldMedianMs: number | null;
  writeHeldMaxMs: number | null;
  asyncCommits: { committed: number; conflicts: number; onThisThread: number };
};

const args = JSON.parse(process.argv[2]!) as Args;
const TABLE = 'Readings';
const broker = await benchBroker(undefined);
const url = broker.url;
const db = open({ path: args.path, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
// Times every write txn the hub runs on this thread (Store's private runWrite): a synchronous
// commit with its flushes, or the recorded txn of store.writeAsync (its commit runs on a worker).
let held: number[] = [];
type RunWrite = (fn: unknown, group: boolean, recording: unknown) => unknown;
const internals = db.store as unknown as { runWrite: RunWrite };
const runWrite = internals.runWrite.bind(db.store);
internals.runWrite = (fn, group, recording) => {
  const t0 = performance.now();
  try {
    return runWrite(fn, group, recording);
  } finally {
    held.push(performance.now() - t0);
  }
};
const hub = startHub({ db, url, mode: 'merged' });
await until(() => hub.status().online, 20_000, 'the hub to connect');

const schema = (device: string) =>
  JSON.stringify({ version: 1, TableName: TABLE, KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }], AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }], announcedAtMs: Date.now(), incarnation: `inc-${device}`, TableId: `tid-${device}` });

/**
 * One device: publishes batch n+1 once batch n is acknowledged 'applied', until `deadline`. Its
 * first batch (the hub creates the table, its first commits make the hub's bookkeeping databases)
 * is sent by `warmUp` before the measurement starts.
 */
function device(client: MqttClient, name: string): { warmUp: () => Promise<void>; run: (deadline: number) => Promise<number> } {
  let seq = 0;
  let acked: (() => void) | undefined;
  client.on('message', (_topic, payload) => {
    const ack = decodeSyncAck(payload);
    if (ack.status === 'applied' && ack.seq === seq) acked?.();
  });
  const warmUp = async () => {
    await client.subscribeAsync(ackTopic(name), { qos: 1 });
    await client.publishAsync(schemaTopic(name, TABLE), schema(name), { qos: 1, retain: true });
    await sendOne();
  };
  const run = async (deadline: number) => {
    let batches = 0;
    while (performance.now() < deadline) {
      await sendOne();
      batches += 1;
    }
    return batches;
  };
  return { warmUp, run };

  async function sendOne(): Promise<void> {
    const records = Array.from({ length: args.records }, () => {
      seq += 1;
      const now = Date.now();
      const keys = { sensorId: { S: `${name}-s${seq % 16}` }, ts: { N: String(now * 1000 + seq) } };
      return { seq, bytes: encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, temperature: { N: '21.5' }, humidity: { N: '40.1' } }, timeMs: now, hlc: { ms: now, counter: 0 }, sizeBytes: 60, ttl: false }) };
    });
    const payload = encodeSyncBatch({ deviceId: name, incarnation: `inc-${name}`, table: TABLE, tableId: `tid-${name}`, shard: 0, parent: undefined, records });
    const done = new Promise<void>((resolve) => (acked = resolve));
    await client.publishAsync(batchTopic(name, TABLE, 0), Buffer.from(payload), { qos: 1 });
    // A batch sent before the hub created the table is answered 'retry': send it again.
    while (!(await Promise.race([done.then(() => true), sleep(500).then(() => false)]))) await client.publishAsync(batchTopic(name, TABLE, 0), Buffer.from(payload), { qos: 1 });
  }
}

const clients = await Promise.all(Array.from({ length: args.devices }, (_, i) => connectAsync(url, { clientId: `bench-dev-${i}`, protocolVersion: 4, reconnectPeriod: 0 })));
for (const c of clients) (c.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
const devices = clients.map((c, i) => device(c, `dev-${i}`));
for (const d of devices) await d.warmUp();
held = [];

const flushesBefore = db.store.flushCount;
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const started = performance.now();
const { result: counts, worstMs, p99Ms } = await withTimer(() => Promise.all(devices.map((d) => d.run(started + args.budgetMs))));
const seconds = (performance.now() - started) / 1000;
histogram.disable();
held.sort((a, b) => a - b);
const batches = counts.reduce((a, b) => a + b, 0);
const figures: HubApplyFigures = {
  devices: args.devices,
  recordsPerBatch: args.records,
  batches,
  seconds,
  batchesPerSecond: batches / seconds,
  worstTimerDelayMs: worstMs,
  p99TimerDelayMs: p99Ms,
  loopDelayMaxMs: histogram.max / 1e6,
  hubFlushes: db.store.flushCount - flushesBefore,
  writeHeldMedianMs: held[Math.floor(held.length / 2)] ?? null,
  writeHeldMaxMs: held[held.length - 1] ?? null,
  asyncCommits: db.store.asyncCommitStats,
};
const status = hub.status();
if (status.lastError !== undefined) process.stderr.write(`hub lastError: ${status.lastError}\n`);
for (const c of clients) await c.endAsync(true);
await hub.stop();
db.close();
await broker.close();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
