/**
 * The timed workloads, in the order they run. Each runs a warm-up (untimed) then the timed
 * operations, stopping early when its time budget runs out (a benchmark measures, never fails on
 * a time). `items` counts what the operations returned so the runner can check the contenders did
 * the same work.
 *
 * A workload runs in rounds (bench/rounds.ts) and every round measures the same thing: reads look
 * up the same keys each round (they change nothing); writes that add items take fresh keys per
 * round, so no round overwrites what an earlier one inserted; UpdateItem draws its keys from a
 * seed per round, so each round mostly adds the counter to items that had none, as the first
 * does. The load runs as segments of the reading rounds (see `load`).
 *
 * The reads run right after the load, before any write workload adds items: they read the store
 * as loaded, and a process's peak memory over "ingest, then every read" is a figure of its own.
 */
import type { Contender } from './contender.js';
import {
  BATCH_SIZE,
  SENSORS,
  LATEST_COUNT,
  SCAN_PAGE_ITEMS,
  WIDE_WINDOW_READINGS,
  WINDOW_READINGS,
  loadOrder,
  newReadings,
  randomKeys,
  randomSensors,
  randomWindows,
  type Sizes,
} from './workload.js';
import { blockBytesWritten, deviceBytesWritten } from './proc.js';

export type Unit = 'ops/s' | 'items/s' | '% of a Query';

export interface Measurement {
  workload: WorkloadName;
  unit: Unit;
  /** Operations (or items, for items/s workloads) completed in the timed part. */
  count: number;
  ms: number;
  /** ops/s or items/s; for 'compile', the compile cost as a percentage of one latest-10 Query. */
  value: number;
  /** Items returned or written, for cross-checking contenders. */
  items: number;
  /**
   * Write workloads: bytes the process caused to be written in the timed part as /proc/self/io
   * counts them (page-cache folios dirtied, each whole: scattered 4 KiB writes read 2-3x high).
   */
  deviceBytes?: number;
  /**
   * Write workloads, where the store is on a block device: bytes that reached it in the timed part
   * (its sectors written, journal included; system-wide, so a quiet machine is assumed).
   */
  blockBytes?: number;
  /**
   * Set when the figure is the median of several rounds (bench/rounds.ts): each round's own
   * figures. `value` is then the median round's; `count`, `ms`, `items` and the bytes are the
   * rounds' sums, so bytes per item stay bytes over items of every round.
   */
  rounds?: RoundFigures[];
}

/** One round of a workload, with what the parent saw around it (bench/suites/contenders.ts). */
export type RoundFigures = Omit<Measurement, 'workload' | 'unit' | 'rounds'> & RoundContext;

export interface RoundContext {
  /** The round's place (0 = first) in its contender order. */
  position: number;
  /** The step's wall time as the parent saw it (warm-up and IPC included), and the contender's CPU ms in it (all its threads). */
  stepMs?: number;
  ownCpuMs?: number;
  /** CPU ms the other contenders' processes, idle by design, used during the step (/proc/<pid>/stat). */
  othersCpuMs?: number;
  /** The machine's dirty and under-writeback page cache when the step began (/proc/meminfo). */
  dirtyBytes?: number;
}

export const WORKLOAD_NAMES = ['batch', 'get', 'latest', 'window', 'window-1000', 'scan', 'put', 'put-noflush', 'update', 'cond-put', 'compile'] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];
/** The reads of the loaded store: with the load, the span of the "ingest, then every read" memory peak. */
export const READ_WORKLOADS: readonly WorkloadName[] = ['get', 'latest', 'window', 'window-1000', 'scan'];

export const WORKLOAD_LABELS: Record<WorkloadName, string> = {
  batch: 'BatchWriteItem x25 (items/s, durable)',
  get: 'GetItem, random existing key (ops/s)',
  latest: 'Query latest 10 of a sensor (ops/s)',
  window: `Query time window, ~${WINDOW_READINGS} items (ops/s)`,
  'window-1000': `Query time window, ~${WIDE_WINDOW_READINGS.toLocaleString('en-US')} items (ops/s)`,
  scan: `Scan, pages of ${SCAN_PAGE_ITEMS} (items/s)`,
  put: 'PutItem, one per txn (ops/s, durable)',
  'put-noflush': 'PutItem, one per txn, no flush per commit (ops/s)',
  update: 'UpdateItem ADD #c :one (ops/s, durable)',
  'cond-put': 'PutItem attribute_not_exists, new key (ops/s, durable)',
  compile: 'Cached expression compile, % of a latest-10 Query',
};

