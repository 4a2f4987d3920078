/**
 * The soak run (issue 9 part 4), shared by `npm run soak` and soak.test.ts. One process holds a
 * device and a hub, each on its own store. The device runs a mixed workload on table `Soak` (GSI
 * `byG`, TTL on `exp` with 1-5 s expiries and a 1 s sweeper): PutItem, UpdateItem, DeleteItem,
 * BatchWriteItem and Query (table and GSI) over a bounded key space, so the stores reach a steady
 * size. The table syncs to the hub through a broker restarted every `restartEveryMs`. Memory (RSS,
 * heap) is sampled every second.
 *
 * At the end the workload stops, the sync lag is read, every item with a TTL is left to expire and
 * swept, the device flushes, and the hub's table must equal the device's item for item.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Edgetable } from '../../../src/edgetable.js';
import { startHub } from '../../../src/hub/start-hub.js';
import { tableContents } from '../../sync/fixtures.js';
import { settledHeapBytes } from './fuzz-budget.js';
import { startRestartableBroker } from './restartable-broker.js';
import { createRng, type Rng } from './rng.js';
import { memoryFigures, type MemoryFigures, type MemorySample, type Tolerance } from './soak-report.js';
import { statusBytes } from '../../../bench/proc.js';
import type { Item } from '../../../src/api/shapes.js';

export const SOAK_TABLE = 'Soak';

export type SoakOptions = {
  readonly durationMs: number;
  readonly warmupMs: number;
  /** Length of the first and last averaging windows. */
  readonly windowMs: number;
  readonly tolerance: Tolerance;
  readonly seed?: number;
  readonly restartEveryMs?: number;
  readonly brokerDownMs?: number;
  readonly broker?: 'auto' | 'mosquitto' | 'aedes';
  /** Workload pace: `opsPerTick` operations every `tickMs`. */
  readonly opsPerTick?: number;
  readonly tickMs?: number;
  readonly keySpace?: number;
  readonly sampleEveryMs?: number;
  readonly onSample?: (s: MemorySample) => void;
};

export type SoakSummary = {
  readonly minutes: number;
  readonly broker: 'mosquitto' | 'aedes';
  readonly seed: number;
  readonly brokerRestarts: number;
  readonly writes: number;
  readonly writeOps: number;
  readonly queries: number;
  readonly errors: number;
  readonly firstErrors: readonly string[];
  /** Items written with a TTL 1-5 s ahead; the background sweeper deletes them. */
  readonly ttlItemsWritten: number;
  /** Expired items the final sweep still found (the background sweeper's backlog). */
  readonly finalSweepDeleted: number;
  /** When the workload stopped: unacknowledged records and the oldest one's age. */
  readonly lagRecordsAtEnd: number;
  readonly lagSecondsAtEnd: number;
  /** From the end of the workload (after the last expiries and a sweep) until the hub had everything. */
  readonly drainMs: number;
  readonly deviceItems: number;
  readonly hubItems: number;
  readonly hubEqualsDevice: boolean;
  readonly hubRejected: number;
  readonly hubGaps: number;
  /** Heap after a forced GC at the end of warm-up and at the end of the workload. */
  readonly settledHeapAfterWarmup: number;
  readonly settledHeapAtEnd: number;
  /**
   * Anonymous RSS right after those forced GCs (RSS where the platform has no such figure): what
   * the process holds, heap and native, at two points of V8's cycle that match. The sampled RSS
   * swings by ~30 MiB with V8's heap between its major GCs (a 3-minute run: 100-132 MiB, no
   * trend), so windows of a short run compare arbitrary phases of that swing.
   */
  readonly settledAnonAfterWarmup: number;
  readonly settledAnonAtEnd: number;
  readonly memory: MemoryFigures;
};

const MAX_TTL_SECONDS = 5;

