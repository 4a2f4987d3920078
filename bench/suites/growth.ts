/**
 * Suite `growth`: the contenders suite's workloads at 1 M, 3 M and 10 M readings (full run), so a
 * cost that grows with the store shows as a trend and not as one figure.
 *
 * One child per contender (default edgetable, raw node-lmdb and better-sqlite3; --contenders adds
 * the variants) grows one store through the stages: it loads the readings up to the stage's size
 * (the 3 M store is the 1 M one plus 2 M readings, in the same round-robin order), then runs every
 * workload on it in interleaved rounds (bench/contenders-run.ts). Growing instead of reloading
 * keeps a 10 M run near the cost of one 10 M load; the price is that a later stage's store also
 * holds the earlier stages' write workloads' items (new keys past every loaded reading, ~130,000
 * per stage in a full run: 13% on top of 1 M at 3 M, 4% at 10 M), alike for every contender.
 * Reads look up only loaded readings, but latest-10 returns those newer items.
 */
import { loadavg } from 'node:os';
import type { ChildConfig } from '../child.js';
import type { ContenderId } from '../contenders/index.js';
import { FOOTPRINT_ROWS, NO_FLUSH_NOTE, VARIANTS, type ChildResult, type Machine } from '../report.js';
import { runContenders } from '../contenders-run.js';
import { DEFAULT_ROUNDS, spreadNote } from '../rounds.js';
import { SENSORS } from '../workload.js';
import { WORKLOAD_LABELS, WORKLOAD_NAMES, type Measurement, type WorkloadName } from '../workloads.js';
import { int, machineInfo, table, type BenchSize, type SuiteReport } from '../suite.js';
import { SETTLE_MS, sizesFor, workloadFacts, type ContendersOptions } from './contenders.js';

/** Reading rounds of the 1,000 sensors in the store at the end of each stage, by run size. */
export const GROWTH_STAGES: Record<BenchSize, readonly number[]> = {
  full: [1000, 3000, 10_000],
  quick: [20, 60, 200],
  tiny: [2, 4, 6],
};

/** The contenders the issue's targets compare: edgetable's default, raw node-lmdb, better-sqlite3. */
export const GROWTH_CONTENDERS: readonly ContenderId[] = ['edgetable', 'raw-lmdb', 'sqlite'];

export interface GrowthStage {
  items: number;
  results: ChildResult[];
}

export interface GrowthData {
  date: string;
  mode: BenchSize;
  rounds: number;
  settleMs: number;
  machine: Machine;
  workload: Record<string, number>;
  stages: GrowthStage[];
}

export async function runGrowthSuite(options: ContendersOptions): Promise<SuiteReport> {
  const started = performance.now();
  const mode: BenchSize = options.size ?? (options.quick ? 'quick' : 'full');
  const workloads = options.workloads ?? WORKLOAD_NAMES;
  const ids = options.contenders ?? GROWTH_CONTENDERS;
  const stages = GROWTH_STAGES[mode];
  const sizes = { ...sizesFor(options), readingsPerSensor: stages[0]! };
  const config: ChildConfig = { sizes, ...(options.profileDir ? { profileDir: options.profileDir } : {}) };
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const settleMs = mode === 'tiny' ? 0 : SETTLE_MS;
  const loadBefore = loadavg()[0] ?? 0;
  const perStage = await runContenders({ ids, workloads, config, rounds, settleMs, stages, log: options.log });
  const { 'items loaded': _items, readingsPerSensor: _rps, ...workload } = workloadFacts(sizes);
  const data: GrowthData = {
    date: new Date().toISOString(),
    mode,
    rounds,
    settleMs,
    machine: { ...machineInfo(), loadAverage: [loadBefore, loadavg()[0] ?? 0] },
    workload,
    stages: perStage.map((results, s) => ({ items: stages[s]! * SENSORS, results })),
  };
  return { suite: 'growth', date: data.date, mode, seconds: (performance.now() - started) / 1000, markdown: renderGrowth(data, workloads), data };
}

/** A stage's size as the tables name it: 1 M, 3 M, 10 M (or the count, below a million). */
export function sizeLabel(items: number): string {
  return items >= 1_000_000 ? `${+(items / 1_000_000).toFixed(1)} M` : int(items);
}

export function renderGrowth(d: GrowthData, workloads: readonly WorkloadName[]): string {
  const m = d.machine;
  const lines = [
    '### Growth: the contenders from 1 M to 10 M readings (`--suite growth`)',
    '',
    `Machine: Node ${m.node}, ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}; data in ${m.tmpdir}; 1-min load average ${m.loadAverage.map((x) => x.toFixed(1)).join(' -> ')}.`,
    `Workload at every size: ${Object.entries(d.workload).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}.`,
    `Each contender grows one store through the sizes (${d.stages.map((s) => sizeLabel(s.items)).join(', ')} readings): it loads the readings up to the size, in the round-robin order of a logger, then runs every workload on it; a larger size's store also holds the smaller sizes' write workloads' items (new keys past the loaded readings). Each figure is the median of ${d.rounds} rounds interleaved across the contenders (bench/rounds.ts), ± half their range; a scan pass reads at most the scanItems above from the table's start. Ratios are against better-sqlite3: above 1, faster (or, for the store and memory rows, larger).`,
    '',
  ];
  for (const stage of d.stages) lines.push(...stageTable(stage, workloads), '');
  if (workloads.includes('put-noflush')) lines.push(NO_FLUSH_NOTE, '');
  lines.push('Contenders:', ...(d.stages[0]?.results.flatMap((r) => r.notes.map((n) => `- ${n}`)) ?? []), '');
  return lines.join('\n');
}

function stageTable(stage: GrowthStage, workloads: readonly WorkloadName[]): string[] {
  const by = (id: ContenderId) => stage.results.find((r) => r.contender === id);
  const sql = by('sqlite');
  // Every contender that ran but SQLite, in report order: edgetable, its variants, raw node-lmdb.
  const shown = [by('edgetable'), ...VARIANTS.map((v) => by(v.id)), by('raw-lmdb')].filter((r): r is ChildResult => r !== undefined);
  const find = (r: ChildResult | undefined, w: WorkloadName) => r?.measurements.find((x) => x.workload === w);
  const rateCell = (x: Measurement | undefined) => (x === undefined ? 'n/a' : x.unit === '% of a Query' ? `${x.value.toFixed(1)}%` : `${int(x.value)}${spreadNote(x)}`);
  const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && Number.isFinite(a) && b > 0 ? `${(a / b).toFixed(2)}x` : '');
  const mib = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : (x / 2 ** 20).toFixed(1));
  const rows = [
    ...workloads.map((w) => {
      const base = find(sql, w);
      const speed = (x: Measurement | undefined) => (x?.unit === '% of a Query' ? undefined : x?.value);
      return [WORKLOAD_LABELS[w], ...shown.map((r) => rateCell(find(r, w))), rateCell(base), ...shown.map((r) => ratio(speed(find(r, w)), speed(base)))];
    }),
    ...FOOTPRINT_ROWS.map(([label, f]) => [label, ...shown.map((r) => mib(f(r))), mib(f(sql)), ...shown.map((r) => ratio(f(r), f(sql)))]),
  ];
  return [
    `At ${sizeLabel(stage.items)} readings:`,
    '',
    ...table(['', ...shown.map((r) => r.name), 'better-sqlite3', ...shown.map((r) => `${r.name}/sqlite`)], rows, 'l' + 'r'.repeat(1 + 2 * shown.length)),
  ];
}