/** New-key reading indexes per write workload, far from the loaded ones and from each other. */
const FRESH_INDEX = { put: 100_000, condPut: 200_000, warm: 300_000, putNoFlush: 400_000 };
/**
 * Round r of a write workload starts its new keys r * ROUND_INDEX_STRIDE reading indexes further
 * (a round's keys span count / SENSORS indexes: up to 1,000,000 items per round stay apart), and
 * draws random keys from seed + r * ROUND_SEED_STRIDE (the workloads' seeds are 1-6).
 */
const ROUND_INDEX_STRIDE = 1000;
const ROUND_SEED_STRIDE = 100;
/** Time budgets per timed run: durable single-item writes are fsync-bound, so they get less. */
const BUDGET_MS = 10_000;
const DURABLE_BUDGET_MS = 6_000;

interface Timed {
  count: number;
  ms: number;
  items: number;
}

/** The least time between two calls of a RunContext's `sample` inside a timed loop. */
const SAMPLE_INTERVAL_MS = 100;

/**
 * Runs op(i) for i < n, checking the clock every 32 ops; stops at the budget. `sample` is called
 * at most every SAMPLE_INTERVAL_MS at those checks: a timer could not fire in a synchronous loop.
 */
function timeLoop(n: number, op: (i: number) => number, budgetMs = BUDGET_MS, sample?: () => void): Timed {
  const start = performance.now();
  let nextSample = start + SAMPLE_INTERVAL_MS;
  let items = 0;
  let i = 0;
  for (; i < n; i++) {
    items += op(i);
    if ((i & 31) === 31) {
      const now = performance.now();
      if (now - start > budgetMs) {
        i++;
        break;
      }
      if (sample && now >= nextSample) {
        sample();
        nextSample = now + SAMPLE_INTERVAL_MS;
      }
    }
  }
  return { count: i, ms: performance.now() - start, items };
}

function warm(n: number, op: (i: number) => unknown): void {
  for (let i = 0; i < n; i++) op(i);
}

const perSecond = (t: Timed, count = t.count) => (count * 1000) / t.ms;

/**
 * `blockDevice`: the /sys statistics file of the disk holding the contender's store (proc.ts), if
 * any; `sample`: called every ~100 ms inside timed loops (the child samples its memory).
 */
export type RunContext = { contender: Contender; sizes: Sizes; log: (msg: string) => void; blockDevice?: string; sample?: () => void };

type WrittenBytes = Pick<Measurement, 'deviceBytes' | 'blockBytes'>;

/** Starts counting what a timed write part writes; the returned function tells it so far. */
function writeMeter(blockDevice: string | undefined): () => WrittenBytes {
  const process0 = deviceBytesWritten() ?? NaN;
  const block0 = blockBytesWritten(blockDevice);
  return () => {
    const block1 = blockBytesWritten(blockDevice);
    return { deviceBytes: (deviceBytesWritten() ?? NaN) - process0, ...(block0 !== undefined && block1 !== undefined ? { blockBytes: block1 - block0 } : {}) };
  };
}

/** Readings prepared at a time during the load: the inputs of a 1 M-item load never sit in memory at once. */
const LOAD_CHUNK_ITEMS = 10_000;

/**
 * Loads the table (the 'batch' workload, always run: every other workload reads its data), or
 * segment `segment` of `segments` of it: the reading rounds (one reading of every sensor each)
 * split into equal runs, so the parent can interleave the contenders' loads segment by segment.
 * A later segment writes into a bigger store, so the segments' rates also differ by that, alike
 * for every contender. The untimed warm-up runs before the first segment only (its keys are
 * written once; the process is warm for the later ones). `range`: the reading rounds to load,
 * [from, to); a store grown in stages (the growth suite) loads from where the last stage ended.
 */