export async function runSoak(options: SoakOptions): Promise<{ summary: SoakSummary; samples: MemorySample[] }> {
  const seed = options.seed ?? Date.now() % 1_000_000;
  const rng = createRng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-soak-'));
  const broker = await startRestartableBroker(options.broker ?? 'auto');
  const device = open({ path: join(dir, 'device'), durability: 'relaxed', ttlSweepIntervalMs: 1000 });
  const hubDb = open({ path: join(dir, 'hub'), ttlSweepIntervalMs: 0 });
  createSoakTable(device);
  const hub = startHub({ db: hubDb, url: broker.url, clientId: 'soak-hub' });
  const sync = await device.startSync({ url: broker.url, deviceId: 'soak-device', tables: [SOAK_TABLE], ackTimeoutMs: 2000 });
  const keySpace = options.keySpace ?? 4000;
  const counters = { writes: 0, writeOps: 0, queries: 0, errors: 0, restarts: 0, ttlItems: 0 };
  const firstErrors: string[] = [];
  const samples: MemorySample[] = [];
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let settledHeapAfterWarmup = NaN;
  let settledAnonAfterWarmup = NaN;
  const anonRss = () => statusBytes('self', 'RssAnon') ?? process.memoryUsage().rss;
  let running = true;

  const sample = () => {
    const m = process.memoryUsage();
    const lag = sync.status().shards.reduce((a, s) => a + s.lagRecords, 0);
    const rssAnon = anonRss();
    const rssFile = statusBytes('self', 'RssFile') ?? NaN;
    const s: MemorySample = { t: elapsed(), rss: m.rss, rssAnon, rssFile, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, writes: counters.writes, queries: counters.queries, lagRecords: lag, brokerUp: broker.up };
    samples.push(s);
    options.onSample?.(s);
  };

  const workload = new Promise<void>((resolve) => {
    const opsPerTick = options.opsPerTick ?? 5;
    const tick = () => {
      if (!running) return resolve();
      for (let i = 0; i < opsPerTick; i++) {
        try {
          runOp(device, rng, keySpace, counters);
        } catch (err) {
          counters.errors += 1;
          if (firstErrors.length < 5) firstErrors.push((err as Error).message);
        }
      }
      setTimeout(tick, options.tickMs ?? 10);
    };
    tick();
  });

  let restarting: Promise<void> | undefined;
  const sampler = setInterval(sample, options.sampleEveryMs ?? 1000);
  const restarter = setInterval(() => {
    if (restarting) return;
    counters.restarts += 1;
    restarting = broker.restart(options.brokerDownMs ?? 2000).finally(() => (restarting = undefined));
  }, options.restartEveryMs ?? 30_000);
  const warmup = setTimeout(() => {
    settledHeapAfterWarmup = settledHeapBytes();
    settledAnonAfterWarmup = anonRss();
  }, options.warmupMs);

  try {
    await new Promise((r) => setTimeout(r, options.durationMs));
    running = false;
    await workload;
    clearInterval(restarter);
    clearInterval(sampler);
    clearTimeout(warmup);
    sample();
    const settledHeapAtEnd = settledHeapBytes();
    const settledAnonAtEnd = anonRss();
    const status = sync.status();
    const lagRecordsAtEnd = status.shards.reduce((a, s) => a + s.lagRecords, 0);
    const lagSecondsAtEnd = Math.max(0, ...status.shards.map((s) => s.lagSeconds));
    await restarting;
    // Every TTL value is at most MAX_TTL_SECONDS ahead of its write: once that has passed, one sweep
    // leaves nothing that can expire later, so the two tables can be compared at rest.
    const drainFrom = performance.now();
    await new Promise((r) => setTimeout(r, (MAX_TTL_SECONDS + 1.5) * 1000));
    const finalSweepDeleted = device.sweepExpired();
    await withTimeout(sync.flushed(), 120_000, 'the device to flush at the end of the soak');
    const drainMs = performance.now() - drainFrom - (MAX_TTL_SECONDS + 1.5) * 1000;
    const deviceItems = tableContents(device, SOAK_TABLE);
    const hubItems = tableContents(hubDb, SOAK_TABLE);
    const hubStatus = hub.status();
    const summary: SoakSummary = {
      minutes: options.durationMs / 60_000,
      broker: broker.kind,
      seed,
      brokerRestarts: counters.restarts,
      writes: counters.writes,
      writeOps: counters.writeOps,
      queries: counters.queries,
      errors: counters.errors,
      firstErrors,
      ttlItemsWritten: counters.ttlItems,
      finalSweepDeleted,
      lagRecordsAtEnd,
      lagSecondsAtEnd,
      drainMs: Math.max(0, Math.round(drainMs)),
      deviceItems: deviceItems.length,
      hubItems: hubItems.length,
      hubEqualsDevice: deviceItems.length === hubItems.length && deviceItems.every((line, i) => line === hubItems[i]),
      hubRejected: hubStatus.rejectedTotal,
      hubGaps: hubStatus.gaps.length,
      settledHeapAfterWarmup,
      settledHeapAtEnd,
      settledAnonAfterWarmup,
      settledAnonAtEnd,
      memory: memoryFigures(samples, options.warmupMs, options.windowMs, options.tolerance),
    };
    return { summary, samples };
  } finally {
    running = false;
    clearInterval(restarter);
    clearInterval(sampler);
    clearTimeout(warmup);
    await restarting;
    await sync.stop();
    await hub.stop();
    device.close();
    hubDb.close();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function createSoakTable(db: Edgetable): void {
  db.createTable({
    TableName: SOAK_TABLE,
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 2,
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'N' },
      { AttributeName: 'g', AttributeType: 'S' },
      { AttributeName: 'gs', AttributeType: 'N' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'byG',
        KeySchema: [
          { AttributeName: 'g', KeyType: 'HASH' },
          { AttributeName: 'gs', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  });
  db.updateTimeToLive({ TableName: SOAK_TABLE, TimeToLiveSpecification: { Enabled: true, AttributeName: 'exp' } });
}

type Counters = { writes: number; writeOps: number; queries: number; ttlItems: number };

function key(k: number) {
  return { pk: { S: `d${k % 40}` }, sk: { N: String(k) } };
}

function item(rng: Rng, k: number, c: Counters): Item {
  const ttl = rng.chance(0.5);
  if (ttl) c.ttlItems += 1;
  return {
    ...key(k),
    g: { S: `g${rng.int(20)}` },
    gs: { N: String(rng.int(1_000_000)) },
    v: { N: String(rng.int(1000)) },
    pad: { S: 'x'.repeat(50 + rng.int(350)) },
    // Half the items expire 1-5 s after they are written, so the sweeper always has work.
    ...(ttl ? { exp: { N: String(Math.floor(Date.now() / 1000) + 1 + rng.int(MAX_TTL_SECONDS)) } } : {}),
  };
}

function runOp(db: Edgetable, rng: Rng, keySpace: number, c: Counters): void {
  const r = rng.next();
  const k = rng.int(keySpace);
  if (r < 0.35) {
    db.putItem({ TableName: SOAK_TABLE, Item: item(rng, k, c) });
    c.writes += 1;
    c.writeOps += 1;
  } else if (r < 0.55) {
    db.updateItem({
      TableName: SOAK_TABLE,
      Key: key(k),
      UpdateExpression: 'SET v = :v, g = :g, gs = :gs ADD n :one',
      ExpressionAttributeValues: { ':v': { N: String(rng.int(1000)) }, ':g': { S: `g${rng.int(20)}` }, ':gs': { N: String(rng.int(1_000_000)) }, ':one': { N: '1' } },
    });
    c.writes += 1;
    c.writeOps += 1;
  } else if (r < 0.65) {
    db.deleteItem({ TableName: SOAK_TABLE, Key: key(k) });
    c.writes += 1;
    c.writeOps += 1;
  } else if (r < 0.75) {
    const n = 2 + rng.int(24);
    const ks = new Set<number>();
    while (ks.size < n) ks.add(rng.int(keySpace));
    const requests = [...ks].map((kk) => (rng.chance(0.8) ? { PutRequest: { Item: item(rng, kk, c) } } : { DeleteRequest: { Key: key(kk) } }));
    db.batchWriteItem({ RequestItems: { [SOAK_TABLE]: requests } });
    c.writes += n;
    c.writeOps += 1;
  } else if (r < 0.875) {
    db.query({ TableName: SOAK_TABLE, KeyConditionExpression: 'pk = :p AND sk > :s', ExpressionAttributeValues: { ':p': { S: `d${k % 40}` }, ':s': { N: String(rng.int(keySpace)) } }, Limit: 50 });
    c.queries += 1;
  } else {
    db.query({ TableName: SOAK_TABLE, IndexName: 'byG', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: `g${rng.int(20)}` } }, Limit: 50, ScanIndexForward: rng.chance(0.5) });
    c.queries += 1;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
