/**
 * What the placement of item keys costs a durable batch, for the write targets of issue 16
 * (docs/decisions/009-partition-id-placement.md): node-lmdb directly, one database, 290-byte
 * values, 25 puts per durable txn on a tree loaded with `loaded` items, in three key layouts:
 * - `hash-first`: edgetable's (4-byte farmhash of the partition key, the key's type tag, the
 *   sensor name, a 2-byte terminator, the sort key's tag and 8 bytes: 27 bytes);
 * - `name-order`: the bench's raw node-lmdb contender's (name, a zero byte, 8 bytes: 20 bytes);
 * - `id-first`: a 4-byte partition id handed out in the order partition keys are first written,
 *   then the sort key's tag and 8 bytes (13 bytes): what a per-table partition-key dictionary
 *   would give (its own lookups are not timed: the dictionary is written once per partition key).
 * and three arrival patterns: `round-robin` (the bench's: each batch is 25 consecutive sensors of
 * 1,000, polled in a fixed order), `random` (25 sensors drawn at random per batch), `one-sensor`
 * (a batch is 25 readings of one sensor, the next batch the next sensor).
 * Per layout and pattern: microseconds per batch (median of the interleaved rounds), bytes that
 * reached the disk per item (the store's block device, with a sync before and after; assumes a
 * quiet machine, as bench/proc.ts says), and the tree's depth and branch pages after the run.
 * A measurement: it never fails on a figure.
 *
 *   tsx bench/placement-probe.ts [loaded=100000] [batches=800] [rounds=3]
 *
 * Bench-only exception to "node-lmdb only in storage/": this file measures LMDB itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blockBytesWritten, blockDeviceStatFile } from './proc.js';
import { farmhash, lmdb, type Env, type Txn } from './node-lmdb.js';

type Layout = 'hash-first' | 'name-order' | 'id-first';
type Arrival = 'round-robin' | 'random' | 'one-sensor';
const LAYOUTS: Layout[] = ['hash-first', 'name-order', 'id-first'];
const ARRIVALS: Arrival[] = ['round-robin', 'random', 'one-sensor'];
const SENSORS = 1000;
const BATCH = 25;

const [loaded = 100_000, batches = 800, rounds = 3] = process.argv.slice(2).map(Number);
const value = Buffer.alloc(290, 7);
const names = Array.from({ length: SENSORS }, (_, i) => Buffer.from(`sensor-${String(i).padStart(4, '0')}`));

function keyOf(layout: Layout, sensor: number, partitionId: number, ts: number): Buffer {
  const name = names[sensor]!;
  switch (layout) {
    case 'hash-first': {
      const key = Buffer.alloc(4 + 1 + name.length + 2 + 1 + 8);
      key.writeUInt32BE(farmhash.fingerprint32(name), 0);
      key[4] = 0x53;
      name.copy(key, 5);
      key[5 + name.length + 2] = 0x4e;
      key.writeBigUInt64BE(BigInt(ts), 5 + name.length + 3);
      return key;
    }
    case 'name-order': {
      const key = Buffer.alloc(name.length + 1 + 8);
      name.copy(key, 0);
      key.writeBigUInt64BE(BigInt(ts), name.length + 1);
      return key;
    }
    case 'id-first': {
      const key = Buffer.alloc(4 + 1 + 8);
      key.writeUInt32BE(partitionId, 0);
      key[4] = 0x4e;
      key.writeBigUInt64BE(BigInt(ts), 5);
      return key;
    }
  }
}

/** A deterministic generator, so every layout sees the same random arrivals. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

interface Sample {
  us: number;
  diskBytesPerItem: number | undefined;
  depth: number;
  branchPages: number;
}

function measure(layout: Layout, arrival: Arrival): Sample {
  const dir = mkdtempSync(join(tmpdir(), 'placement-probe-'));
  const statFile = blockDeviceStatFile(dir);
  const env = new lmdb.Env();
  env.open({ path: dir, mapSize: 2 * 1024 * 1024 * 1024, maxDbs: 4 });
  const dbi = env.openDbi({ name: 'items', create: true, keyIsBuffer: true });
  const partitionIds = new Map<number, number>();
  const nextTs = new Uint32Array(SENSORS);
  const draw = random(42);
  const idOf = (sensor: number): number => {
    let id = partitionIds.get(sensor);
    if (id === undefined) partitionIds.set(sensor, (id = partitionIds.size));
    return id;
  };
  let batch = 0;
  const write = (pattern: Arrival): void => {
    const txn = env.beginTxn();
    for (let i = 0; i < BATCH; i++) {
      const sensor =
        pattern === 'round-robin' ? (batch * BATCH + i) % SENSORS : pattern === 'random' ? Math.floor(draw() * SENSORS) : batch % SENSORS;
      const ts = nextTs[sensor]!;
      nextTs[sensor] = ts + 1;
      txn.putBinary(dbi, keyOf(layout, sensor, idOf(sensor), ts), value);
    }
    txn.commit();
    batch += 1;
  };
  try {
    // The load is the same for every pattern (the bench's), so each measures on the same tree.
    while (batch * BATCH < loaded) write('round-robin');
    execFileSync('sync');
    const bytesBefore = blockBytesWritten(statFile);
    const started = process.hrtime.bigint();
    for (let i = 0; i < batches; i++) write(arrival);
    const us = Number(process.hrtime.bigint() - started) / 1e3 / batches;
    execFileSync('sync');
    const bytesAfter = blockBytesWritten(statFile);
    const txn = env.beginTxn({ readOnly: true });
    const stat = dbi.stat(txn);
    txn.abort();
    return {
      us,
      diskBytesPerItem: bytesBefore === undefined || bytesAfter === undefined ? undefined : (bytesAfter - bytesBefore) / (batches * BATCH),
      depth: stat.treeDepth,
      branchPages: stat.treeBranchPageCount,
    };
  } finally {
    env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const arrival of ARRIVALS) {
  const samples = new Map<Layout, Sample[]>(LAYOUTS.map((l) => [l, []]));
  for (let r = 0; r < rounds; r++) for (const layout of LAYOUTS) samples.get(layout)!.push(measure(layout, arrival));
  for (const layout of LAYOUTS) {
    const runs = samples.get(layout)!;
    const disk = runs.map((r) => r.diskBytesPerItem).filter((b): b is number => b !== undefined);
    console.log(
      JSON.stringify({
        arrival,
        layout,
        loaded,
        batches,
        usPerBatchMedian: Math.round(median(runs.map((r) => r.us))),
        diskBytesPerItemMedian: disk.length === 0 ? null : Math.round(median(disk)),
        diskPagesPerBatch: disk.length === 0 ? null : Math.round((median(disk) * BATCH) / 4096 * 10) / 10,
        treeDepth: runs[0]!.depth,
        branchPages: runs[0]!.branchPages,
        roundsUs: runs.map((r) => Math.round(r.us)),
      }),
    );
  }
}
