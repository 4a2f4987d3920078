/**
 * The timed workloads, in the order they run. Each runs a warm-up (untimed) then the timed
 * operations, stopping early when its time budget runs out (a benchmark measures, never fails on
 * a time). `items` counts what the operations returned so the runner can check the contenders did
 * the same work.
 */
import type { Contender } from './contender.js';
import {
  BATCH_SIZE,
  SENSORS,
  LATEST_COUNT,
  SCAN_PAGE_ITEMS,
  loadOrder,
  newReadings,
  randomKeys,
  randomSensors,
  randomWindows,
  type Sizes,
} from './workload.js';
import { deviceBytesWritten } from './proc.js';

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
  /** Write workloads: bytes the process caused to be written to the device in the timed part (/proc/self/io). */
  deviceBytes?: number;
}

export const WORKLOAD_NAMES = ['batch', 'put', 'get', 'latest', 'window', 'scan', 'update', 'cond-put', 'compile'] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];

export const WORKLOAD_LABELS: Record<WorkloadName, string> = {
  batch: 'BatchWriteItem x25 (items/s, durable)',
  put: 'PutItem, one per txn (ops/s, durable)',
  get: 'GetItem, random existing key (ops/s)',
  latest: 'Query latest 10 of a sensor (ops/s)',
  window: `Query time window, ~100 items (ops/s)`,
  scan: `Scan, pages of ${SCAN_PAGE_ITEMS} (items/s)`,
  update: 'UpdateItem ADD #c :one (ops/s, durable)',
  'cond-put': 'PutItem attribute_not_exists, new key (ops/s, durable)',
  compile: 'Cached expression compile, % of a latest-10 Query',
};

/** New-key reading indexes per write workload, far from the loaded ones and from each other. */
const FRESH_INDEX = { put: 100_000, condPut: 200_000, warm: 300_000 };
/** Time budgets per timed run: durable single-item writes are fsync-bound, so they get less. */
const BUDGET_MS = 10_000;
const DURABLE_BUDGET_MS = 6_000;

interface Timed {
  count: number;
  ms: number;
  items: number;
}

/** Runs op(i) for i < n, checking the clock every 32 ops; stops at the budget. */
function time(n: number, op: (i: number) => number, budgetMs = BUDGET_MS): Timed {
  const start = performance.now();
  let items = 0;
  let i = 0;
  for (; i < n; i++) {
    items += op(i);
    if ((i & 31) === 31 && performance.now() - start > budgetMs) {
      i++;
      break;
    }
  }
  return { count: i, ms: performance.now() - start, items };
}

function warm(n: number, op: (i: number) => unknown): void {
  for (let i = 0; i < n; i++) op(i);
}

const perSecond = (t: Timed, count = t.count) => (count * 1000) / t.ms;

export type RunContext = { contender: Contender; sizes: Sizes; log: (msg: string) => void };

/** Readings prepared at a time during the load: the inputs of a 1 M-item load never sit in memory at once. */
const LOAD_CHUNK_ITEMS = 10_000;

/** Loads the table (the 'batch' workload, always run: every other workload reads its data). */
export function load({ contender: c, sizes, log }: RunContext): Measurement {
  const warmBatches = chunk(newReadings(FRESH_INDEX.warm, 50 * BATCH_SIZE).map((r) => c.prepare(r)), BATCH_SIZE);
  warm(warmBatches.length, (i) => c.putBatch(warmBatches[i]!));
  log(`loading ${SENSORS * sizes.readingsPerSensor} items in batches of ${BATCH_SIZE}`);
  const total: Timed = { count: 0, ms: 0, items: 0 };
  let bytes = 0;
  const readings = loadOrder(sizes.readingsPerSensor);
  let next = readings.next();
  while (!next.done) {
    // Prepared outside the timing, a chunk at a time.
    const inputs: unknown[] = [];
    for (; !next.done && inputs.length < LOAD_CHUNK_ITEMS; next = readings.next()) inputs.push(c.prepare(next.value));
    const batches = chunk(inputs, BATCH_SIZE);
    const written = deviceBytesWritten() ?? NaN;
    const t = time(batches.length, (i) => (c.putBatch(batches[i]!), batches[i]!.length), Infinity);
    bytes += (deviceBytesWritten() ?? NaN) - written;
    total.count += t.count;
    total.ms += t.ms;
    total.items += t.items;
  }
  return { workload: 'batch', unit: 'items/s', count: total.items, ms: total.ms, value: perSecond(total, total.items), items: total.items, deviceBytes: bytes };
}

/** Undefined when the contender has no such operation (only edgetable compiles expressions). */
export function run(name: Exclude<WorkloadName, 'batch'>, ctx: RunContext): Measurement | undefined {
  const { contender: c, sizes } = ctx;
  const rps = sizes.readingsPerSensor;
  const ops = (unit: Unit, t: Timed): Measurement => ({ workload: name, unit, count: t.count, ms: t.ms, value: perSecond(t), items: t.items });
  switch (name) {
    case 'put': {
      const inputs = newReadings(FRESH_INDEX.put, sizes.putItem).map((r) => c.prepare(r));
      const warmInputs = newReadings(FRESH_INDEX.warm + 100, 100).map((r) => c.prepare(r));
      warm(warmInputs.length, (i) => c.putItem(warmInputs[i]!));
      const written = deviceBytesWritten() ?? NaN;
      const t = time(inputs.length, (i) => (c.putItem(inputs[i]!), 1), DURABLE_BUDGET_MS);
      return { ...ops('ops/s', t), deviceBytes: (deviceBytesWritten() ?? NaN) - written };
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
    case 'scan': {
      c.scanAll(SCAN_PAGE_ITEMS);
      const t = time(sizes.scanPasses, () => c.scanAll(SCAN_PAGE_ITEMS), BUDGET_MS);
      return { workload: name, unit: 'items/s', count: t.items, ms: t.ms, value: perSecond(t, t.items), items: t.items };
    }
    case 'update': {
      const keys = randomKeys(4, sizes.updateItem, rps);
      const warmKeys = randomKeys(5, 100, rps);
      warm(warmKeys.length, (i) => c.incrementCounter(warmKeys[i]!));
      return ops('ops/s', time(keys.length, (i) => (c.incrementCounter(keys[i]!), 1), DURABLE_BUDGET_MS));
    }
    case 'cond-put': {
      const inputs = newReadings(FRESH_INDEX.condPut, sizes.conditionalPut).map((r) => c.prepare(r));
      const warmInputs = newReadings(FRESH_INDEX.warm + 200, 100).map((r) => c.prepare(r));
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

function chunk<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}
