/**
 * What a write-staging level would buy batched ingest, measured on LMDB itself before anything is
 * built (the question behind issue 16: batched ingest at 1.0x better-sqlite3 AND device bytes per
 * item no more than raw node-lmdb, which no commit protocol gives on LMDB 0.9; see
 * docs/decisions/013-held-writes.md).
 *
 * After loading `readingsPerSensor` rounds of the 1,000 sensors, `batches` durable txns of 25 new
 * readings of consecutive sensors (the bench's batch) go into:
 * - `direct`: the items database, keys as edgetable places them (a 4-byte partition id in
 *   creation order + the 8-byte sort key), cbor-x values: LMDB's durable commit of 25 scattered
 *   leaves, what edgetable's 'sync' pays;
 * - `staged(M)`: a staging database keyed by a write sequence (every batch appends to its last
 *   leaf: a handful of pages per commit), with an in-memory map from item key to staged value (what
 *   reads would consult first); every M staged items one durable merge txn puts them, in key
 *   order, into the items database and empties the staging database;
 * - `better-sqlite3`: the suite's contender (WAL, synchronous=FULL).
 * Per contender: µs per batch (merges included), the slowest call (a merge), bytes per item that
 * reached the store's block device (system-wide: run on a quiet machine), the store's size.
 * Interleaved `rounds` times, each on a fresh folder; prints one JSON line per run and the medians.
 * A measurement: it never fails on a figure.
 *
 *   tsx bench/staging-upside.ts [readingsPerSensor=100] [batches=2000] [rounds=3] [M=10000,...] [perTxn=25] [K=1,400,...]
 *
 * `perTxn` 1 makes every write a durable single put (batches then counts puts). `K` adds the
 * redo-log contenders (logged() below): 1 is today's 'log', K > 1 one LMDB txn per K writes.
 *
 * Bench-only exception to "node-lmdb only in storage/": this file measures LMDB itself.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Encoder } from 'cbor-x';
import { CONTENDERS } from './contenders/index.js';
import { lmdb, type Dbi, type Env, type Txn } from './node-lmdb.js';
import { blockBytesWritten, blockDeviceStatFile } from './proc.js';
import { BATCH_SIZE, loadOrder, newReadings, SENSORS, type Reading } from './workload.js';

const cbor = new Encoder({ useRecords: false, mapsAsObjects: true });

interface Ingester {
  open(dir: string): void;
  load(readings: Reading[]): void;
  putBatch(readings: Reading[]): void;
  close(): void;
}

/** Edgetable's placement: a partition id per sensor (creation order) then the sort key. */
function itemKey(r: Reading): Buffer {
  const key = Buffer.allocUnsafe(12);
  key.writeUInt32BE(Number(r.sensorId.slice(r.sensorId.lastIndexOf('-') + 1)), 0);
  key.writeBigUInt64BE(BigInt(r.ts), 4);
  return key;
}

type Put = (txn: Txn, dbi: Dbi, key: Buffer, value: Uint8Array, options?: { append?: boolean }) => void;
const put: Put = (txn, dbi, key, value, options) => (txn.putBinary as unknown as (...a: unknown[]) => void)(dbi, key, value, options);

function openEnv(dir: string, flags: { noSync?: boolean } = {}): { env: Env; items: Dbi } {
  const env = new lmdb.Env();
  env.open({ path: dir, mapSize: 2 * 1024 ** 3, maxDbs: 4, ...flags });
  return { env, items: env.openDbi({ name: 'items', create: true, keyIsBuffer: true }) };
}

function direct(): Ingester {
  let h: ReturnType<typeof openEnv> | undefined;
  const write = (rs: Reading[]) => {
    const txn = h!.env.beginTxn();
    for (const r of rs) put(txn, h!.items, itemKey(r), cbor.encode(r));
    txn.commit();
  };
  return {
    open: (dir) => void (h = openEnv(dir)),
    load: write,
    putBatch: write,
    close: () => h?.env.close(),
  };
}