export function load({ contender: c, sizes, log, blockDevice, sample }: RunContext, segment = 0, segments = 1, range: readonly [number, number] = [0, sizes.readingsPerSensor]): Measurement {
  const [first, end] = range;
  if (segment === 0 && first === 0) {
    const warmBatches = chunk(newReadings(FRESH_INDEX.warm, 50 * BATCH_SIZE).map((r) => c.prepare(r)), BATCH_SIZE);
    warm(warmBatches.length, (i) => c.putBatch(warmBatches[i]!));
  }
  const from = first + Math.floor((segment * (end - first)) / segments);
  const to = first + Math.floor(((segment + 1) * (end - first)) / segments);
  log(`loading ${SENSORS * (to - from)} items in batches of ${BATCH_SIZE}${segments > 1 ? ` (segment ${segment + 1} of ${segments})` : ''}`);
  const total: Timed = { count: 0, ms: 0, items: 0 };
  let bytes = 0;
  let block: number | undefined = 0;
  const readings = loadOrder(to, from);
  let next = readings.next();
  while (!next.done) {
    // Prepared outside the timing, a chunk at a time.
    const inputs: unknown[] = [];
    for (; !next.done && inputs.length < LOAD_CHUNK_ITEMS; next = readings.next()) inputs.push(c.prepare(next.value));
    const batches = chunk(inputs, BATCH_SIZE);
    const written = writeMeter(blockDevice);
    const t = timeLoop(batches.length, (i) => (c.putBatch(batches[i]!), batches[i]!.length), Infinity, sample);
    const w = written();
    bytes += w.deviceBytes!;
    block = block === undefined || w.blockBytes === undefined ? undefined : block + w.blockBytes;
    total.count += t.count;
    total.ms += t.ms;
    total.items += t.items;
  }
  return { workload: 'batch', unit: 'items/s', count: total.items, ms: total.ms, value: perSecond(total, total.items), items: total.items, deviceBytes: bytes, ...(block !== undefined ? { blockBytes: block } : {}) };
}

