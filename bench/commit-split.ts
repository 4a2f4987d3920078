/**
 * Where a durable single put's time goes, edgetable's PutItem against raw node-lmdb: loads 20,000
 * readings, then times `count` puts (one durable txn each; `batch`: `count` BatchWriteItem calls of
 * 25 new readings of consecutive sensors, after loading 100,000) and splits each into the commit
 * (edgetable: Store.onFlush's commit time, LMDB's page writes and both flushes; raw: txn.commit())
 * and everything outside it (request, txn begin, reads, puts, encoding), with the main thread's
 * CPU time (schedstat). Prints one JSON line of microseconds per put. A measurement, never a test.
 *
 *   DIR=/tmp tsx bench/commit-split.ts <et|et-log|et-held|raw> [count] [single|batch]     (DIR=/dev/shm: flushes cost nothing)
 *
 * `et-log`: durability 'log', where the commit is the log's append and flush plus LMDB's commit
 * without flushes, and checkpoints run outside it (on this thread when the loop never yields).
 * `et-held`: 'log' with logWritesPerCommit $HELD (default 400): LMDB commits once per that many writes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Encoder } from 'cbor-x';
import { open } from '../src/edgetable.js';
import { wireItem } from './contenders/edgetable.js';
import { loadOrder, newReadings, type Reading } from './workload.js';
const base = process.env.DIR ?? '/tmp';
const which = process.argv[2] ?? 'et';
const N = Number(process.argv[3] ?? 2000);
const batched = process.argv[4] === 'batch';
const PER_WRITE = batched ? 25 : 1;
const mainNs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
const readings = newReadings(100_000, (N + 200) * PER_WRITE);
const load = [...loadOrder(batched ? 100 : 20)];
const writeOf = <T>(all: T[], i: number): T[] => all.slice(i * PER_WRITE, (i + 1) * PER_WRITE);
let commitNs = 0;
function measure(fn: (i: number) => void) {
  for (let i = 0; i < 200; i++) fn(N + i);
  commitNs = 0;
  const c0 = mainNs();
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn(i);
  const wall = Number(process.hrtime.bigint() - t) / 1e3 / N;
  const cpu = (mainNs() - c0) / 1e3 / N;
  const commit = commitNs / 1e3 / N;
  console.log(JSON.stringify({ which, base, per: batched ? 'batch' : 'put', wall: +wall.toFixed(1), commit: +commit.toFixed(1), outside: +(wall - commit).toFixed(1), mainCpu: +cpu.toFixed(1) }));
}
const d = mkdtempSync(join(base, 'split-'));
if (which === 'raw') {
  const lmdb = createRequire(import.meta.url)('node-lmdb');
  const env = new lmdb.Env();
  env.open({ path: d, mapSize: 1024 * 1024 * 1024, maxDbs: 2 });
  const dbi = env.openDbi({ name: 'readings', create: true, keyIsBuffer: true });
  const cbor = new Encoder({ useRecords: false, mapsAsObjects: true });
  const keyOf = (sensorId: string, ts: number) => {
    const p = Buffer.byteLength(sensorId) + 1;
    const key = Buffer.alloc(p + 8);
    key.write(sensorId, 0, 'utf8');
    key.writeBigUInt64BE(BigInt(ts), p);
    return key;
  };
  const put = (rs: Reading[]) => {
    const txn = env.beginTxn();
    for (const r of rs) txn.putBinary(dbi, keyOf(r.sensorId, r.ts), cbor.encode(r));
    const s = process.hrtime.bigint();
    txn.commit();
    commitNs += Number(process.hrtime.bigint() - s);
  };
  for (let i = 0; i < load.length; i += 25) put(load.slice(i, i + 25));
  measure((i) => put(writeOf(readings, i)));
  dbi.close();
  env.close();
} else {
  const held = which === 'et-held' ? { logWritesPerCommit: Number(process.env.HELD ?? 400) } : {};
  const db = open({ path: d, durability: which === 'et-log' || which === 'et-held' ? 'log' : 'sync', mapSizeBytes: 256 * 1024 * 1024, ...held });
  db.createTable({
    TableName: 'Readings',
    KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 1,
  });
  const wl = load.map(wireItem);
  for (let i = 0; i < wl.length; i += 25) db.batchWriteItem({ RequestItems: { Readings: wl.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } });
  const wi = readings.map(wireItem);
  db.store.onFlush = (k, s) => {
    if (k === 'commit') commitNs += s * 1e9;
  };
  if (batched) measure((i) => db.batchWriteItem({ RequestItems: { Readings: writeOf(wi, i).map((Item) => ({ PutRequest: { Item } })) } }));
  else measure((i) => db.putItem({ TableName: 'Readings', Item: wi[i]! }));
  db.close();
}
rmSync(d, { recursive: true, force: true });
