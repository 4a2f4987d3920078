/**
 * Probe: which allocations reach V8's old space during the memory suite's ingest. The sampling
 * heap profiler, told to drop objects a scavenge collected, keeps those promoted or allocated old.
 * argv[2]: JSON { path, items, warmup }; prints the top allocating frames.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import { reading, SENSORS } from './workload.js';

type Node = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[]; id: number };
const args = JSON.parse(process.argv[2]!) as { path: string; items: number; warmup: number };
rmSync(args.path, { recursive: true, force: true });
mkdirSync(args.path, { recursive: true });
const db = open({ path: args.path, durability: 'sync', mapSizeBytes: 2 * 2 ** 30, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
const session = new Session();
session.connect();
const post = (method: string, params?: object) => {
  let out: unknown;
  session.post(method, params ?? {}, (err, res) => {
    if (err) throw err;
    out = res;
  });
  return out as any;
};
db.createTable({
  TableName: 'Readings',
  KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
  AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
  BillingMode: 'PAY_PER_REQUEST',
});
let i = 0;
const ingest = (to: number) => {
  while (i < to) {
    const batch = [];
    for (const end = Math.min(i + 25, to); i < end; i++) batch.push({ PutRequest: { Item: wireItem(reading(i % SENSORS, Math.floor(i / SENSORS))) } });
    db.batchWriteItem({ RequestItems: { Readings: batch } });
  }
};
ingest(args.warmup);
post('HeapProfiler.enable');
post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
ingest(args.warmup + args.items);
const { profile } = post('HeapProfiler.stopSampling') as { profile: { head: Node } };
const bySelf = new Map<string, number>();
const walk = (n: Node, stack: string[]) => {
  const here = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
  const s = [...stack, here];
  if (n.selfSize > 0) {
    const k = s.slice(-4).join(' < ');
    bySelf.set(k, (bySelf.get(k) ?? 0) + n.selfSize);
  }
  for (const c of n.children) walk(c, s);
};
walk(profile.head, []);
const total = [...bySelf.values()].reduce((a, b) => a + b, 0);
console.log(`sampled bytes reaching old space: ${(total / 2 ** 20).toFixed(2)} MiB over ${args.items} items = ${(total / args.items).toFixed(1)} B/item`);
for (const [k, v] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${(v / args.items).toFixed(1).padStart(7)} B/item  ${k.split(' < ').reverse().join(' < ')}`);
db.close();
rmSync(args.path, { recursive: true, force: true });