function staged(mergeEvery: number): Ingester {
  let h: ReturnType<typeof openEnv> | undefined;
  let staging: Dbi | undefined;
  let sequence = 0n;
  // What reads would consult before the items database: item key (latin1) -> staged value.
  const pending = new Map<string, { key: Buffer; value: Uint8Array }>();
  const merge = () => {
    const txn = h!.env.beginTxn();
    const keys = [...pending.keys()].sort();
    for (const k of keys) {
      const { key, value } = pending.get(k)!;
      put(txn, h!.items, key, value);
    }
    (staging as unknown as { drop(o: object): void }).drop({ justFreePages: true, txn });
    txn.commit();
    pending.clear();
  };
  return {
    open(dir) {
      h = openEnv(dir);
      staging = h.env.openDbi({ name: 'staging', create: true, keyIsBuffer: true });
    },
    load(rs) {
      const txn = h!.env.beginTxn();
      for (const r of rs) put(txn, h!.items, itemKey(r), cbor.encode(r));
      txn.commit();
    },
    putBatch(rs) {
      const txn = h!.env.beginTxn();
      for (const r of rs) {
        const key = itemKey(r);
        const value = cbor.encode(r);
        const seq = Buffer.allocUnsafe(8);
        seq.writeBigUInt64BE(++sequence, 0);
        const record = Buffer.allocUnsafe(1 + key.length + value.length);
        record[0] = key.length;
        key.copy(record, 1);
        record.set(value, 1 + key.length);
        put(txn, staging!, seq, record, { append: true });
        pending.set(key.toString('latin1'), { key, value });
      }
      txn.commit();
      if (pending.size >= mergeEvery) merge();
    },
    close: () => h?.env.close(),
  };
}

/**
 * Durability 'log' as edgetable builds it, reduced to LMDB: the env commits without flushes; each
 * write appends its items to a log file (written over from its start after every checkpoint, as
 * the two reused files are) and flushes it; a read txn pins the last checkpoint, so no page freed
 * since is reused before the next one. `commitEvery` 1 is today's protocol (an LMDB commit per
 * write; a checkpoint, on this thread, every 32 writes: what a loop that never yields gets with
 * the default policy). `commitEvery` K > 1 keeps one LMDB write txn open across K writes (each
 * still durable by its log flush before it returns), then commits it and checkpoints: the write
 * txn as the staging level, which this process's reads would share.
 */
function logged(commitEvery: number): Ingester {
  let h: ReturnType<typeof openEnv> | undefined;
  let log = -1;
  let data = -1;
  let logAt = 0;
  let pin: Txn | undefined;
  let open: Txn | undefined;
  let writes = 0;
  const checkpointEvery = commitEvery === 1 ? 32 : commitEvery;
  const checkpoint = () => {
    fdatasyncSync(data); // what the commits since the last checkpoint wrote
    pin?.abort();
    pin = h!.env.beginTxn({ readOnly: true });
    logAt = 0;
  };
  return {
    open(dir) {
      h = openEnv(dir, { noSync: true });
      data = openSync(join(dir, 'data.mdb'), 'r+');
      log = openSync(join(dir, 'redo.log'), 'w+');
    },
    load(rs) {
      const txn = h!.env.beginTxn();
      for (const r of rs) put(txn, h!.items, itemKey(r), cbor.encode(r));
      txn.commit();
      checkpoint();
    },
    putBatch(rs) {
      open ??= h!.env.beginTxn();
      const record: Uint8Array[] = [];
      for (const r of rs) {
        const key = itemKey(r);
        const value = cbor.encode(r);
        put(open, h!.items, key, value);
        record.push(key, value);
      }
      const bytes = Buffer.concat(record);
      logAt += writeSync(log, bytes, 0, bytes.length, logAt);
      fdatasyncSync(log);
      writes += 1;
      if (writes % commitEvery === 0) {
        open.commit();
        open = undefined;
      }
      if (writes % checkpointEvery === 0) checkpoint();
    },
    close() {
      open?.commit();
      pin?.abort();
      if (log >= 0) closeSync(log);
      if (data >= 0) closeSync(data);
      h?.env.close();
    },
  };
}

