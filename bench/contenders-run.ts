/**
 * Runs the contenders' processes (bench/child.ts, compiled) through the steps of the contenders
 * and growth suites, one step at a time across them, so they never share the two cores or the disk.
 *
 * A run is one or more stages, each a store size: every contender loads the stage's readings
 * into its store (grown from the last stage's, never rebuilt), then runs the workloads on it.
 * Each step runs in `rounds` rounds, each round once per contender in a rotating order
 * (bench/rounds.ts); a load in as many segments (at most one per reading round). Every figure is
 * the median round's, its rounds kept. Every contender opens its store, then all idle `settleMs`
 * before the first load (bench/suites/contenders.ts, SETTLE_MS).
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { ChildConfig, StepReply, StepRequest } from './child.js';
import type { ContenderId } from './contenders/index.js';
import type { ChildResult } from './report.js';
import { compiled } from './compile.js';
import { medianOfRounds, rotation } from './rounds.js';
import { READ_WORKLOADS, type Measurement, type RoundContext, type WorkloadName } from './workloads.js';
import { cpuMs, meminfoBytes } from './proc.js';
import { sleep } from './suite.js';
import { SENSORS } from './workload.js';

export interface ContendersPlan {
  ids: readonly ContenderId[];
  workloads: readonly WorkloadName[];
  config: ChildConfig;
  rounds: number;
  settleMs: number;
  /** Reading rounds (readings per sensor) in the store at the end of each stage, ascending. */
  stages: readonly number[];
  log: (line: string) => void;
}

type WorkloadStep = Exclude<WorkloadName, 'batch'>;

/** Per stage, per contender (in `plan.ids` order), what it measured at that size. */
export async function runContenders(plan: ContendersPlan): Promise<ChildResult[][]> {
  const { ids, workloads, config, rounds, settleMs, stages, log } = plan;
  const children = ids.map((id) => ({ id, child: forkChild(id, config) }));
  const perStage: ChildResult[][] = stages.map(() => ids.map((id) => ({ contender: id, name: id, notes: [], measurements: [], diskBytes: NaN })));
  const timed = workloads.filter((w): w is WorkloadStep => w !== 'batch');
  try {
    await roundsOf(children, 1, () => ({ step: 'open', round: 0, of: 1 }));
    if (settleMs > 0) {
      log(`-- settle: every contender idles ${settleMs / 1000} s with its store open`);
      await sleep(settleMs);
    }
    let loaded = 0;
    for (const [s, readingsPerSensor] of stages.entries()) {
      const results = perStage[s]!;
      if (stages.length > 1) log(`-- stage ${s + 1} of ${stages.length}: ${(readingsPerSensor * 1000).toLocaleString('en-US')} readings`);
      // A segment holds at least one reading round, so a small load has fewer segments than rounds.
      const segments = Math.min(rounds, readingsPerSensor - loaded);
      const range: [number, number] = [loaded, readingsPerSensor];
      const loads = await roundsOf(children, segments, (round) => ({ step: 'load', round, of: segments, range }));
      for (const [i, replies] of loads.entries()) {
        const last = replies.at(-1)!.reply;
        if (last.step !== 'load' || !('measurement' in last)) continue;
        Object.assign(results[i]!, {
          diskAfterLoadBytes: last.diskBytes,
          memory: { afterLoadBytes: last.anonBytes ?? NaN, readsPeakBytes: peak(replies), maxBytes: peak(replies) },
        });
        if (workloads.includes('batch')) results[i]!.measurements.push(median(replies));
      }
      loaded = readingsPerSensor;
      for (const step of timed) {
        log(`-- ${step}`);
        // Fresh keys and seeds numbered on across the stages: no stage rewrites an earlier one's keys.
        const measured = await roundsOf(children, rounds, (round) => ({ step, round: s * rounds + round, of: rounds }));
        for (const [i, replies] of measured.entries()) {
          const memory = results[i]!.memory;
          if (memory) {
            memory.maxBytes = Math.max(memory.maxBytes, peak(replies));
            if (READ_WORKLOADS.includes(step)) memory.readsPeakBytes = Math.max(memory.readsPeakBytes ?? 0, peak(replies));
          }
          if (replies.every(({ reply }) => 'measurement' in reply && reply.measurement)) results[i]!.measurements.push(median(replies));
        }
      }
    }
    const closed = await roundsOf(children, 1, () => ({ step: 'close', round: 0, of: 1 }));
    for (const [i, [only]] of closed.entries()) {
      const reply = only!.reply;
      // The name and notes hold for every stage; the size after the run for the last one only.
      if (reply.step !== 'close' || !('name' in reply)) continue;
      for (const results of perStage) Object.assign(results[i]!, { name: reply.name, notes: reply.notes });
      perStage.at(-1)![i]!.diskBytes = reply.diskBytes;
    }
  } finally {
    for (const { child } of children) if (child.connected) child.kill();
  }
  return perStage;
}

