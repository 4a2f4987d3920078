/**
 * The contract every bench suite keeps (bench/suites/): run within its time budget, measure, never
 * fail on a number, and hand back a report whose Markdown section stands on its own (title, what
 * ran, one table, notes) and whose `data` is what bench/results/<suite>.json keeps.
 *
 * Also the small timing helpers the suites share: a budgeted loop, and a comparison that
 * interleaves its arms in short blocks, so a burst of load from other processes on this shared
 * machine hits every arm alike instead of skewing one of them.
 */
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';

/** How long a run takes: full (minutes; what results/ keeps), quick (seconds per suite), tiny (a smoke test). */
export type BenchSize = 'full' | 'quick' | 'tiny';

export interface SuiteOptions {
  /** True for every size but full; suites without a tiny version run their quick one. */
  quick: boolean;
  size?: BenchSize;
  /** Progress lines (stderr); never part of the report. */
  log: (line: string) => void;
}

export interface SuiteReport {
  suite: string;
  date: string;
  mode: BenchSize;
  /** Wall time of the whole suite, seconds. */
  seconds: number;
  /** The suite's section of the Markdown report: `### title`, text, table, notes. */
  markdown: string;
  /** The suite's measurements, JSON-serialisable. */
  data: unknown;
}

export interface MachineInfo {
  node: string;
  cpu: string;
  cores: number;
  platform: string;
  memoryGiB: number;
  tmpdir: string;
}

export function machineInfo(): MachineInfo {
  return {
    node: process.version,
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    platform: `${platform()} ${release()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    tmpdir: tmpdir(),
  };
}

export const load1 = (): number => loadavg()[0] ?? 0;

export interface Timed {
  count: number;
  ms: number;
}

/** Runs op(i) for i < n, checking the clock every 16 ops; stops once budgetMs has passed. */
export function timeOps(n: number, op: (i: number) => unknown, budgetMs: number): Timed {
  const start = performance.now();
  let i = 0;
  while (i < n) {
    op(i);
    i++;
    if ((i & 15) === 0 && performance.now() - start > budgetMs) break;
  }
  return { count: i, ms: performance.now() - start };
}

export const opsPerSecond = (t: Timed): number => (t.count * 1000) / t.ms;

export interface ArmResult {
  count: number;
  ms: number;
  /** The median round's rate: a round that a preemption landed in does not drag it down. */
  opsPerSecond: number;
  /** count / ms, stalls included. */
  meanOpsPerSecond: number;
}

export interface Interleaved {
  arms: ArmResult[];
  /**
   * Per arm, the median over rounds of (this arm's time per op / arm 0's time per op) - 1, as a
   * percentage: its cost relative to arm 0 (arm 0's own entry is 0).
   */
  overheadPercent: number[];
  rounds: number;
}

/**
 * Runs the arms in rounds of `blockOps` operations each, the order rotating every round, until
 * budgetMs has passed or an arm reaches `limit` ops. Blocks last a few milliseconds, so a burst
 * of load from other processes on this shared machine hits every arm alike; the median of the
 * per-round ratios then ignores the rounds a preemption landed in. Op indexes count up per arm
 * across rounds (fresh keys for writes).
 */
export function interleave(arms: readonly ((i: number) => unknown)[], { blockOps, budgetMs, limit }: { blockOps: number; budgetMs: number; limit: number }): Interleaved {
  const totals = arms.map(() => ({ count: 0, ms: 0 }));
  const ratios: number[][] = arms.map(() => []);
  const rates: number[][] = arms.map(() => []);
  const start = performance.now();
  let rounds = 0;
  while (performance.now() - start < budgetMs && totals.every((t) => t.count + blockOps <= limit)) {
    const msPerOp: number[] = new Array(arms.length).fill(0);
    for (let k = 0; k < arms.length; k++) {
      const a = (k + rounds) % arms.length;
      const arm = arms[a]!;
      const total = totals[a]!;
      const t0 = performance.now();
      for (let i = 0; i < blockOps; i++) arm(total.count + i);
      const ms = performance.now() - t0;
      total.count += blockOps;
      total.ms += ms;
      msPerOp[a] = ms / blockOps;
    }
    for (let a = 0; a < arms.length; a++) {
      ratios[a]!.push(msPerOp[a]! / msPerOp[0]!);
      rates[a]!.push(1000 / msPerOp[a]!);
    }
    rounds++;
  }
  return {
    arms: totals.map((t, a) => ({ ...t, opsPerSecond: median(rates[a]!), meanOpsPerSecond: (t.count * 1000) / t.ms })),
    overheadPercent: ratios.map((r) => 100 * (median(r) - 1)),
    rounds,
  };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  if (s.length === 0) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const int = (x: number): string => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
export const fixed = (x: number, digits: number): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** A Markdown table from a header row and body rows; `align` is 'l' or 'r' per column. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], align: string): string[] {
  const rule = [...align].map((c) => (c === 'r' ? '--:' : '---'));
  return [`| ${header.join(' | ')} |`, `|${rule.join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

/** A timer that never keeps the process alive. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Lets the event loop turn (I/O callbacks run), for loops that write while an agent works. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
