/**
 * Suite `sync`: a device syncing to a hub over MQTT, end to end.
 *
 * Broker: Mosquitto (or any broker) at MQTT_URL when set, else an embedded aedes broker; the report
 * says which. The hub runs in its own process (bench/sync-hub-child.ts, durable store: acks mean
 * on disk); the device (relaxed store, so the device's fsync does not cap the pipeline; a readings
 * table of 4 partitions, so 4 shards are in flight) runs here.
 *
 * - Streaming: readings are written in BatchWriteItem x25 while the agent runs (the loop yields to
 *   the event loop every few batches), then `sync.flushed()` is awaited; records/s from the first
 *   write to the last acknowledgement. Once with compression 'none', once with 'deflate'.
 * - Catch-up: the agent is started once (the table becomes synced) and stopped; 100,000 readings
 *   are written while it is offline; then it starts again and `flushed()` is timed.
 * - Wire size: bytes per record the agent published (SyncStatus.wireBytesSent / recordsAcked), and
 *   for the streaming run's exact records, read back from the shards: the sync batches re-encoded
 *   1000 records at a time (the agent's largest batch) against the DynamoDB Streams JSON records of
 *   the same changes (spec §6.10, StreamViewType NEW_IMAGE, as a GetRecords page of 1000 records),
 *   both plain and with raw DEFLATE.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { wireItem } from '../contenders/edgetable.js';
import { SENSORS, reading } from '../workload.js';
import { fixed, int, table, yieldToLoop, type SuiteOptions, type SuiteReport } from '../suite.js';
import { benchDir, openBenchStore } from './readings-table.js';
import type { HubChildMessage, HubSummary } from '../sync-hub-child.js';
import type { Edgetable } from '../../src/edgetable.js';
import type { Compression } from '../../src/sync/protocol/sync-batch.js';
import { encodeSyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { readShardRaw } from '../../src/stream/stream-reader.js';
import { schemaTopic } from '../../src/sync/protocol/topics.js';

const here = dirname(fileURLToPath(import.meta.url));
const SIZES = {
  full: { streamRecords: 40_000, catchUpRecords: 100_000 },
  quick: { streamRecords: 5_000, catchUpRecords: 10_000 },
};
const PARTITIONS = 4;
/** Batches written between two turns of the event loop in the streaming runs. */
const BATCHES_PER_TURN = 8;
const GET_RECORDS_PAGE = 1000;
const WARM_RECORDS = 2000;

interface Run {
  name: string;
  table: string;
  compression: Compression;
  records: number;
  /** From the first write to flushed(), seconds. */
  seconds: number;
  /** Time spent writing (streaming: while syncing; catch-up: while offline), seconds. */
  writeSeconds: number;
  recordsPerSecond: number;
  wireBytes: number;
  batches: number;
  recordsAcked: number;
}

interface WireSize {
  records: number;
  syncNone: number;
  syncDeflate: number;
  streamsJson: number;
  streamsJsonDeflate: number;
}

export async function runSyncSuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const sizes = quick ? SIZES.quick : SIZES.full;
  const hubDir = benchDir('sync-hub');
  const deviceId = `bench-${process.pid}`;
  const tables = ['SyncStream', 'SyncDeflate', 'SyncCatchUp'];
  const hub = await startHubChild(hubDir.path, process.env.MQTT_URL);
  log(`sync: broker ${hub.broker} at ${hub.url}`);
  const runs: Run[] = [];
  let wire: WireSize | undefined;
  let summary: HubSummary | undefined;
  try {
    const stream = await streaming(hub.url, deviceId, tables[0]!, 'none', sizes.streamRecords, log, (db) => (wire = wireSizes(db, tables[0]!)));
    runs.push(stream, await streaming(hub.url, deviceId, tables[1]!, 'deflate', sizes.streamRecords, log));
    runs.push(await catchUp(hub.url, deviceId, tables[2]!, sizes.catchUpRecords, log));
  } finally {
    summary = await hub.stop(tables.map((t) => schemaTopic(deviceId, t)));
    hubDir.remove();
  }
  const data = { sizes, broker: hub.broker, brokerUrl: hub.url, partitions: PARTITIONS, runs, wire, hub: summary };
  return { suite: 'sync', date: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds: (performance.now() - started) / 1000, markdown: render(data), data };
}