type Replied = RoundContext & { reply: StepReply };
type Child = { id: ContenderId; child: ChildProcess };

/** `of` rounds of one step, each on every child in turn in a rotating order; per child, its replies in round order. */
async function roundsOf(children: readonly Child[], of: number, request: (round: number) => StepRequest): Promise<Replied[][]> {
  const replies: Replied[][] = children.map(() => []);
  for (let round = 0; round < of; round++) {
    for (const [position, i] of rotation(children.length, round).entries()) {
      const others = children.filter((_, j) => j !== i).map(({ child }) => child);
      const req = request(round);
      const { reply, context } = await sendWatched(children[i]!.child, others, req, children[i]!.id);
      if ('error' in reply) throw new Error(`${children[i]!.id} failed in ${req.step}: ${reply.error}`);
      replies[i]!.push({ reply, position, ...context });
    }
  }
  return replies;
}

function median(replies: readonly Replied[]): Measurement {
  return medianOfRounds(replies.map(({ reply, ...context }) => ({ ...context, measurement: (reply as { measurement: Measurement }).measurement })));
}

function peak(replies: readonly Replied[]): number {
  return Math.max(...replies.map(({ reply }) => ('peakAnonBytes' in reply ? reply.peakAnonBytes : 0)));
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
async function sendWatched(child: ChildProcess, others: readonly ChildProcess[], request: StepRequest, id: ContenderId): Promise<{ reply: StepReply; context: Omit<RoundContext, 'position'> }> {
  const cpu = (c: ChildProcess) => (c.pid === undefined ? NaN : (cpuMs(c.pid) ?? NaN));
  const othersCpu = () => others.reduce((total, c) => total + cpu(c), 0);
  const dirtyBytes = (meminfoBytes('Dirty') ?? NaN) + (meminfoBytes('Writeback') ?? NaN);
  const [othersBefore, ownBefore, started] = [othersCpu(), cpu(child), performance.now()];
  const boundMs = stepBoundMs(request);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${id} still in step ${request.step} (round ${request.round + 1} of ${request.of}) after ${Math.round(boundMs / 1000)} s: taken to hang`)), boundMs);
  });
  const reply = await Promise.race([send(child, request), hung]).finally(() => clearTimeout(timer));
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

/**
 * A contender's slowest plausible load rate (items/s): on this shared 2-core machine at a load
 * average of 10, edgetable loaded 1 M readings at 2,144 items/s, a twelfth of its idle rate.
 */
const FLOOR_LOAD_ITEMS_PER_SECOND = 1_000;
/** A workload round's longest plausible time: its 10 s budget, its warm-up and its inputs, on a loaded machine. */
const ROUND_BOUND_MS = 60_000;
/** Opening a store, closing it (a log's last checkpoint), or switching its durability. */
const OTHER_STEP_BOUND_MS = 10 * 60_000;

/** How long one step may run before it is taken to hang and the run fails (so a hang costs minutes, not the suite's bound). */
function stepBoundMs({ step, of, range }: StepRequest): number {
  if (step === 'open' || step === 'close') return OTHER_STEP_BOUND_MS;
  if (step !== 'load') return ROUND_BOUND_MS * 5;
  const items = range === undefined ? Infinity : ((range[1] - range[0]) * SENSORS) / of;
  return 60_000 + (items * 1000) / FLOOR_LOAD_ITEMS_PER_SECOND;
}

/**
 * How long a run of `plan`'s shape may take (bench/run.ts's watchdog, a backstop: a hung step
 * fails the run sooner, stepBoundMs): every load at the floor rate, every workload round at its
 * bound. Far above what a run takes, so a slow machine's run is never cut short.
 */
export function runBoundMs(plan: { contenders: number; workloads: number; rounds: number; stages: readonly number[]; settleMs: number }): number {
  const items = (plan.stages.at(-1) ?? 0) * SENSORS;
  const loadMs = (plan.contenders * items * 1000) / FLOOR_LOAD_ITEMS_PER_SECOND;
  const roundsMs = plan.stages.length * plan.rounds * plan.contenders * plan.workloads * ROUND_BOUND_MS;
  return plan.settleMs + loadMs + roundsMs + OTHER_STEP_BOUND_MS;
}
