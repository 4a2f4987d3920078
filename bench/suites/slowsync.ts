/**
 * Suite `slowsync`: durable writes when every flush is as slow as an SD card. The measuring
 * process (bench/slowsync-child.ts) runs with the shared slowsync LD_PRELOAD library, SLOWSYNC_MS=8
 * (override with the environment), and reports: sequential durable putItem; one writer and
 * `writers` concurrent writers through db.promises (group commit, flushes off the event loop);
 * the worst delay of a 1 ms timer meanwhile; flushes per acknowledged write (the store's count,
 * and slowsync's count for the whole process). A second child (bench/hub-apply-child.ts) runs a hub
 * under the same library while `devices` devices push batches: batches acknowledged per second,
 * the hub's worst and p99 timer delay, and how long each of its write txns held the event loop.
 *
 * The library: $SLOWSYNC_LIB if set, else built with cc from $SLOWSYNC_SOURCE or the shared
 * tools folder (../shared/tools/slowsync beside the repository, or two levels up for a worktree).
 * When none is found the suite says so and measures nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PhaseFigures } from '../slowsync-child.js';
import type { HubApplyFigures } from '../hub-apply-child.js';
import { fixed, int, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { benchDir } from './readings-table.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const SIZES = { full: { budgetMs: 5000, writers: 64 }, quick: { budgetMs: 1500, writers: 64 }, tiny: { budgetMs: 300, writers: 64 } };
/** The hub phase: devices pushing batches of `records` records, one in flight each. */
const HUB = { devices: 4, records: 50 };

type Phases = { idle: PhaseFigures; sequential: PhaseFigures; sequentialPromises: PhaseFigures; concurrent: PhaseFigures; syncPerTurn: PhaseFigures; asyncCommits?: { committed: number; conflicts: number; onThisThread: number } };
type Data = { flushMs: number; writers: number; budgetMs: number; phases: Phases | null; processFlushes: number | null; hub?: HubApplyFigures; note: string; log?: { phases: Phases; processFlushes: number | null } };

