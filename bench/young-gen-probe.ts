/**
 * Probe: the young generation during the memory suite's ingest. Like bench/memory.ts, and every
 * `every` items writes one line to stderr: items, new_space committed (both semi-spaces) and
 * used, old space used / committed, RssAnon. argv[2]: JSON { path, items, every, hold?, v8Flags?, smaps? }:
 * hold false opens with limitYoungGeneration: false (V8's own growth), v8Flags are set at run
 * time before the open. Add --trace-gc-nvp to see each scavenge's survivors (promoted,
 * new_space_survived); smaps true lists the largest anonymous mappings at the end (V8 pages,
 * malloc arenas). Compiled like bench/memory.ts: node $(compiled young-gen-probe.ts) '{...}'.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import { anonRssBytes } from './proc.js';
import { reading, SENSORS } from './workload.js';

const args = JSON.parse(process.argv[2]!) as { path: string; items: number; every: number; durability?: string; v8Flags?: string; hold?: boolean; smaps?: boolean };
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
  if (args.smaps) topAnonymousMappings();
  process.stdout.write(`${JSON.stringify({ items: i, seconds: (performance.now() - t0) / 1000, cpuMicrosPerItem: (cpu.user + cpu.system) / i, peakAnonMiB: mib(peak) })}\n`);
} finally {
  db.close();
  rmSync(args.path, { recursive: true, force: true });
}

/** smaps: this process's largest anonymous mappings (V8's spaces, malloc arenas, thread stacks), on stderr. */
function topAnonymousMappings(): void {
  const rows: { range: string; name: string; sizeKb: number; anonKb: number }[] = [];
  let current: (typeof rows)[number] | undefined;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+-[0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) rows.push((current = { range: head[1]!, name: head[2] ?? '', sizeKb: 0, anonKb: 0 }));
    else if (current && line.startsWith('Size:')) current.sizeKb = Number(/\d+/.exec(line)![0]);
    else if (current && line.startsWith('Anonymous:')) current.anonKb = Number(/\d+/.exec(line)![0]);
  }
  const total = rows.reduce((a, r) => a + r.anonKb, 0);
  process.stderr.write(`anonymous in smaps: ${mib(total * 1024)} MiB in ${rows.filter((r) => r.anonKb > 0).length} mappings\n`);
  for (const r of rows.sort((a, b) => b.anonKb - a.anonKb).slice(0, 15)) process.stderr.write(`  ${mib(r.anonKb * 1024).padStart(6)} MiB of ${mib(r.sizeKb * 1024).padStart(7)} MiB ${r.range} ${r.name}\n`);
}
