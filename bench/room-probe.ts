/**
 * `npx tsx bench/room-probe.ts [readings=300000] [mapMiB=64]`: a store loaded in 'sync' to more
 * than `mapMiB`, then reopened three times in 'interval' with 400 held writes per LMDB txn and
 * 20,000 single puts timed each time, with the map's room (pages free beyond its last page) at the
 * open and after. LMDB opens such a store with a map only as large as its data; with no room, no
 * write is held. A probe: it prints figures and judges nothing.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../src/index.js';
const dir = mkdtempSync(join(tmpdir(), 'room-'));
const path = join(dir, 'db');
const N = Number(process.argv[2] ?? 300000);
const mapMiB = Number(process.argv[3] ?? 64);
let db = open({ path, durability: 'sync' });
db.createTable({ TableName: 'readings', KeySchema: [{ AttributeName: 's', KeyType: 'HASH' }, { AttributeName: 't', KeyType: 'RANGE' }], AttributeDefinitions: [{ AttributeName: 's', AttributeType: 'S' }, { AttributeName: 't', AttributeType: 'N' }], BillingMode: 'PAY_PER_REQUEST' });
const item = (i: number) => ({ s: { S: `sensor-${i % 1000}` }, t: { N: String(1_700_000_000 + Math.floor(i / 1000) * 60) }, v: { N: String(i * 0.37) }, u: { S: 'celsius' }, q: { N: '3' }, note: { S: 'x'.repeat(60) } });
let i = 0;
for (; i < N; i += 25) db.batchWriteItem({ RequestItems: { readings: Array.from({ length: 25 }, (_, k) => ({ PutRequest: { Item: item(i + k) } })) } });
db.close();
console.log('data.mdb MiB', (statSync(join(path, 'data.mdb')).size / 2 ** 20).toFixed(1));
for (let round = 0; round < 3; round++) {
  db = open({ path, durability: 'interval', logWritesPerCommit: 400, mapSizeBytes: mapMiB * 2 ** 20 });
  // The env's own figures (not public: what the committer sees).
  const env = (db.store as unknown as { environment: { freePages(): number; mapSizeBytes: number } }).environment;
  const room0 = `${env.freePages()} pages, map ${(env.mapSizeBytes / 2 ** 20).toFixed(1)} MiB`;
  const t0 = performance.now();
  for (let k = 0; k < 20000; k++, i++) db.putItem({ TableName: 'readings', Item: item(i) });
  const ms = performance.now() - t0;
  console.log(`round ${round}: ${Math.round(20000 / (ms / 1000))} puts/s, room at open ${room0}; after ${env.freePages()} pages, map ${(env.mapSizeBytes / 2 ** 20).toFixed(1)} MiB, file ${(statSync(join(path, 'data.mdb')).size / 2 ** 20).toFixed(1)} MiB`);
  db.close();
}
rmSync(dir, { recursive: true, force: true });
