/**
 * Issue 48's item-block prototype, measured (docs/decisions/022-item-blocks.md):
 * `nice -n 5 npx tsx bench/block-layout.ts [--per-sensor 1000] [--rounds 3] [--block 4000,2000] [--v2 2000] [--v2-directory] [--dir /tmp/block-layout]`
 * (`--block`: the prototype's codec, bench/block-codec.ts; `--v2`: the engine's, bench/block-layout-v2.ts; '' for none).
 *
 * Each round loads SENSORS x perSensor readings (bench/workload.ts, round-robin arrival, 1,000
 * per durable txn) into fresh stores of each layout (bench/block-layouts.ts: per-item LMDB
 * entries holding edgetable's records, item blocks, better-sqlite3 WAL synchronous=FULL), one
 * after another, and measures per layout: ingest readings/s (txn work only, readings made
 * outside the clock), bytes this process caused to be written per reading (/proc/self/io
 * write_bytes), store size (allocated blocks of the files), windows of 100 and 1,000 readings of
 * one sensor, latest-10, point gets, a full scan, and single durable txns: an append of a new
 * reading and an update of one existing reading. Reads return DynamoDB wire items (better-sqlite3
 * twice: its rows as they come, and mapped to wire items). Prints each round and the medians.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BlockLayout, PerItemLayout, type Layout, type WireItem } from './block-layouts.js';
import { SqliteLayout } from './sqlite-layout.js';
import { BlockLayoutV2 } from './block-layout-v2.js';
import { deviceBytesWritten } from './proc.js';
import { reading, rng, SENSORS, sensorId, timestamp, type Reading } from './workload.js';
import { open, type Edgetable } from '../src/index.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const PER_SENSOR = Number(option('per-sensor', '1000'));
const ROUNDS = Number(option('rounds', '3'));
const BLOCK_BYTES = option('block', '4000,2000').split(',').filter(Boolean).map(Number);
/** Block sizes of the engine's codec (src/codec/item-block*.ts), the gate of decision 022's step 1. */
const V2_BLOCK_BYTES = option('v2', '2000').split(',').filter(Boolean).map(Number);
/** `--v2-directory`: also each v2 size with point gets from an in-memory directory of block keys (bench/block-layout-v2.ts). */
const V2_DIRECTORY = args.includes('--v2-directory');
const ROOT = option('dir', '/tmp/block-layout');
const EDGETABLE_DIR = option('edgetable', '');
const TXN_READINGS = 1000;
const COUNTS = { window100: 2000, window1000: 200, latest: 10_000, get: 20_000, put: 200, update: 200 };

type Figures = Record<string, number>;

function storeBytes(files: readonly string[]): number {
  let total = 0;
  for (const f of files) {
    try {
      total += statSync(f).blocks * 512;
    } catch {
      // a WAL file may be gone after close
    }
  }
  return total;
}

/**
 * Runs `n` calls of `fn` for each reader, interleaved in SLICES slices (reader A's slice, B's, ...,
 * then the next slice), after a warm-up: on a machine shared with other work, a change of load
 * then falls on every reader alike. Calls per second, per reader.
 */
function interleaved<R>(readers: readonly R[], n: number, fn: (reader: R, i: number) => void, warmFrom = 0): number[] {
  for (const r of readers) for (let i = 0; i < Math.ceil(n / 10); i++) fn(r, warmFrom + i);
  const ms = readers.map(() => 0);
  const slice = Math.ceil(n / SLICES);
  for (let from = 0, turn = 0; from < n; from += slice, turn++) {
    // Each slice starts with the next reader: the garbage one leaves is collected during the
    // next one's slice, so no reader always follows the same other.
    for (let j = 0; j < readers.length; j++) {
      const k = (turn + j) % readers.length;
      const t0 = performance.now();
      for (let i = from; i < Math.min(n, from + slice); i++) fn(readers[k]!, i);
      ms[k]! += performance.now() - t0;
    }
  }
  return ms.map((t) => n / (t / 1000));
}
const SLICES = 10;

function windows(seed: number, n: number, span: number): { s: number; from: number; to: number }[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const s = Math.floor(r() * SENSORS);
    const i = Math.floor(r() * (PER_SENSOR - span + 1));
    return { s, from: timestamp(s, i), to: timestamp(s, i + span - 1) };
  });
}

/** Loads every layout batch by batch, in turn: time and bytes written are taken around each layout's txn. */
function ingest(layouts: readonly Layout[]): Figures[] {
  const total = SENSORS * PER_SENSOR;
  const body0 = layouts.map((l) => (l as Partial<{ bodyMs: number }>).bodyMs ?? NaN);
  const ms = layouts.map(() => 0);
  const written = layouts.map(() => 0);
  for (let i = 0; i < total; ) {
    const batch: Reading[] = [];
    for (const end = Math.min(i + TXN_READINGS, total); i < end; i++) batch.push(reading(i % SENSORS, Math.floor(i / SENSORS)));
    layouts.forEach((layout, k) => {
      const w0 = deviceBytesWritten() ?? NaN;
      const t0 = performance.now();
      layout.putBatch(batch);
      ms[k]! += performance.now() - t0;
      written[k]! += (deviceBytesWritten() ?? NaN) - w0;
    });
  }
  return layouts.map((layout, k) => ({
    ingestPerS: total / (ms[k]! / 1000),
    ingestBodyMicros: ((((layout as Partial<{ bodyMs: number }>).bodyMs ?? NaN) - body0[k]!) * 1000) / total,
    writtenPerReading: written[k]! / total, storeMB: storeBytes(layout.files) / 2 ** 20 }));
}

