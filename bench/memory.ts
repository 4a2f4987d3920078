/**
 * The measuring process of the memory suite's ingest (bench/suites/memory.ts): the contenders'
 * readings written through the embedded API's batchWriteItem (25 items per durable txn) into a
 * fresh store, anonymous RSS sampled after every batch. Runs compiled (bench/compile.ts), never
 * under tsx. argv[2]: JSON { path, items, budgetMs, limitYoungGeneration?, limitOldGenerationGrowth?, durability?,
 * logWritesPerCommit?, reads? } (open() options; defaults true, 'sync', 1); prints one JSON line (IngestFigures) on stdout.
 * With `reads` (a count per workload), the ingest is followed by every read workload of the contenders suite
 * (windows of ~100 and ~1,000 readings, latest-10, point gets, a full scan in pages of 1,000) on the same
 * store, each request's keys drawn as it is made, so no prepared input holds memory the store does not.
 *
 * By hand: `node $(npx tsx -e "import('./bench/compile.ts').then(m => console.log(m.compiled('memory.ts')))") '{"path":"/tmp/m","items":1000000,"budgetMs":600000}'`
 */
import { mkdirSync, rmSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import type { KeyOutput } from '../src/api/shapes.js';
import { anonRssBytes } from './proc.js';
import { LATEST_COUNT, reading, rng, SCAN_PAGE_ITEMS, SENSORS, sensorId, timestamp, WIDE_WINDOW_READINGS, WINDOW_READINGS } from './workload.js';

export type IngestFigures = {
  items: number;
  seconds: number;
  /** CPU time of the process (user + system) per item: unlike items/s, hardly moved by other processes. */
  cpuMicrosPerItem: number;
  startAnonBytes: number;
  peakAnonBytes: number;
  endAnonBytes: number;
  /** V8's new space (both semi-spaces) at the end: what the young generation grew to. */
  newSpaceBytes: number;
  /** V8's heap after the ingest: what is live (used) against what it holds (total). */
  heapUsedBytes: number;
  heapTotalBytes: number;
  execArgv: string[];
  /** With `reads`: what the read workloads after the ingest did, and the process's peak over them. */
  reads?: ReadFigures;
};

export type ReadFigures = {
  /** Requests per workload (the scan: its pages), in the order run. */
  requests: Record<string, number>;
  items: number;
  seconds: number;
  peakAnonBytes: number;
  endAnonBytes: number;
};

const args = JSON.parse(process.argv[2]!) as { path: string; items: number; budgetMs: number; limitYoungGeneration?: boolean; limitOldGenerationGrowth?: boolean; durability?: 'sync' | 'log'; logWritesPerCommit?: number; reads?: number };
const anon = () => anonRssBytes() ?? process.memoryUsage().rss;
const startAnonBytes = anon();
rmSync(args.path, { recursive: true, force: true });
mkdirSync(args.path, { recursive: true });
const db = open({ path: args.path, durability: args.durability ?? 'sync', logWritesPerCommit: args.logWritesPerCommit, mapSizeBytes: 2 * 2 ** 30, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0, limitYoungGeneration: args.limitYoungGeneration ?? true, limitOldGenerationGrowth: args.limitOldGenerationGrowth ?? true });
try {
  db.createTable({
    TableName: 'Readings',
    KeySchema: [
      { AttributeName: 'sensorId', KeyType: 'HASH' },
      { AttributeName: 'ts', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'sensorId', AttributeType: 'S' },
      { AttributeName: 'ts', AttributeType: 'N' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
  let peak = startAnonBytes;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let i = 0;
  while (i < args.items && performance.now() - t0 < args.budgetMs) {
    const batch = [];
    for (const end = Math.min(i + 25, args.items); i < end; i++) batch.push({ PutRequest: { Item: wireItem(reading(i % SENSORS, Math.floor(i / SENSORS))) } });
    db.batchWriteItem({ RequestItems: { Readings: batch } });
    peak = Math.max(peak, anon());
  }
  const cpu = process.cpuUsage(cpu0);
  const reads = args.reads ? readAll(db, args.reads, Math.floor(i / SENSORS), (bytes) => (peak = Math.max(peak, bytes))) : undefined;
  const heap = process.memoryUsage();
  const figures: IngestFigures = {
    items: i,
    seconds: (performance.now() - t0) / 1000,
    cpuMicrosPerItem: (cpu.user + cpu.system) / Math.max(1, i),
    startAnonBytes,
    peakAnonBytes: peak,
    endAnonBytes: anon(),
    newSpaceBytes: getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? NaN,
    heapUsedBytes: heap.heapUsed,
    heapTotalBytes: heap.heapTotal,
    execArgv: process.execArgv,
    ...(reads ? { reads } : {}),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  db.close();
  rmSync(args.path, { recursive: true, force: true });
}

/**
 * Every read workload of the contenders suite on the ingested readings (`perSensor` complete rounds):
 * `count` requests each (the scan: the whole table), anonymous RSS sampled every 16 requests and
 * after each scan page; `seen` gets every sample.
 */
function readAll(db: ReturnType<typeof open>, count: number, perSensor: number, seen: (bytes: number) => void): ReadFigures {
  const r = rng(48);
  let peak = 0;
  let items = 0;
  const sample = () => {
    const bytes = anon();
    peak = Math.max(peak, bytes);
    seen(bytes);
  };
  const t0 = performance.now();
  const requests: Record<string, number> = {};
  const repeat = (name: string, request: () => number) => {
    for (let n = 0; n < count; n++) {
      items += request();
      if (n % 16 === 15) sample();
    }
    requests[name] = count;
  };
  const window = (span: number) => () => {
    const s = Math.floor(r() * SENSORS);
    const width = Math.min(span, perSensor);
    const first = Math.floor(r() * (perSensor - width + 1));
    const out = db.query({
      TableName: 'Readings',
      KeyConditionExpression: 'sensorId = :s AND ts BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':s': { S: sensorId(s) }, ':from': { N: String(timestamp(s, first)) }, ':to': { N: String(timestamp(s, first + width - 1)) } },
    });
    return out.Items?.length ?? 0;
  };
  repeat(`window of ~${WINDOW_READINGS}`, window(WINDOW_READINGS));
  repeat(`window of ~${WIDE_WINDOW_READINGS}`, window(WIDE_WINDOW_READINGS));
  repeat(`latest ${LATEST_COUNT}`, () => {
    const out = db.query({ TableName: 'Readings', KeyConditionExpression: 'sensorId = :s', ExpressionAttributeValues: { ':s': { S: sensorId(Math.floor(r() * SENSORS)) } }, ScanIndexForward: false, Limit: LATEST_COUNT });
    return out.Items?.length ?? 0;
  });
  repeat('point get', () => {
    const s = Math.floor(r() * SENSORS);
    const key = { sensorId: { S: sensorId(s) }, ts: { N: String(timestamp(s, Math.floor(r() * perSensor))) } };
    return db.getItem({ TableName: 'Readings', Key: key }).Item ? 1 : 0;
  });
  let pages = 0;
  let start: KeyOutput | undefined;
  do {
    const page = db.scan({ TableName: 'Readings', Limit: SCAN_PAGE_ITEMS, ...(start ? { ExclusiveStartKey: start } : {}) });
    items += page.Items?.length ?? 0;
    start = page.LastEvaluatedKey;
    pages++;
    sample();
  } while (start);
  requests['full scan (pages)'] = pages;
  return { requests, items, seconds: (performance.now() - t0) / 1000, peakAnonBytes: peak, endAnonBytes: anon() };
}