function deviceStore(table: string): { db: Edgetable; remove(): void } {
  const dir = benchDir(`sync-${table}`);
  const db = openBenchStore(dir.path, 'relaxed', 512 * 2 ** 20);
  db.createTable({
    TableName: table,
    KeySchema: [
      { AttributeName: 'sensorId', KeyType: 'HASH' },
      { AttributeName: 'ts', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'sensorId', AttributeType: 'S' },
      { AttributeName: 'ts', AttributeType: 'N' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: PARTITIONS,
  });
  return {
    db,
    remove: () => {
      if (!db.store.closed) db.close();
      dir.remove();
    },
  };
}

/** Writes readings [from, to) as BatchWriteItem x25; yields every few batches when `yielding`. */
async function writeReadings(db: Edgetable, table: string, from: number, to: number, yielding: boolean): Promise<void> {
  let batches = 0;
  for (let n = from; n < to; n += 25) {
    const puts = [];
    for (let k = n; k < Math.min(to, n + 25); k++) puts.push({ PutRequest: { Item: wireItem(reading(k % SENSORS, Math.floor(k / SENSORS))) } });
    db.batchWriteItem({ RequestItems: { [table]: puts } });
    if (yielding && ++batches % BATCHES_PER_TURN === 0) await yieldToLoop();
  }
}

async function streaming(url: string, deviceId: string, table: string, compression: Compression, records: number, log: (line: string) => void, inspect?: (db: Edgetable) => void): Promise<Run> {
  const device = deviceStore(table);
  try {
    // Acknowledged records are kept (retentionMs) so the wire-size comparison can read them back.
    const sync = await device.db.startSync({ url, deviceId, tables: [table], compression, retentionMs: 3_600_000 });
    try {
      // Warm-up (JIT, first batches, the broker's topic state): written and acknowledged untimed.
      await writeReadings(device.db, table, records, records + WARM_RECORDS, true);
      await sync.flushed();
      const before = sync.status();
      const t0 = performance.now();
      await writeReadings(device.db, table, 0, records, true);
      const writeSeconds = (performance.now() - t0) / 1000;
      await sync.flushed();
      const seconds = (performance.now() - t0) / 1000;
      const s = sync.status();
      const run: Run = {
        name: `streaming, ${compression === 'none' ? 'no compression' : 'deflate'}`,
        table,
        compression,
        records,
        seconds,
        writeSeconds,
        recordsPerSecond: records / seconds,
        wireBytes: s.wireBytesSent - before.wireBytesSent,
        batches: s.batchesSent - before.batchesSent,
        recordsAcked: s.recordsAcked - before.recordsAcked,
      };
      log(`sync: ${run.name}: ${int(run.recordsPerSecond)} records/s (${int(records)} in ${fixed(seconds, 2)} s, writes took ${fixed(writeSeconds, 2)} s), ${run.batches} batches`);
      inspect?.(device.db);
      return run;
    } finally {
      await sync.stop();
    }
  } finally {
    device.remove();
  }
}

async function catchUp(url: string, deviceId: string, table: string, records: number, log: (line: string) => void): Promise<Run> {
  const device = deviceStore(table);
  try {
    const first = await device.db.startSync({ url, deviceId, tables: [table] });
    await first.flushed();
    await first.stop();
    const w0 = performance.now();
    await writeReadings(device.db, table, 0, records, false);
    const writeSeconds = (performance.now() - w0) / 1000;
    log(`sync: wrote ${int(records)} readings offline in ${fixed(writeSeconds, 1)} s`);
    const t0 = performance.now();
    const sync = await device.db.startSync({ url, deviceId, tables: [table] });
    try {
      await sync.flushed();
      const seconds = (performance.now() - t0) / 1000;
      const s = sync.status();
      const run: Run = { name: 'catch-up after offline', table, compression: 'none', records, seconds, writeSeconds, recordsPerSecond: records / seconds, wireBytes: s.wireBytesSent, batches: s.batchesSent, recordsAcked: s.recordsAcked };
      log(`sync: catch-up of ${int(records)} records in ${fixed(seconds, 2)} s, ${s.batchesSent} batches`);
      return run;
    } finally {
      await sync.stop();
    }
  } finally {
    device.remove();
  }
}

/** The same records as sync batches and as DynamoDB Streams JSON, both in pages of 1000. */
function wireSizes(db: Edgetable, table: string): WireSize {
  const w: WireSize = { records: 0, syncNone: 0, syncDeflate: 0, streamsJson: 0, streamsJsonDeflate: 0 };
  for (const shard of db.listShards(table)) {
    for (let from = 1; ; ) {
      const raw = readShardRaw(db.store, table, shard.ShardId, from, GET_RECORDS_PAGE);
      if (raw.length === 0) break;
      const batch = { deviceId: 'bench-device', incarnation: '00000000-0000-4000-8000-000000000000', table, tableId: '00000000-0000-4000-8000-000000000001', shard: shard.ShardId, parent: shard.ParentShardId, records: raw };
      w.syncNone += encodeSyncBatch(batch, 'none').length;
      w.syncDeflate += encodeSyncBatch(batch, 'deflate').length;
      const views = db.readShard(table, shard.ShardId, { fromSeq: from, limit: GET_RECORDS_PAGE, viewType: 'NEW_IMAGE' }).Records;
      const page = Buffer.from(JSON.stringify({ Records: views.map((v) => streamsRecord(shard.ShardId, v)) }));
      w.streamsJson += page.length;
      w.streamsJsonDeflate += deflateRawSync(page).length;
      w.records += raw.length;
      from = raw[raw.length - 1]!.seq + 1;
    }
  }
  return w;
}

type View = ReturnType<Edgetable['readShard']>['Records'][number];

/**
 * A record exactly as DynamoDB Streams' GetRecords returns it (spec §6.10): a 32-hex eventID, the
 * region, a 21-digit SequenceNumber, StreamViewType NEW_IMAGE (the hub needs the new item).
 */
function streamsRecord(shard: number, v: View): unknown {
  const seq = Number(v.dynamodb.SequenceNumber);
  return {
    eventID: createHash('md5').update(`${shard}/${seq}`).digest('hex'),
    eventName: v.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: v.dynamodb.ApproximateCreationDateTime,
      Keys: v.dynamodb.Keys,
      ...(v.dynamodb.NewImage ? { NewImage: v.dynamodb.NewImage } : {}),
      SequenceNumber: `${100 + shard}${String(seq).padStart(18, '0')}`,
      SizeBytes: v.dynamodb.SizeBytes,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

async function startHubChild(path: string, url: string | undefined): Promise<{ url: string; broker: string; stop(clearRetained: string[]): Promise<HubSummary> }> {
  const child = fork(join(here, '..', 'sync-hub-child.ts'), [JSON.stringify({ path, ...(url ? { url } : {}) })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<HubChildMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`sync hub process exited with code ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as HubChildMessage);
      });
    });
  const ready = await next();
  if (!('ready' in ready)) {
    child.kill();
    throw new Error(`sync hub: ${'error' in ready ? ready.error : 'unexpected message'}`);
  }
  return {
    url: ready.ready.url,
    broker: ready.ready.broker === 'external' ? `MQTT_URL (${ready.ready.url})` : 'embedded aedes (MQTT_URL not set)',
    async stop(clearRetained) {
      const stopped = next();
      child.send({ stop: { clearRetained } });
      const m = await stopped;
      if (!('stopped' in m)) throw new Error(`sync hub: ${'error' in m ? m.error : 'unexpected message'}`);
      return m.stopped;
    },
  };
}

function render(d: { sizes: typeof SIZES.full; broker: string; runs: Run[]; wire: WireSize | undefined; hub: HubSummary | undefined }): string {
  const lines = [
    '### Sync to a hub over MQTT (`--suite sync`)',
    '',
    `Broker: ${d.broker}. Hub in its own process (durable store: an ack means the batch is committed and fsync'd); device in the bench process, relaxed store, readings table of ${PARTITIONS} partitions (4 shards in flight), 180-byte sensor readings written with BatchWriteItem x25. Records/s = records from the first write to \`sync.flushed()\` (every record acknowledged by the hub).`,
    '',
    ...table(
      ['run', 'records', 'records/s (write -> hub ack)', 'total', 'writing', 'batches', 'wire bytes per record'],
      d.runs.map((r) => [
        r.name,
        int(r.records),
        int(r.recordsPerSecond),
        `${fixed(r.seconds, 2)} s`,
        `${fixed(r.writeSeconds, 2)} s${r.name.startsWith('catch-up') ? ' (offline, before)' : ''}`,
        int(r.batches),
        fixed(r.wireBytes / Math.max(1, r.recordsAcked), 1),
      ]),
      'lrrrrrr',
    ),
    '',
  ];
  const w = d.wire;
  if (w && w.records > 0) {
    const per = (bytes: number) => fixed(bytes / w.records, 1);
    lines.push(
      `Wire size of the same ${int(w.records)} changes (the first streaming run's INSERTs, warm-up included, read back from the device's shards), in pages of ${GET_RECORDS_PAGE} records: edgetable sync batches (CBOR change records, docs/sync.md) against DynamoDB Streams JSON records (spec §6.10, NEW_IMAGE, as a GetRecords \`{"Records": [...]}\` page); deflate = raw DEFLATE of the whole page. MQTT headers (topic, ~40 bytes per batch) not included.`,
      '',
      ...table(
        ['encoding', 'bytes per record, plain', 'bytes per record, deflate', 'size against Streams JSON (plain / deflate)'],
        [
          ['edgetable sync batch', per(w.syncNone), per(w.syncDeflate), `${fixed(w.syncNone / w.streamsJson, 2)}x / ${fixed(w.syncDeflate / w.streamsJsonDeflate, 2)}x`],
          ['DynamoDB Streams JSON', per(w.streamsJson), per(w.streamsJsonDeflate), '1.00x / 1.00x'],
        ],
        'lrrr',
      ),
      '',
    );
  }
  if (d.hub) lines.push(`Hub: ${int(d.hub.recordsApplied)} records applied in ${int(d.hub.batchesApplied)} batches, ${d.hub.rejectedTotal} rejected${d.hub.lastError ? `, last error: ${d.hub.lastError}` : ''}.`, '');
  return lines.join('\n');
}