/** A reader of the loaded readings: a layout, or the same layout answering another way. */
export type Reader = Pick<Layout, 'name' | 'window' | 'latest' | 'get' | 'scan'>;

function reads(readers: readonly Reader[]): Figures[] {
  const span = Math.min(100, PER_SENSOR);
  const w100 = windows(100, COUNTS.window100, span);
  const w1000 = windows(1000, COUNTS.window1000, PER_SENSOR);
  const r = rng(7);
  const gets = Array.from({ length: COUNTS.get }, () => {
    const s = Math.floor(r() * SENSORS);
    return { s, ts: timestamp(s, Math.floor(r() * PER_SENSOR)) };
  });
  const check = (reader: Reader, got: number, want: number, what: string) => {
    if (got !== want) throw new Error(`${reader.name} ${what}: ${got} items, expected ${want}`);
  };
  const out: Figures[] = readers.map(() => ({}));
  const put = (metric: string, perS: number[]) => perS.forEach((v, k) => (out[k]![metric] = v));
  put('window100PerS', interleaved(readers, COUNTS.window100, (l, i) => check(l, l.window(w100[i]!.s, w100[i]!.from, w100[i]!.to).length, span, 'window')));
  put('window1000PerS', interleaved(readers, COUNTS.window1000, (l, i) => check(l, l.window(w1000[i]!.s, w1000[i]!.from, w1000[i]!.to).length, PER_SENSOR, 'window')));
  put('latest10PerS', interleaved(readers, COUNTS.latest, (l, i) => check(l, l.latest(i % SENSORS, 10).length, 10, 'latest')));
  put('getPerS', interleaved(readers, COUNTS.get, (l, i) => check(l, l.get(gets[i]!.s, gets[i]!.ts) ? 1 : 0, 1, 'get')));
  readers.forEach((l, k) => {
    const t0 = performance.now();
    const scanned = l.scan();
    out[k]!.scanPerS = scanned / ((performance.now() - t0) / 1000);
    check(l, scanned, SENSORS * PER_SENSOR, 'scan');
  });
  return out;
}

/** Single durable txns, in turn per layout: appends of new readings (a sensor's next), then updates of existing ones. */
function singles(layouts: readonly Layout[], round: number): Figures[] {
  const firstNew = PER_SENSOR + round * COUNTS.put;
  const body = () => layouts.map((l) => (l as Partial<{ bodyMs: number }>).bodyMs ?? NaN);
  const body0 = body();
  const put = interleaved(layouts, COUNTS.put, (l, k) => l.putBatch([reading((k * 7) % SENSORS, firstNew + k)]), COUNTS.put);
  const body1 = body();
  const r = rng(11);
  const targets = Array.from({ length: COUNTS.update + Math.ceil(COUNTS.update / 10) }, () => {
    const s = Math.floor(r() * SENSORS);
    return { s, ts: timestamp(s, Math.floor(r() * PER_SENSOR)) };
  });
  const update = interleaved(layouts, COUNTS.update, (l, k) => l.update(targets[k]!.s, targets[k]!.ts, '21.25'), COUNTS.update);
  const body2 = body();
  const calls = COUNTS.put + Math.ceil(COUNTS.put / 10);
  return layouts.map((_, k) => ({
    singlePutPerS: put[k]!,
    singleUpdatePerS: update[k]!,
    putBodyMicros: ((body1[k]! - body0[k]!) * 1000) / calls,
    updateBodyMicros: ((body2[k]! - body1[k]!) * 1000) / calls,
  }));
}

/** The same windows, latest and gets from every layout, compared as sorted JSON. */
function sameAnswers(layouts: readonly Layout[]): void {
  const canon = (items: readonly (WireItem | undefined)[]) => JSON.stringify(items.map((it) => (it ? Object.fromEntries(Object.entries(it).sort(([a], [b]) => (a < b ? -1 : 1))) : null)));
  for (const w of windows(3, 30, Math.min(100, PER_SENSOR))) {
    const answers = layouts.map((l) => canon([...l.window(w.s, w.from, w.to), ...l.latest(w.s, 10), l.get(w.s, w.from)]));
    for (let i = 1; i < answers.length; i++) if (answers[i] !== answers[0]) throw new Error(`${layouts[i]!.name} answers differ from ${layouts[0]!.name}`);
  }
}

