/**
 * Anonymous RSS (RssAnon: JS heap, native allocations; not the mapped store file) during an ingest
 * of the contenders' readings through batchWriteItem (25 items per durable txn).
 *
 * Measure it as compiled JavaScript, without a TypeScript loader (tsx alone holds ~55 MiB):
 *   npx esbuild bench/memory.ts --bundle --platform=node --format=esm --packages=external --outfile=bench/memory.tmp.mjs
 *   node bench/memory.tmp.mjs [items=1000000] [dir]; rm bench/memory.tmp.mjs
 * (bundled inside the repository so node-lmdb and the other packages resolve). Prints a sample
 * every 50,000 items and the maximum; never fails on a figure.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import { reading } from './workload.js';

const anon = (): number => {
  const match = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) / 1024 : process.memoryUsage().rss / 2 ** 20;
};
const items = Number(process.argv[2] ?? 1_000_000);
const dir = process.argv[3] ?? join(tmpdir(), `edgetable-memory-${process.pid}`);
console.log(`start: anonymous RSS ${anon().toFixed(1)} MiB`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const db = open({ path: dir, durability: 'sync', mapSizeBytes: 2 * 2 ** 30 });
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
  let max = 0;
  const t0 = performance.now();
  for (let i = 0; i < items; i += 25) {
    const batch = [];
    for (let k = i; k < Math.min(i + 25, items); k++) batch.push({ PutRequest: { Item: wireItem(reading(k % 1000, Math.floor(k / 1000))) } });
    db.batchWriteItem({ RequestItems: { Readings: batch } });
    max = Math.max(max, anon());
    if (i % 50_000 === 0) {
      const m = process.memoryUsage();
      console.log(`${i} items: anonymous RSS ${anon().toFixed(1)} MiB (heap used ${(m.heapUsed / 2 ** 20).toFixed(1)} of ${(m.heapTotal / 2 ** 20).toFixed(1)} MiB), ${Math.round(i / ((performance.now() - t0) / 1000))} items/s`);
    }
  }
  console.log(`${items} items: anonymous RSS at most ${max.toFixed(1)} MiB, at the end ${anon().toFixed(1)} MiB`);
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
