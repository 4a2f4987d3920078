/**
 * The measuring process of the memory suite's ingest (bench/suites/memory.ts): the contenders'
 * readings written through the embedded API's batchWriteItem (25 items per durable txn) into a
 * fresh store, anonymous RSS sampled after every batch. Runs compiled (bench/compile.ts), never
 * under tsx. argv[2]: JSON { path, items, budgetMs, limitYoungGeneration?, limitOldGenerationGrowth?, durability?,
 * logWritesPerCommit? } (open() options; defaults true, 'sync', 1); prints one JSON line (IngestFigures) on stdout.
 *
 * By hand: `node $(npx tsx -e "import('./bench/compile.ts').then(m => console.log(m.compiled('memory.ts')))") '{"path":"/tmp/m","items":1000000,"budgetMs":600000}'`
 */
import { mkdirSync, rmSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import { anonRssBytes } from './proc.js';
import { reading, SENSORS } from './workload.js';

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
};

const args = JSON.parse(process.argv[2]!) as { path: string; items: number; budgetMs: number; limitYoungGeneration?: boolean; limitOldGenerationGrowth?: boolean; durability?: 'sync' | 'log'; logWritesPerCommit?: number };
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
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  db.close();
  rmSync(args.path, { recursive: true, force: true });
}
