/**
 * Suite `contenders`: edgetable against raw node-lmdb and better-sqlite3 on the sensor workload.
 *
 * One child per contender (bench/child.ts, compiled), run one step at a time across them by
 * bench/contenders-run.ts (the load, then each workload, in interleaved rounds) on one store size:
 * 1,000,000 readings in a full run. `only`, `contenders` and `profileDir` narrow the run
 * (bench/run.ts flags); `rounds` sets the rounds (--rounds, default DEFAULT_ROUNDS); `items` the
 * size (--items).
 */
import { loadavg } from 'node:os';
import type { ChildConfig } from '../child.js';
import { CONTENDERS, type ContenderId } from '../contenders/index.js';
import { wireItem } from '../contenders/edgetable.js';
import { renderMarkdown, type Report } from '../report.js';
import { runContenders } from '../contenders-run.js';
import { DEFAULT_ROUNDS } from '../rounds.js';
import { FULL, QUICK, TINY, SENSORS, reading, BATCH_SIZE, SCAN_PAGE_ITEMS, WINDOW_READINGS, WIDE_WINDOW_READINGS, type Sizes } from '../workload.js';
import { WORKLOAD_NAMES, type WorkloadName } from '../workloads.js';
import { machineInfo, type BenchSize, type SuiteOptions, type SuiteReport } from '../suite.js';
import { itemSize } from '../../src/model/item-size.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';

/**
 * Idle time of every contender with its store open, before the load (not in tiny runs).
 * Why: a process's state can depend on how long it has idled, and between its steps each child
 * idles while the others run, so for as long as the other contenders' steps take: with raw
 * node-lmdb's slow steps in the run, edgetable's did idle long enough and without them it did not.
 * edgetable holds V8's young generation from growing (src/young-generation.ts); V8 shrinks it
 * after 7-9 s of idling (6 s did not, 9 s did: docs/decisions/018-benchmark-method.md) and,
 * held, it never grows back: every later Scan page outlives the 1 MiB semi-space, ~2x the CPU per
 * scan, and the process holds less memory. better-sqlite3 and raw node-lmdb scanned as fast after
 * a 12 s pause as before it. One pause for all before the load puts every contender in its
 * after-idle state for the whole run (a device between bursts is in it), whichever contenders
 * run; it costs SETTLE_MS once per run.
 */
export const SETTLE_MS = 12_000;

export interface ContendersOptions extends SuiteOptions {
  workloads?: readonly WorkloadName[];
  contenders?: readonly ContenderId[];
  profileDir?: string;
  /** Items loaded (rounded to whole rounds of the 1,000 sensors); default by size: 1,000,000 full. */
  items?: number;
  /** Timed rounds per workload and contender (the median is reported); default DEFAULT_ROUNDS. */
  rounds?: number;
}

export async function runContendersSuite(options: ContendersOptions): Promise<SuiteReport> {
  const started = performance.now();
  const workloads = options.workloads ?? WORKLOAD_NAMES;
  const contenders = options.contenders ?? (Object.keys(CONTENDERS) as ContenderId[]);
  const preset = sizesFor(options);
  const sizes = options.items === undefined ? preset : { ...preset, readingsPerSensor: Math.max(1, Math.round(options.items / SENSORS)) };
  const config: ChildConfig = { sizes, ...(options.profileDir ? { profileDir: options.profileDir } : {}) };
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const loadBefore = loadavg()[0] ?? 0;
  const settleMs = options.size === 'tiny' ? 0 : SETTLE_MS;
  const [results] = await runContenders({ ids: contenders, workloads, config, rounds, settleMs, stages: [sizes.readingsPerSensor], log: options.log });
  const report: Omit<Report, 'markdown'> = {
    compiled: true,
    rounds,
    settleMs,
    date: new Date().toISOString(),
    mode: options.size ?? (options.quick ? 'quick' : 'full'),
    machine: { ...machineInfo(), loadAverage: [loadBefore, loadavg()[0] ?? 0] },
    workload: workloadFacts(sizes),
    results: results!,
  };
  return {
    suite: 'contenders',
    date: report.date,
    mode: report.mode,
    seconds: (performance.now() - started) / 1000,
    markdown: renderMarkdown(report, workloads),
    data: report,
  };
}

/** The workload's sizes for a run of `size`. */
export function sizesFor(options: { size?: BenchSize; quick: boolean }): Sizes {
  return options.size === 'tiny' ? TINY : options.quick ? QUICK : FULL;
}

/** The workload line of a report: the data's shape and every count. */
export function workloadFacts(sizes: Sizes): Record<string, number> {
  return {
    sensors: SENSORS,
    'items loaded': SENSORS * sizes.readingsPerSensor,
    'item size (DynamoDB bytes)': itemSize(validateItem(wireItem(reading(42, 0)))),
    'batch size': BATCH_SIZE,
    'scan page': SCAN_PAGE_ITEMS,
    'window items': WINDOW_READINGS,
    'wide window items': WIDE_WINDOW_READINGS,
    ...sizes,
  };
}