function sqlite(): Ingester {
  const c = CONTENDERS.sqlite();
  return {
    open: (dir) => c.open(dir),
    load: (rs) => c.putBatch(rs.map((r) => c.prepare(r))),
    putBatch: (rs) => c.putBatch(rs.map((r) => c.prepare(r))),
    close: () => c.close(),
  };
}

function folderBytes(dir: string): number {
  let size = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, name));
    if (s.isFile()) size += s.blocks * 512;
  }
  return size;
}

const args = process.argv.slice(2);
const [readingsPerSensor = 100, batches = 2000, rounds = 3] = args.slice(0, 3).map(Number);
const merges = (args[3] ?? '10000').split(',').map(Number);
const perTxn = Number(args[4] ?? BATCH_SIZE);
const deferrals = args[5] === undefined ? [] : args[5].split(',').map(Number);
const INGESTERS: Record<string, () => Ingester> = {
  direct,
  ...Object.fromEntries(merges.map((m) => [`staged(${m})`, () => staged(m)])),
  ...Object.fromEntries(deferrals.map((k) => [k === 1 ? 'log' : `log, txn open ${k} writes`, () => logged(k)])),
  'better-sqlite3': sqlite,
};

type Run = { us: number; worstMs: number; diskBytesPerItem: number | undefined; storeMiB: number };

function measure(make: () => Ingester): Run {
  const dir = mkdtempSync(join(tmpdir(), 'staging-upside-'));
  const ingester = make();
  ingester.open(dir);
  try {
    const load = [...loadOrder(readingsPerSensor)];
    for (let i = 0; i < load.length; i += BATCH_SIZE) ingester.load(load.slice(i, i + BATCH_SIZE));
    const fresh = newReadings(readingsPerSensor, batches * perTxn);
    const statFile = blockDeviceStatFile(dir);
    const bytes0 = blockBytesWritten(statFile);
    let worst = 0n;
    const started = process.hrtime.bigint();
    for (let b = 0; b < batches; b++) {
      const t = process.hrtime.bigint();
      ingester.putBatch(fresh.slice(b * perTxn, (b + 1) * perTxn));
      const took = process.hrtime.bigint() - t;
      if (took > worst) worst = took;
    }
    const us = Number(process.hrtime.bigint() - started) / 1e3 / batches;
    const bytes1 = blockBytesWritten(statFile);
    const diskBytesPerItem = bytes0 !== undefined && bytes1 !== undefined ? Math.round((bytes1 - bytes0) / (batches * perTxn)) : undefined;
    return { us, worstMs: Number(worst) / 1e6, diskBytesPerItem, storeMiB: folderBytes(dir) / 2 ** 20 };
  } finally {
    ingester.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs = new Map<string, Run[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of Object.entries(INGESTERS)) {
    const run = measure(make);
    runs.set(name, [...(runs.get(name) ?? []), run]);
    console.log(JSON.stringify({ round, contender: name, usPerBatch: Math.round(run.us), worstMs: +run.worstMs.toFixed(1), diskBytesPerItem: run.diskBytesPerItem, storeMiB: +run.storeMiB.toFixed(1) }));
  }
}
for (const [name, xs] of runs) {
  const us = median(xs.map((x) => x.us));
  const disk = xs.map((x) => x.diskBytesPerItem).filter((x): x is number => x !== undefined);
  console.log(
    JSON.stringify({
      contender: name,
      sensors: SENSORS,
      readingsPerSensor,
      batches,
      perTxn,
      rounds,
      usPerBatchMedian: Math.round(us),
      itemsPerSecond: Math.round((perTxn * 1e6) / us),
      worstMsMedian: +median(xs.map((x) => x.worstMs)).toFixed(1),
      diskBytesPerItemMedian: disk.length ? median(disk) : undefined,
      storeMiBMedian: +median(xs.map((x) => x.storeMiB)).toFixed(1),
    }),
  );
}
