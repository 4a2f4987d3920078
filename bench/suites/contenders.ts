/**
 * Suite `contenders`: edgetable against raw node-lmdb and better-sqlite3 on the sensor workload.
 *
 * Forks one child per contender (bench/child.ts, compiled) and runs one step at a time across them
 * (the load, then each workload), so they never share the two cores or the disk. Each step runs in
 * `rounds` rounds, each round once per contender in a rotating order (bench/rounds.ts); the load
 * in as many segments (at most one per reading round). Every figure is the median round's, its
 * rounds kept in the JSON. Every contender opens its store, then all idle SETTLE_MS before the
 * load. `only`, `contenders` and `profileDir` narrow the run (bench/run.ts flags); `rounds`
 * sets the rounds (--rounds, default DEFAULT_ROUNDS).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildConfig, Step, StepReply, StepRequest } from '../child.js';
import { CONTENDERS, type ContenderId } from '../contenders/index.js';
import { wireItem } from '../contenders/edgetable.js';
import { renderMarkdown, type ChildResult, type Report } from '../report.js';
import { compiled } from '../compile.js';
import { DEFAULT_ROUNDS, medianOfRounds, rotation } from '../rounds.js';
import { FULL, QUICK, TINY, SENSORS, reading, BATCH_SIZE, SCAN_PAGE_ITEMS, WINDOW_READINGS } from '../workload.js';
import { WORKLOAD_NAMES, type Measurement, type RoundContext, type WorkloadName } from '../workloads.js';
import { cpuMs, meminfoBytes } from '../proc.js';
import { machineInfo, sleep, type SuiteOptions, type SuiteReport } from '../suite.js';
import { itemSize } from '../../src/model/item-size.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

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
const SETTLE_MS = 12_000;

export interface ContendersOptions extends SuiteOptions {
  workloads?: readonly WorkloadName[];
  contenders?: readonly ContenderId[];
  profileDir?: string;
  /** Items loaded (rounded to whole rounds of the 1,000 sensors); default by size: 110,000 full. */
  items?: number;
  /** Timed rounds per workload and contender (the median is reported); default DEFAULT_ROUNDS. */
  rounds?: number;
}

