/**
 * What a redo log would buy batched ingest (docs/decisions/010-redo-log-durability.md): node-lmdb directly, one database, keys laid out as edgetable lays out items (the
 * partition key's 4-byte hash first, then the sensor name and timestamp), 25 puts of 290-byte
 * values per txn, the bench's batch shape (25 consecutive sensors of 1,000), on a tree loaded with
 * `loaded` items. Each round, one txn per batch, in these ways:
 * - `lmdb-sync`: LMDB's durable commit (data flush, then the O_DSYNC meta write), what edgetable does;
 * - `lmdb-sync-name-order`: the same with keys ordered by sensor name (no hash first), as the
 *   bench's raw node-lmdb contender lays them out: what the placement alone costs;
 * - `nosync+log`: the commit without flushes (MDB_NOSYNC) plus one append of the txn's puts to a
 *   log file and one fdatasync of it, what a redo log would do per commit;
 * - `nosync+log+checkpoint`: the same plus a checkpoint (fdatasync of data.mdb, log truncated)
 *   every `checkpointEvery` batches, its cost spread over the batches;
 * - `nosync+log+checkpoint+pin-name-order`: that with name-ordered keys, which place a batch as
 *   edgetable's partition ids do (table format 3): what the log would add to today's layout;
 * - `nosync+log+checkpoint+pin`: the same, with what makes it sound: a read txn holds each
 *   checkpoint's snapshot until the next checkpoint is durable (recovery restores that snapshot's
 *   meta pages, so LMDB must not reuse its pages meanwhile). Pages freed after the pin are not
 *   reused, so commits write fresh pages instead of recycling those of two commits back: the
 *   page cache coalesces less and the file grows by what the commits between checkpoints dirtied.
 * Prints, per way, the median microseconds per batch and how much data.mdb grew.
 * The ways run interleaved, `rounds` times; prints one JSON line per way with the median of the
 * rounds' microseconds per batch. A measurement: it never fails on a figure.
 *
 *   tsx bench/redo-upside.ts [loaded=100000] [batches=2000] [rounds=3] [checkpointEvery=200]
 *
 * Bench-only exception to "node-lmdb only in storage/": this file measures LMDB itself.
 */
import { closeSync, fdatasyncSync, ftruncateSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { farmhash, lmdb, type Env, type Txn } from './node-lmdb.js';

type Way = 'lmdb-sync' | 'lmdb-sync-name-order' | 'nosync+log' | 'nosync+log+checkpoint' | 'nosync+log+checkpoint+pin' | 'nosync+log+checkpoint+pin-name-order';
const WAYS: Way[] = ['lmdb-sync', 'lmdb-sync-name-order', 'nosync+log', 'nosync+log+checkpoint', 'nosync+log+checkpoint+pin', 'nosync+log+checkpoint+pin-name-order'];
const SENSORS = 1000;
const BATCH = 25;

const [loaded = 100_000, batches = 2000, rounds = 3, checkpointEvery = 200] = process.argv.slice(2).map(Number);
const value = Buffer.alloc(290, 7);

function itemKey(sensor: number, ts: number, hashFirst: boolean): Buffer {
  const name = Buffer.from(`sensor-${String(sensor).padStart(4, '0')}`);
  const head = hashFirst ? 4 : 0;
  const key = Buffer.alloc(head + name.length + 1 + 8);
  if (hashFirst) key.writeUInt32BE(farmhash.fingerprint32(name), 0);
  name.copy(key, head);
  key.writeBigUInt64BE(BigInt(ts), head + name.length + 1);
  return key;
}

/** Microseconds per batch for `batches` batches after loading `loaded` items, and data.mdb's growth meanwhile. */
function measure(way: Way): { us: number; grewBytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'redo-upside-'));
  const env = new lmdb.Env();
  const durable = way === 'lmdb-sync' || way === 'lmdb-sync-name-order';
  const hashFirst = !way.endsWith('name-order');
  env.open({ path: dir, mapSize: 2 * 1024 * 1024 * 1024, maxDbs: 4, noSync: !durable });
  const dbi = env.openDbi({ name: 'items', create: true, keyIsBuffer: true });
  const log = openSync(join(dir, 'redo.log'), 'a');
  const data = openSync(join(dir, 'data.mdb'), 'r+');
  let batch = 0;
  let pin: Txn | null = null;
  const write = (logged: boolean): void => {
    const txn = env.beginTxn();
    const first = (batch * BATCH) % SENSORS;
    const ts = Math.floor((batch * BATCH) / SENSORS);
    const record: Buffer[] = [];
    for (let i = 0; i < BATCH; i++) {
      const key = itemKey(first + i, ts, hashFirst);
      txn.putBinary(dbi, key, value);
      if (logged) record.push(key, value);
    }
    txn.commit();
    batch += 1;
    if (logged) {
      writeSync(log, Buffer.concat(record));
      fdatasyncSync(log);
    }
  };
  try {
    while (batch * BATCH < loaded) write(false);
    fdatasyncSync(data);
    const sizeBefore = statSync(join(dir, 'data.mdb')).size;
    const pinned = way.startsWith('nosync+log+checkpoint+pin');
    if (pinned) pin = env.beginTxn({ readOnly: true });
    const started = process.hrtime.bigint();
    for (let i = 0; i < batches; i++) {
      write(!durable);
      if ((way === 'nosync+log+checkpoint' || pinned) && (i + 1) % checkpointEvery === 0) {
        const next = pinned ? env.beginTxn({ readOnly: true }) : null;
        fdatasyncSync(data);
        ftruncateSync(log, 0);
        fdatasyncSync(log);
        pin?.abort();
        pin = next;
      }
    }
    const us = Number(process.hrtime.bigint() - started) / 1e3 / batches;
    return { us, grewBytes: statSync(join(dir, 'data.mdb')).size - sizeBefore };
  } finally {
    pin?.abort();
    closeSync(log);
    closeSync(data);
    env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const samples = new Map<Way, { us: number; grewBytes: number }[]>(WAYS.map((w) => [w, []]));
for (let r = 0; r < rounds; r++) for (const way of WAYS) samples.get(way)!.push(measure(way));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const way of WAYS) {
  const runs = samples.get(way)!;
  const us = median(runs.map((r) => r.us));
  const grewMiB = Math.round(median(runs.map((r) => r.grewBytes)) / 1048576 * 10) / 10;
  console.log(JSON.stringify({ way, loaded, batches, checkpointEvery, usPerBatchMedian: Math.round(us), itemsPerSecond: Math.round((BATCH * 1e6) / us), dataFileGrewMiB: grewMiB, rounds: runs.map((r) => Math.round(r.us)) }));
}
