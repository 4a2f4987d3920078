/**
 * Where edgetable's batched ingest stands against LMDB itself with the same key placement: the
 * bench's batch shape (BatchWriteItem of 25 readings of consecutive sensors, one durable txn each)
 * after loading `readingsPerSensor` rounds of the 1,000 sensors, in three contenders:
 * - `edgetable`: the contenders suite's edgetable (embedded API, durability 'sync');
 * - `raw-lmdb(name)`: the suite's raw node-lmdb (keys sensorId + 0x00 + ts, cbor-x values);
 * - `raw-lmdb(hash-first)`: the same with a 4-byte farmhash fingerprint of the sensor id before
 *   each key, as edgetable's item keys (codec/item-key.ts) and DynamoDB place items.
 * The three run interleaved, `rounds` times, each on a fresh folder; prints one JSON line per run
 * (wall and process CPU microseconds per batch) and the medians. A measurement: it never fails
 * on a figure.
 *
 *   tsx bench/ingest-floor.ts [readingsPerSensor=100] [batches=800] [rounds=5]
 *
 * Bench-only exception to "node-lmdb only in storage/": this file measures LMDB itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Encoder } from 'cbor-x';
import type { Contender } from './contender.js';
import { CONTENDERS } from './contenders/index.js';
import { BATCH_SIZE, loadOrder, newReadings, type Reading } from './workload.js';
import { farmhash, lmdb, type Dbi, type Env } from './node-lmdb.js';

const cbor = new Encoder({ useRecords: false, mapsAsObjects: true });

type Ingester = Pick<Contender, 'open' | 'prepare' | 'putBatch' | 'close'>;

/** The raw contender's batch write with a hash before each key (writes only: that is all this measures). */
function hashFirstRawLmdb(): Ingester {
  let env: Env | undefined;
  let dbi: Dbi | undefined;
  return {
    open(dir) {
      env = new lmdb.Env();
      env.open({ path: dir, mapSize: 2 * 1024 ** 3, maxDbs: 4 });
      dbi = env.openDbi({ name: 'readings', create: true, keyIsBuffer: true });
    },
    prepare: (reading) => reading,
    putBatch(inputs) {
      const txn = env!.beginTxn();
      for (const input of inputs) {
        const r = input as Reading;
        const id = Buffer.from(r.sensorId, 'utf8');
        const key = Buffer.alloc(4 + id.length + 1 + 8);
        key.writeUInt32BE(farmhash.fingerprint32(id), 0);
        id.copy(key, 4);
        key.writeBigUInt64BE(BigInt(r.ts), 4 + id.length + 1);
        txn.putBinary(dbi!, key, cbor.encode(r));
      }
      txn.commit();
    },
    close() {
      env?.close();
    },
  };
}

const INGESTERS: Record<string, () => Ingester> = {
  edgetable: CONTENDERS.edgetable,
  'raw-lmdb(name)': CONTENDERS['raw-lmdb'],
  'raw-lmdb(hash-first)': hashFirstRawLmdb,
};

const [readingsPerSensor = 100, batches = 800, rounds = 5] = process.argv.slice(2).map(Number);

function measure(make: () => Ingester): { us: number; cpuUs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'ingest-floor-'));
  const ingester = make();
  ingester.open(dir);
  try {
    let batch: unknown[] = [];
    for (const reading of loadOrder(readingsPerSensor)) {
      batch.push(ingester.prepare(reading));
      if (batch.length === BATCH_SIZE) {
        ingester.putBatch(batch);
        batch = [];
      }
    }
    const fresh = newReadings(readingsPerSensor, batches * BATCH_SIZE).map((r) => ingester.prepare(r));
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let b = 0; b < batches; b++) ingester.putBatch(fresh.slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE));
    const us = Number(process.hrtime.bigint() - started) / 1e3 / batches;
    const used = process.cpuUsage(cpu);
    return { us, cpuUs: (used.user + used.system) / batches };
  } finally {
    ingester.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs = new Map<string, { us: number; cpuUs: number }[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of Object.entries(INGESTERS)) {
    const run = measure(make);
    runs.set(name, [...(runs.get(name) ?? []), run]);
    console.log(JSON.stringify({ round, contender: name, usPerBatch: Math.round(run.us), cpuUsPerBatch: Math.round(run.cpuUs) }));
  }
}
for (const [name, xs] of runs) {
  const us = median(xs.map((x) => x.us));
  console.log(JSON.stringify({ contender: name, readingsPerSensor, batches, rounds, usPerBatchMedian: Math.round(us), itemsPerSecond: Math.round((BATCH_SIZE * 1e6) / us), cpuUsPerBatchMedian: Math.round(median(xs.map((x) => x.cpuUs))) }));
}
