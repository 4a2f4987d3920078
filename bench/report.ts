/** Turns the children's results into the Markdown table and the JSON written to bench/results/. */
import { HELD_WRITES_PER_COMMIT, type ContenderId } from './contenders/index.js';
import { spread, spreadNote } from './rounds.js';
import type { BenchSize } from './suite.js';
import { WORKLOAD_LABELS, type Measurement, type WorkloadName } from './workloads.js';

export interface ChildResult {
  contender: ContenderId;
  name: string;
  notes: readonly string[];
  measurements: Measurement[];
  /** The store's size on disk after the run, every round's writes in (NaN for a growth suite's earlier stages). */
  diskBytes: number;
  /** The store's size on disk right after the load (absent in older result files). */
  diskAfterLoadBytes?: number;
  /**
   * Anonymous RSS of the contender's process (bench/child.ts), absent in older result files: after
   * the load; the peak over the load and the reads of the loaded store (`READ_WORKLOADS`, absent in
   * older files); the peak over the whole run (older files: sampled only between steps).
   */
  memory?: { afterLoadBytes: number; readsPeakBytes?: number; maxBytes: number };
}

export interface Machine {
  node: string;
  cpu: string;
  cores: number;
  platform: string;
  memoryGiB: number;
  tmpdir: string;
  /** 1-minute load average before and after the run: other processes skew every number. */
  loadAverage: [number, number];
}

export interface Report {
  /** The contenders ran as compiled JavaScript (absent in older results: they ran under tsx). */
  compiled?: boolean;
  /** Timed rounds per workload and contender, each figure their median (absent in older results: one run). */
  rounds?: number;
  /** Idle ms of every contender with its store open, before the load (absent in older results: none). */
  settleMs?: number;
  date: string;
  mode: BenchSize;
  machine: Machine;
  workload: Record<string, string | number>;
  results: ChildResult[];
  markdown: string;
}

const COLUMNS: readonly ContenderId[] = ['edgetable', 'raw-lmdb', 'sqlite'];

/** edgetable in other configurations than its default, reported in columns of their own when they ran; `note` says what the column is. */
export const VARIANTS: readonly { id: ContenderId; column: string; short: string; note: string }[] = [
  {
    id: 'edgetable-log',
    column: "edgetable, durability 'log'",
    short: "'log'",
    note: "`'log'`: edgetable with `durability: 'log'` (the redo log: one sequential flush per commit, checkpoints behind; another writing process is handed the folder)",
  },
  {
    id: 'edgetable-log-held',
    column: `edgetable, 'log', ${HELD_WRITES_PER_COMMIT} writes per LMDB txn`,
    short: "'log' held",
    note: `\`'log' held\`: \`durability: 'log'\` with \`logWritesPerCommit: ${HELD_WRITES_PER_COMMIT}\` (each write durable by its log record when it returns; LMDB commits once per ${HELD_WRITES_PER_COMMIT} writes or when the event loop turns, so other processes see a write then)`,
  },
];

