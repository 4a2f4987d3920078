/**
 * Probe: the young generation during the memory suite's ingest. Like bench/memory.ts, and every
 * `every` items writes one line to stderr: items, new_space committed (both semi-spaces) and
 * used, old space used / committed, RssAnon. argv[2]: JSON { path, items, every, hold?, v8Flags? }:
 * hold false opens with limitYoungGeneration: false (V8's own growth), v8Flags are set at run
 * time before the open. Add --trace-gc-nvp to see each scavenge's survivors (promoted,
 * new_space_survived). Compiled like bench/memory.ts: node $(compiled young-gen-probe.ts) '{...}'.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import { anonRssBytes } from './proc.js';
import { reading, SENSORS } from './workload.js';

const args = JSON.parse(process.argv[2]!) as { path: string; items: number; every: number; durability?: string; v8Flags?: string; hold?: boolean };
if (args.v8Flags) setFlagsFromString(args.v8Flags);
const mib = (b: number) => (b / 2 ** 20).toFixed(1);
rmSync(args.path, { recursive: true, force: true });
mkdirSync(args.path, { recursive: true });
const db = open({ path: args.path, durability: (args.durability ?? 'sync') as 'sync', mapSizeBytes: 2 * 2 ** 30, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0, limitYoungGeneration: args.hold ?? true });
const sample = (i: number) => {
  const s = Object.fromEntries(getHeapSpaceStatistics().map((x) => [x.space_name, x]));
  const ns = s['new_space']!, old = s['old_space']!, nlo = s['new_large_object_space']!;
  process.stderr.write(`${i}\tnew ${mib(ns.space_size)} used ${mib(ns.space_used_size)} nlo ${mib(nlo.space_size)}\told ${mib(old.space_used_size)}/${mib(old.space_size)}\tanon ${mib(anonRssBytes() ?? 0)}\n`);
};
try {
  db.createTable({
    TableName: 'Readings',
    KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  let peak = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let i = 0;
  while (i < args.items) {
    const batch = [];
    for (const end = Math.min(i + 25, args.items); i < end; i++) batch.push({ PutRequest: { Item: wireItem(reading(i % SENSORS, Math.floor(i / SENSORS))) } });
    db.batchWriteItem({ RequestItems: { Readings: batch } });
    peak = Math.max(peak, anonRssBytes() ?? 0);
    if (i % args.every === 0) sample(i);
  }
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ items: i, seconds: (performance.now() - t0) / 1000, cpuMicrosPerItem: (cpu.user + cpu.system) / i, peakAnonMiB: mib(peak) })}\n`);
} finally {
  db.close();
  rmSync(args.path, { recursive: true, force: true });
}