export async function runSlowsyncSuite({ quick, size, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const sizes = SIZES[size ?? (quick ? 'quick' : 'full')];
  const flushMs = Number(process.env.SLOWSYNC_MS ?? 8);
  const lib = findSlowsync();
  let data: Data;
  if (lib === undefined) {
    data = { flushMs, ...sizes, phases: null, processFlushes: null, note: 'slowsync not found (set SLOWSYNC_LIB or SLOWSYNC_SOURCE): nothing measured' };
  } else {
    const dir = benchDir('slowsync');
    try {
      const { stdout, stderr } = await runChild(lib, flushMs, { path: join(dir.path, 'db'), ...sizes });
      const phases = JSON.parse(stdout.trim().split('\n').pop()!) as Phases;
      const reported = /made (\d+) flushes/.exec(stderr);
      data = { flushMs, ...sizes, phases, processFlushes: reported ? Number(reported[1]) : null, note: '' };
      const c = phases.concurrent;
      log(`slowsync: sequential ${int(phases.sequential.writesPerSecond)}/s, ${sizes.writers} writers ${int(c.writesPerSecond)}/s, worst timer delay ${fixed(c.worstTimerDelayMs ?? NaN, 1)} ms`);
      const logRun = await runChild(lib, flushMs, { path: join(dir.path, 'db-log'), ...sizes, durability: 'log' });
      const logPhases = JSON.parse(logRun.stdout.trim().split('\n').pop()!) as Phases;
      const logReported = /made (\d+) flushes/.exec(logRun.stderr);
      data.log = { phases: logPhases, processFlushes: logReported ? Number(logReported[1]) : null };
      log(`slowsync 'log': sequential ${int(logPhases.sequential.writesPerSecond)}/s, ${sizes.writers} writers ${int(logPhases.concurrent.writesPerSecond)}/s, worst timer delay ${fixed(logPhases.concurrent.worstTimerDelayMs ?? NaN, 1)} ms`);
      const hubRun = await runChild(lib, flushMs, { path: join(dir.path, 'hub'), budgetMs: sizes.budgetMs, ...HUB }, 'hub-apply-child.ts');
      data.hub = JSON.parse(hubRun.stdout.trim().split('\n').pop()!) as HubApplyFigures;
      log(`slowsync hub: ${fixed(data.hub.batchesPerSecond, 1)} batches/s, worst timer delay ${fixed(data.hub.worstTimerDelayMs, 1)} ms, write txn held ${fixed(data.hub.writeHeldMedianMs ?? NaN, 1)} ms median`);
    } finally {
      dir.remove();
    }
  }
  return { suite: 'slowsync', date: new Date().toISOString(), mode: size ?? (quick ? 'quick' : 'full'), seconds: (performance.now() - started) / 1000, markdown: render(data), data };
}

function findSlowsync(): string | undefined {
  if (process.env.SLOWSYNC_LIB && existsSync(process.env.SLOWSYNC_LIB)) return process.env.SLOWSYNC_LIB;
  const sources = [process.env.SLOWSYNC_SOURCE, resolve(repoRoot, '../shared/tools/slowsync/slowsync.c'), resolve(repoRoot, '../../shared/tools/slowsync/slowsync.c')];
  const source = sources.find((s): s is string => s !== undefined && existsSync(s));
  if (source === undefined) return undefined;
  const outdir = join(repoRoot, 'node_modules', '.cache', 'edgetable-bench');
  mkdirSync(outdir, { recursive: true });
  const out = join(outdir, 'libslowsync.so');
  execFileSync('cc', ['-O2', '-shared', '-fPIC', '-o', out, source, '-ldl'], { stdio: 'pipe' });
  return out;
}

function runChild(lib: string, flushMs: number, args: Record<string, unknown>, script = 'slowsync-child.ts'): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const env = { ...process.env, LD_PRELOAD: lib, SLOWSYNC_MS: String(flushMs), SLOWSYNC_REPORT: '1', UV_USE_IO_URING: '0' };
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench', script), JSON.stringify(args)], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolvePromise({ stdout, stderr }) : reject(new Error(`slowsync child exited with ${code}: ${stderr.slice(0, 1000)}`))));
  });
}

const PHASE_COLUMNS = ['writers', 'durable writes/s', 'vs sequential', 'flushes per write', 'worst delay of a 1 ms timer', 'p99 delay', 'event loop held per write/group (median / max)'];

function render(data: Data): string {
  const lines = [`### Durable writes with slow flushes (slowsync, ${data.flushMs} ms per flush)`, ''];
  if (data.phases === null) return [...lines, data.note, ''].join('\n');
  const p = data.phases;
  const seq = p.sequential.writesPerSecond;
  const delay = (ms: number | null): string => (ms === null ? 'blocked (no turn)' : `${fixed(ms, 1)} ms (${fixed(ms / data.flushMs, 1)} flushes)`);
  const row = (name: string, f: PhaseFigures): string[] => [
    name,
    f.writes === 0 ? '-' : int(f.writesPerSecond),
    f.writes === 0 ? '-' : `${fixed(f.writesPerSecond / seq, 1)}x`,
    f.writes === 0 ? '-' : fixed(f.flushesPerWrite, 2),
    delay(f.worstTimerDelayMs),
    f.p99TimerDelayMs === null ? '-' : `${fixed(f.p99TimerDelayMs, 1)} ms`,
    f.blockMedianMs === null || f.blockMaxMs === null ? '-' : `${fixed(f.blockMedianMs, 1)} / ${fixed(f.blockMaxMs, 1)} ms`,
  ];
  lines.push(
    `Store in durability 'sync', ${data.budgetMs / 1000} s per row, a fresh table each. Every write is acknowledged only once durable.`,
    '',
    ...table(
      PHASE_COLUMNS,
      [
        row('no writes (the machine’s own timer delay)', p.idle),
        ...writeRows(p, data.writers, row),
      ],
      'lrrrrrr',
    ),
    '',
    'The timer column includes waiting for a CPU on a shared machine (the first row is that wait alone); the last column is the time the write work itself held the event loop: a synchronous putItem (two flushes), or one group of the commit queue (computing its recorded txn; its commit, with LMDB\'s data-page flush and meta-page write through its O_DSYNC descriptor, runs on one libuv worker).',
    '',
    p.asyncCommits
      ? `Asynchronous commits (store.writeAsync): ${int(p.asyncCommits.committed)} replayed by the worker, ${int(p.asyncCommits.conflicts)} found another commit first and were recomputed, ${int(p.asyncCommits.onThisThread)} committed on the main thread.`
      : '',
    '',
    `${data.writers} writers: ${int(p.concurrent.writes)} writes in ${int(p.concurrent.commits)} commits (${fixed(p.concurrent.writes / Math.max(1, p.concurrent.commits), 1)} writes per group). ` +
      `Flushes counted by the store (LMDB's data-page flush plus its synchronous meta-page write); slowsync counted ${data.processFlushes === null ? 'n/a' : int(data.processFlushes)} flushes for the whole process (set-up included).`,
    '',
    ...renderLog(data, row),
    ...renderHub(data.hub),
  );
  return lines.join('\n');
}