export function renderMarkdown(r: Omit<Report, 'markdown'>, workloads: readonly WorkloadName[]): string {
  const by = (id: ContenderId) => r.results.find((x) => x.contender === id);
  const find = (id: ContenderId, w: WorkloadName) => by(id)?.measurements.find((m) => m.workload === w);
  const variants = VARIANTS.filter((v) => by(v.id) !== undefined);
  const header = ['workload', 'edgetable', ...variants.map((v) => v.column), 'raw node-lmdb', 'better-sqlite3', 'edgetable/raw', 'edgetable/sqlite', ...variants.flatMap((v) => [`${v.short}/raw`, `${v.short}/sqlite`])];
  const lines = [
    '### edgetable against raw node-lmdb and better-sqlite3 (`--suite contenders`)',
    '',
    `Machine: Node ${r.machine.node}, ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGiB} GiB, ${r.machine.platform}; data in ${r.machine.tmpdir}; 1-min load average ${r.machine.loadAverage.map((x) => x.toFixed(1)).join(' -> ')} (before -> after; above the core count, other processes were competing for CPU and disk).`,
    `Workload: ${Object.entries(r.workload).map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en-US') : v}`).join(', ')}.`,
    'Each contender runs in its own child process on a fresh temp dir; the parent runs one step at a time (load, then each workload for every contender in turn), so no two contenders ever share the CPU or the disk. Warm-up before each timed run.',
    ...((r.rounds ?? 1) > 1 ? [roundsText(r.rounds!)] : []),
    ...(r.settleMs ? [`Every contender idled ${r.settleMs / 1000} s with its store open before the load, so each is measured in its after-idle state whichever contenders run (V8 shrinks edgetable's young generation after 7-9 s idle and the hold grows it back to its held size, src/young-generation.ts; bench/suites/contenders.ts).`] : []),
    '',
    `| ${header.join(' | ')} |`,
    `|---|${header.slice(1).map(() => '--:').join('|')}|`,
  ];
  const warnings: string[] = [];
  for (const w of workloads) {
    const [et, raw, sql] = COLUMNS.map((id) => find(id, w));
    const others = variants.map((v) => find(v.id, w));
    lines.push(`| ${[WORKLOAD_LABELS[w], cell(et), ...others.map(cell), cell(raw), cell(sql), ratio(et, raw), ratio(et, sql), ...others.flatMap((o) => [ratio(o, raw), ratio(o, sql)])].join(' | ')} |`);
    const counted = [et, ...others, raw, sql].filter((m): m is Measurement => m !== undefined && m.unit !== '% of a Query');
    const sameCount = counted.every((m) => m.count === counted[0]?.count);
    if (sameCount && new Set(counted.map((m) => m.items)).size > 1) {
      warnings.push(`- WARNING ${w}: contenders returned different item counts (${counted.map((m) => m.items).join(' / ')}).`);
    }
  }
  for (const [label, f] of FOOTPRINT_ROWS) {
    const [et, raw, sql] = COLUMNS.map((id) => f(by(id)));
    const others = variants.map((v) => f(by(v.id)));
    const mib = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : (x / 2 ** 20).toFixed(1));
    const times = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && Number.isFinite(a) && b > 0 ? `${(a / b).toFixed(2)}x` : '');
    lines.push(`| ${[label, mib(et), ...others.map(mib), mib(raw), mib(sql), times(et, raw), times(et, sql), ...others.flatMap((o) => [times(o, raw), times(o, sql)])].join(' | ')} |`);
  }
  lines.push('', 'Ratios above 1 mean edgetable is faster, or for the store and memory rows, larger. Durable writes are bound by fsync latency of the disk under the temp dir.');
  if (workloads.includes('put-noflush')) lines.push(NO_FLUSH_NOTE);
  lines.push(...warnings);
  lines.push('', 'Contenders:');
  for (const res of r.results) for (const note of res.notes) lines.push(`- ${note}`);
  const sized = r.results.filter((x) => Number.isFinite(x.diskBytes));
  if (sized.length > 0) lines.push('', `Store size on disk after the run (every round's writes in): ${sized.map((x) => `${x.name} ${(x.diskBytes / 2 ** 20).toFixed(1)} MiB`).join(', ')}.`);
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const measured = r.results.filter((x) => x.memory !== undefined);
  if (measured.length > 0) {
    lines.push(
      '',
      `Anonymous RSS of each contender's process (RssAnon from /proc/self/status, compiled JavaScript, Node's default heap flags; sampled every ~100 ms inside each timed loop and after each step), after the load / peak over the load and the reads / peak over the whole run: ${measured.map((x) => `${x.name} ${mib(x.memory!.afterLoadBytes)} / ${x.memory!.readsPeakBytes === undefined ? 'n/a' : mib(x.memory!.readsPeakBytes)} / ${mib(x.memory!.maxBytes)}`).join(', ')}. The process holds the benchmark's own prepared inputs too (a round's keys and items), alike for every contender.`,
    );
  }
  const perItem = (x: ChildResult, w: WorkloadName, bytes: (m: Measurement) => number | undefined) => {
    const m = x.measurements.find((y) => y.workload === w);
    const b = m && bytes(m);
    return m && typeof b === 'number' && m.count > 0 ? `${Math.round(b / m.count).toLocaleString('en-US')} B` : 'n/a';
  };
  const both = (bytes: (m: Measurement) => number | undefined) => r.results.map((x) => `${x.name} ${perItem(x, 'batch', bytes)} / ${perItem(x, 'put', bytes)}`).join(', ');
  if (r.results.some((x) => x.measurements.some((m) => typeof m.blockBytes === 'number'))) {
    lines.push(
      '',
      `Bytes that reached the disk per item (the sectors written to the block device holding the store over the timed part of every round: data, the filesystem's journal, each page once; system-wide, so other writers on the machine would count too), batched ingest / durable single put: ${both((m) => m.blockBytes)}.`,
    );
  }
  if (r.results.some((x) => x.measurements.some((m) => typeof m.deviceBytes === 'number'))) {
    lines.push(
      '',
      `Bytes dirtied in the page cache per item (the process's /proc/self/io write_bytes over the same parts; the kernel counts each page-cache folio a write dirties whole, so with large folios (ext4 on linux 6.x) scattered 4 KiB page writes read 2-3x what reaches the disk: bench/commit-pages.ts counts LMDB's pages exactly), batched ingest / durable single put: ${both((m) => m.deviceBytes)}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The footprint rows of the table: the store on disk after the load, the process's memory over the load and the reads. */
export const FOOTPRINT_ROWS: readonly [string, (c: ChildResult | undefined) => number | undefined][] = [
  ['Store size on disk after the load (MiB)', (c) => c?.diskAfterLoadBytes],
  ['Peak anonymous RSS, the load then every read (MiB)', (c) => c?.memory?.readsPeakBytes],
];

export const NO_FLUSH_NOTE =
  "No flush per commit: edgetable in the durability of bench/contenders/edgetable.ts's NO_FLUSH_DURABILITY with NO_FLUSH_WRITES_PER_COMMIT held writes per LMDB commit, as docs/durability.md recommends for single puts (power-cut safe, loses at most the latest second), better-sqlite3 with synchronous=NORMAL in WAL (the same promise); raw node-lmdb with MDB_NOSYNC is not power-cut safe (a cut can corrupt the store), so its figure is a ceiling, not a contender. Only the default edgetable column runs it (the variants are durabilities of their own).";

function roundsText(rounds: number): string {
  return `Each figure is the median of ${rounds} timed rounds, interleaved: every round of a workload runs once per contender, the order rotating by one each round, so each contender runs first, second and last alike (bench/rounds.ts); ± is half the rounds' range as a percentage of the median (a percentage's range is given as its lowest-highest). Writes take fresh keys each round. The load runs in as many interleaved segments (at most one per reading round), each a round: a later segment writes into a bigger store, so the load's ± also holds that growth. Every round's figures are in bench/results/contenders.json.`;
}

function cell(m: Measurement | undefined): string {
  if (!m) return 'n/a';
  if (m.unit === '% of a Query') {
    const s = spread(m);
    return `${m.value.toFixed(1)}%${s ? ` (${s.min.toFixed(1)}-${s.max.toFixed(1)}%)` : ''}`;
  }
  return `${Math.round(m.value).toLocaleString('en-US')}${spreadNote(m)}`;
}

function ratio(a: Measurement | undefined, b: Measurement | undefined): string {
  if (!a || !b || a.unit === '% of a Query' || !(b.value > 0)) return '';
  return `${(a.value / b.value).toFixed(2)}x`;
}