export async function runContendersSuite(options: ContendersOptions): Promise<SuiteReport> {
  const started = performance.now();
  const workloads = options.workloads ?? WORKLOAD_NAMES;
  const contenders = options.contenders ?? (Object.keys(CONTENDERS) as ContenderId[]);
  const preset = options.size === 'tiny' ? TINY : options.quick ? QUICK : FULL;
  const sizes = options.items === undefined ? preset : { ...preset, readingsPerSensor: Math.max(1, Math.round(options.items / SENSORS)) };
  const config: ChildConfig = { sizes, ...(options.profileDir ? { profileDir: options.profileDir } : {}) };
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const loadBefore = loadavg()[0] ?? 0;
  const settleMs = options.size === 'tiny' ? 0 : SETTLE_MS;
  const results = await runAll(contenders, workloads, config, rounds, settleMs, options.log);
  const report: Omit<Report, 'markdown'> = {
    compiled: true,
    rounds,
    settleMs,
    date: new Date().toISOString(),
    mode: options.size ?? (options.quick ? 'quick' : 'full'),
    machine: { ...machineInfo(), loadAverage: [loadBefore, loadavg()[0] ?? 0] },
    workload: {
      sensors: SENSORS,
      'items loaded': SENSORS * sizes.readingsPerSensor,
      'item size (DynamoDB bytes)': itemSize(validateItem(wireItem(reading(42, 0)))),
      'batch size': BATCH_SIZE,
      'scan page': SCAN_PAGE_ITEMS,
      'window items': WINDOW_READINGS,
      ...sizes,
    },
    results,
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

/**
 * Forks every contender, then runs each step's rounds, each round on every child in turn (one at
 * a time, rotating the order), and keeps each contender's median round.
 */
async function runAll(ids: readonly ContenderId[], workloads: readonly WorkloadName[], config: ChildConfig, rounds: number, settleMs: number, log: (line: string) => void): Promise<ChildResult[]> {
  const children = ids.map((id) => ({ id, child: forkChild(id, config) }));
  const results: ChildResult[] = ids.map((id) => ({ contender: id, name: id, notes: [], measurements: [], diskBytes: 0 }));
  const steps: Step[] = ['open', 'load', ...workloads.filter((w): w is Exclude<WorkloadName, 'batch'> => w !== 'batch'), 'close'];
  // A segment holds at least one reading round, so a small load has fewer segments than rounds.
  const loadSegments = Math.min(rounds, config.sizes.readingsPerSensor);
  try {
    for (const step of steps) {
      if (step !== 'open' && step !== 'load' && step !== 'close') log(`-- ${step}`);
      const of = step === 'open' || step === 'close' ? 1 : step === 'load' ? loadSegments : rounds;
      const measured: (RoundContext & { measurement: Measurement })[][] = ids.map(() => []);
      for (let round = 0; round < of; round++) {
        for (const [position, i] of rotation(children.length, round).entries()) {
          const others = children.filter((_, j) => j !== i).map(({ child }) => child);
          const { reply, context } = await sendWatched(children[i]!.child, others, { step, round, of });
          const result = results[i]!;
          if ('error' in reply) throw new Error(`${result.contender} failed in ${step}: ${reply.error}`);
          if (reply.step === 'close') Object.assign(result, { name: reply.name, notes: reply.notes, diskBytes: reply.diskBytes, memory: reply.memory });
          else if (reply.step !== 'open' && reply.measurement) measured[i]!.push({ measurement: reply.measurement, position, ...context });
        }
      }
      if (step === 'open' && settleMs > 0) {
        log(`-- settle: every contender idles ${settleMs / 1000} s with its store open`);
        await sleep(settleMs);
      }
      if (step === 'load' && !workloads.includes('batch')) continue;
      for (const [i, m] of measured.entries()) {
        if (m.length > 0) results[i]!.measurements.push(medianOfRounds(m));
      }
    }
  } finally {
    for (const { child } of children) if (child.connected) child.kill();
  }
  return results;
}

/** The contenders' process, compiled once per suite run: no TypeScript loader in its memory. */
let childEntry: string | undefined;

function forkChild(id: ContenderId, config: ChildConfig): ChildProcess {
  childEntry ??= compiled('child.ts');
  return fork(childEntry, [id, JSON.stringify(config)], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/**
 * One step on `child`, with what the parent saw around it: the step's wall time, the child's CPU
 * time in it, the CPU time of the `others` (idle by design) and the machine's dirty page cache.
 */
async function sendWatched(child: ChildProcess, others: readonly ChildProcess[], request: StepRequest): Promise<{ reply: StepReply; context: Omit<RoundContext, 'position'> }> {
  const cpu = (c: ChildProcess) => (c.pid === undefined ? NaN : (cpuMs(c.pid) ?? NaN));
  const othersCpu = () => others.reduce((total, c) => total + cpu(c), 0);
  const dirtyBytes = (meminfoBytes('Dirty') ?? NaN) + (meminfoBytes('Writeback') ?? NaN);
  const [othersBefore, ownBefore, started] = [othersCpu(), cpu(child), performance.now()];
  const reply = await send(child, request);
  const stepMs = performance.now() - started;
  return { reply, context: { stepMs, ownCpuMs: cpu(child) - ownBefore, othersCpuMs: othersCpu() - othersBefore, dirtyBytes } };
}

function send(child: ChildProcess, request: StepRequest): Promise<StepReply> {
  const { step } = request;
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown) => {
      cleanup();
      resolve(m as StepReply);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child exited with code ${code} during ${step}`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send(request);
  });
}