/** Round `round` (from 0) of a workload; undefined when the contender has no such operation (only edgetable compiles expressions). */
export function run(name: Exclude<WorkloadName, 'batch'>, ctx: RunContext, round = 0): Measurement | undefined {
  const { contender: c, sizes } = ctx;
  const fresh = (index: number) => index + round * ROUND_INDEX_STRIDE;
  const seed = (base: number) => base + round * ROUND_SEED_STRIDE;
  const rps = sizes.readingsPerSensor;
  const ops = (unit: Unit, t: Timed): Measurement => ({ workload: name, unit, count: t.count, ms: t.ms, value: perSecond(t), items: t.items });
  const time = (n: number, op: (i: number) => number, budgetMs = BUDGET_MS) => timeLoop(n, op, budgetMs, ctx.sample);
  switch (name) {
    case 'put': {
      const inputs = newReadings(fresh(FRESH_INDEX.put), sizes.putItem).map((r) => c.prepare(r));
      const warmInputs = newReadings(fresh(FRESH_INDEX.warm + 100), 100).map((r) => c.prepare(r));
      warm(warmInputs.length, (i) => c.putItem(warmInputs[i]!));
      const written = writeMeter(ctx.blockDevice);
      const t = time(inputs.length, (i) => (c.putItem(inputs[i]!), 1), DURABLE_BUDGET_MS);
      return { ...ops('ops/s', t), ...written() };
    }
    case 'put-noflush': {
      if (!c.setNoFlush) return undefined;
      const inputs = newReadings(fresh(FRESH_INDEX.putNoFlush), sizes.putNoFlush).map((r) => c.prepare(r));
      const warmInputs = newReadings(fresh(FRESH_INDEX.warm + 300), 100).map((r) => c.prepare(r));
      c.setNoFlush(true);
      try {
        warm(warmInputs.length, (i) => c.putItem(warmInputs[i]!));
        const written = writeMeter(ctx.blockDevice);
        const t = time(inputs.length, (i) => (c.putItem(inputs[i]!), 1), DURABLE_BUDGET_MS);
        return { ...ops('ops/s', t), ...written() };
      } finally {
        c.setNoFlush(false);
      }
    }
    case 'get': {
      const keys = randomKeys(1, sizes.getItem, rps);
      warm(Math.min(20_000, keys.length), (i) => c.getItem(keys[keys.length - 1 - i]!));
      return ops('ops/s', time(keys.length, (i) => c.getItem(keys[i]!)));
    }
    case 'latest': {
      const sensors = randomSensors(2, sizes.queryLatest);
      warm(Math.min(2000, sensors.length), (i) => c.queryLatest(sensors[sensors.length - 1 - i]!, LATEST_COUNT));
      return ops('ops/s', time(sensors.length, (i) => c.queryLatest(sensors[i]!, LATEST_COUNT)));
    }
    case 'window': {
      const windows = randomWindows(3, sizes.queryWindow, rps);
      warm(Math.min(500, windows.length), (i) => c.queryWindow(windows[windows.length - 1 - i]!));
      return ops('ops/s', time(windows.length, (i) => c.queryWindow(windows[i]!)));
    }
    case 'window-1000': {
      const windows = randomWindows(7, sizes.queryWideWindow, rps, WIDE_WINDOW_READINGS);
      warm(Math.min(50, windows.length), (i) => c.queryWindow(windows[windows.length - 1 - i]!));
      return ops('ops/s', time(windows.length, (i) => c.queryWindow(windows[i]!)));
    }
    case 'scan': {
      // The warm-up pass reads a tenth of a timed one: a 10 M table's full pass would double the step.
      c.scanAll(SCAN_PAGE_ITEMS, Math.max(SCAN_PAGE_ITEMS, sizes.scanItems / 10));
      // A pass is one op of the timed loop: its pages are where memory is sampled.
      const onPage = ctx.sample && throttled(ctx.sample);
      const t = time(sizes.scanPasses, () => c.scanAll(SCAN_PAGE_ITEMS, sizes.scanItems, onPage), BUDGET_MS);
      return { workload: name, unit: 'items/s', count: t.items, ms: t.ms, value: perSecond(t, t.items), items: t.items };
    }
    case 'update': {
      const keys = randomKeys(seed(4), sizes.updateItem, rps);
      const warmKeys = randomKeys(seed(5), 100, rps);
      warm(warmKeys.length, (i) => c.incrementCounter(warmKeys[i]!));
      return ops('ops/s', time(keys.length, (i) => (c.incrementCounter(keys[i]!), 1), DURABLE_BUDGET_MS));
    }
    case 'cond-put': {
      const inputs = newReadings(fresh(FRESH_INDEX.condPut), sizes.conditionalPut).map((r) => c.prepare(r));
      const warmInputs = newReadings(fresh(FRESH_INDEX.warm + 200), 100).map((r) => c.prepare(r));
      warm(warmInputs.length, (i) => c.putIfAbsent(warmInputs[i]!));
      return ops('ops/s', time(inputs.length, (i) => c.putIfAbsent(inputs[i]!), DURABLE_BUDGET_MS));
    }
    case 'compile': {
      const compile = c.extras?.compile;
      if (!compile) return undefined;
      const sensors = randomSensors(6, sizes.compile);
      warm(Math.min(5000, sensors.length), (i) => compile(sensors[i]!));
      const tc = time(sensors.length, (i) => (compile(sensors[i]!), 1));
      const tq = time(sensors.length, (i) => c.queryLatest(sensors[i]!, LATEST_COUNT));
      const percent = (100 * (tc.ms / tc.count)) / (tq.ms / tq.count);
      return { workload: name, unit: '% of a Query', count: tc.count, ms: tc.ms, value: percent, items: tc.count };
    }
  }
}

/** `f` called at most every SAMPLE_INTERVAL_MS. */
function throttled(f: () => void): () => void {
  let next = performance.now() + SAMPLE_INTERVAL_MS;
  return () => {
    const now = performance.now();
    if (now < next) return;
    f();
    next = now + SAMPLE_INTERVAL_MS;
  };
}

function chunk<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}