function writeRows(p: Phases, writers: number, row: (name: string, f: PhaseFigures) => string[]): string[][] {
  return [
    row('db.putItem in a loop (sequential)', p.sequential),
    row('db.putItem, one per event-loop turn', p.syncPerTurn),
    row('db.promises.putItem, 1 writer awaiting', p.sequentialPromises),
    row(`db.promises.putItem, ${writers} concurrent writers`, p.concurrent),
  ];
}

function renderLog(data: Data, row: (name: string, f: PhaseFigures) => string[]): string[] {
  if (data.log === undefined) return [];
  const p = data.log.phases;
  return [
    `#### The same in durability 'log' (each commit's changes appended to the redo log and flushed, LMDB committed without flushes, checkpoints on the thread pool; "vs sequential" is against the 'sync' row above)`,
    '',
    ...table(
      PHASE_COLUMNS,
      [
        ...writeRows(p, data.writers, row),
      ],
      'lrrrrrr',
    ),
    '',
    `Flushes counted by the store (the log's, data.mdb's at checkpoints, a new log file's); slowsync counted ${data.log.processFlushes === null ? 'n/a' : int(data.log.processFlushes)} for the whole process.` +
      (p.asyncCommits ? ` Logged asynchronous writes: ${int(p.asyncCommits.committed)} applied, ${int(p.asyncCommits.conflicts)} overtaken and recomputed, ${int(p.asyncCommits.onThisThread)} committed with their flush on this thread.` : ''),
    '',
  ];
}

function renderHub(h: HubApplyFigures | undefined): string[] {
  if (h === undefined) return [];
  const ms = (v: number | null) => (v === null ? '-' : `${fixed(v, 1)} ms`);
  return [
    `#### A hub applying device batches (${h.devices} devices, ${h.recordsPerBatch} records per batch, one in flight each)`,
    '',
    ...table(
      ['batches acknowledged/s', 'flushes per batch', 'worst delay of a 1 ms timer', 'p99 delay', 'event loop held per write txn (median / max)', 'commits on a worker / on the main thread'],
      [[fixed(h.batchesPerSecond, 1), fixed(h.hubFlushes / Math.max(1, h.batches), 2), ms(h.worstTimerDelayMs), ms(h.p99TimerDelayMs), `${ms(h.writeHeldMedianMs)} / ${ms(h.writeHeldMaxMs)}`, `${int(h.asyncCommits.committed)} / ${int(h.asyncCommits.onThisThread)}`]],
      'rrrrrr',
    ),
    '',
    "Each batch is acknowledged once durable. The hub applies it through store.writeAsync: its txn is recorded on the event loop, committed on a libuv worker with LMDB's data-page flush and its meta-page write through the O_DSYNC descriptor (the first batch, which creates the hub's bookkeeping databases, commits on the main thread before the measurement).",
    '',
  ];
}