function round(n: number): Record<string, Figures> {
  const dir = (name: string) => {
    const d = join(ROOT, name);
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
    return d;
  };
  const perItem = new PerItemLayout();
  const blocks = BLOCK_BYTES.map((bytes) => new BlockLayout(bytes, true));
  const v2 = V2_BLOCK_BYTES.flatMap((bytes) => [new BlockLayoutV2(bytes), ...(V2_DIRECTORY ? [new BlockLayoutV2(bytes, true)] : [])]);
  const sqlite = new SqliteLayout();
  const layouts: Layout[] = [perItem, ...blocks, ...v2, sqlite];
  for (const layout of layouts) layout.open(dir(layout.name));
  const out: Record<string, Figures> = {};
  ingest(layouts).forEach((f, k) => (out[layouts[k]!.name] = f));
  sqlite.wire = true;
  sameAnswers(layouts);
  const sqliteWire: Reader = { name: 'sqlite-wire', window: (...a) => sqlite.window(...a), latest: (...a) => sqlite.latest(...a), get: (...a) => sqlite.get(...a), scan: () => sqlite.scan() };
  const sqliteRows: Reader = { name: 'sqlite-rows', window: (...a) => withRows(() => sqlite.window(...a)), latest: (...a) => withRows(() => sqlite.latest(...a)), get: (...a) => withRows(() => sqlite.get(...a)), scan: () => withRows(() => sqlite.scan()) };
  const withRows = <T>(fn: () => T): T => {
    sqlite.wire = false;
    try {
      return fn();
    } finally {
      sqlite.wire = true;
    }
  };
  const readers: Reader[] = [perItem, ...blocks, ...v2, sqliteRows, sqliteWire, ...(edgetable ? [edgetable] : [])];
  reads(readers).forEach((f, k) => (out[readers[k]!.name] = { ...out[readers[k]!.name], ...f }));
  sqlite.wire = false;
  singles(layouts, n).forEach((f, k) => Object.assign(out[layouts[k]!.name]!, f));
  for (const b of [...blocks, ...v2]) {
    out[b.name]!.appendsPerReading = b.appended / (SENSORS * PER_SENSOR + COUNTS.put * 1.1);
    out[b.name]!.tailMisses = b.tailMisses;
    out[b.name]!.reencoded = b.reencoded;
    out[b.name]!.blocks = b.blockCount();
  }
  for (const layout of layouts) {
    out[layout.name]!.storeAfterMB = storeBytes(layout.files) / 2 ** 20;
    layout.close();
  }
  rmSync(ROOT, { recursive: true, force: true });
  return out;
}

/**
 * edgetable itself through its embedded API, on a store of the same readings loaded beforehand
 * (`bench/window-profile.ts load DIR`): the engine the per-item layout stands for, reads only.
 */
function edgetableReader(db: Edgetable): Reader {
  const T = 'Readings';
  return {
    name: 'edgetable',
    window: (s, from, to) =>
      db.query({ TableName: T, KeyConditionExpression: 'sensorId = :s AND ts BETWEEN :f AND :t', ExpressionAttributeValues: { ':s': { S: sensorId(s) }, ':f': { N: String(from) }, ':t': { N: String(to) } } })
        .Items as WireItem[],
    latest: (s, count) =>
      db.query({ TableName: T, KeyConditionExpression: 'sensorId = :s', ExpressionAttributeValues: { ':s': { S: sensorId(s) } }, ScanIndexForward: false, Limit: count }).Items as WireItem[],
    get: (s, ts) => db.getItem({ TableName: T, Key: { sensorId: { S: sensorId(s) }, ts: { N: String(ts) } } }).Item as WireItem | undefined,
    scan: () => {
      let n = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const page = db.scan({ TableName: T, Limit: 1000, ...(start ? { ExclusiveStartKey: start } : {}) } as Parameters<Edgetable['scan']>[0]);
        n += page.Items?.length ?? 0;
        start = page.LastEvaluatedKey;
      } while (start);
      return n;
    },
  };
}
const edgetableDb = EDGETABLE_DIR ? open({ path: EDGETABLE_DIR, mapSizeBytes: 2 * 2 ** 30, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 }) : undefined;
const edgetable = edgetableDb ? edgetableReader(edgetableDb) : undefined;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const rounds: Record<string, Figures>[] = [];
for (let n = 0; n < ROUNDS; n++) {
  const r = round(n);
  rounds.push(r);
  console.log(`round ${n + 1}: ${JSON.stringify(r)}`);
}
const names = Object.keys(rounds[0]!);
const metrics = [...new Set(names.flatMap((l) => Object.keys(rounds[0]![l]!)))];
console.log(`\nmedians of ${ROUNDS} round(s), ${SENSORS * PER_SENSOR} readings, blocks of at most ${BLOCK_BYTES.join(' / ')} bytes`);
console.log(['metric', ...names].join('\t'));
for (const m of metrics) {
  const row = names.map((l) => {
    const xs = rounds.map((r) => r[l]![m]).filter((x): x is number => x !== undefined);
    if (xs.length === 0) return '-';
    const v = median(xs);
    return v >= 100 ? String(Math.round(v)) : v.toFixed(2);
  });
  console.log([m, ...row].join('\t'));
}
edgetableDb?.close();
