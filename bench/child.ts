/**
 * One contender in its own process, driven by the parent over IPC, as compiled JavaScript
 * (bench/compile.ts) so its memory is the contender's and not a TypeScript loader's:
 * `fork(compiled('child.ts'), [contenderId, configJson], { execArgv: [] })`.
 *
 * Protocol: the parent sends { step: 'open' } (the store opens), then { step: 'load', round, of }
 * once per load segment, then { step: <workload>, round, of } once per round of each workload,
 * then { step: 'close' }; the child answers each with a StepReply. A store grown in stages (the
 * growth suite) gets a load phase per stage, each with the `range` of reading rounds it adds,
 * and the workloads after it read the store at that size. The parent runs one step at a time across all children,
 * so contenders never share the CPU or the disk, and interleaves the rounds (bench/rounds.ts).
 * The data lives in a fresh temp dir, removed on close. With config.profileDir each step's round
 * is CPU-profiled on its own (the load as 'batch').
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contender } from './contender.js';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { load, run, type Measurement, type WorkloadName } from './workloads.js';
import type { Sizes } from './workload.js';
import { anonRssBytes, blockDeviceStatFile } from './proc.js';

export interface ChildConfig {
  sizes: Sizes;
  profileDir?: string;
}

export type Step = 'open' | 'load' | Exclude<WorkloadName, 'batch'> | 'close';
/**
 * A step's round (from 0) of `of`; for 'load', its segment (bench/workloads.ts `load`) of the
 * reading rounds `range` (default all of the config's). A workload's `round` numbers its fresh
 * keys and seeds: a store grown in stages numbers them on across the stages.
 */
export type StepRequest = { step: Step; round: number; of: number; range?: [number, number] };

/**
 * `peakAnonBytes`: the step's highest anonymous RSS (RssAnon: heap and native allocations; not the
 * mapped store file), sampled every ~100 ms in its timed loops and at its end. The last segment
 * of a load also reports the store's size on disk then (`diskBytes`) and its RSS (`anonBytes`).
 */
export type StepReply =
  | { step: 'open' }
  | { step: 'load'; measurement: Measurement; peakAnonBytes: number; diskBytes?: number; anonBytes?: number }
  | { step: Exclude<WorkloadName, 'batch'>; measurement: Measurement | undefined; peakAnonBytes: number }
  | { step: 'close'; name: string; notes: readonly string[]; diskBytes: number }
  | { step: Step; error: string };

const [id, configJson] = process.argv.slice(2);
if (!id || !(id in CONTENDERS) || !configJson || !process.send) {
  throw new Error(`run by bench/run.ts: child.ts <${Object.keys(CONTENDERS).join('|')}> <config-json> (with an IPC channel)`);
}
const config = JSON.parse(configJson) as ChildConfig;
const contender: Contender = CONTENDERS[id as ContenderId]();
const dir = mkdtempSync(join(tmpdir(), `edgetable-bench-${id}-`));
const log = (msg: string) => process.stderr.write(`[${contender.name}] ${msg}\n`);
/** The highest anonymous RSS sampled since the current step began. */
let stepPeak = 0;
/** Falls back to the whole RSS where /proc is missing. */
const sampleMemory = (): number => {
  const bytes = anonRssBytes() ?? process.memoryUsage().rss;
  stepPeak = Math.max(stepPeak, bytes);
  return bytes;
};
const ctx = { contender, sizes: { ...config.sizes }, log, blockDevice: blockDeviceStatFile(dir), sample: sampleMemory };
const profiler = config.profileDir ? await startProfiler(config.profileDir) : undefined;

process.on('message', (message) => {
  const { step, round, of, range } = message as StepRequest;
  handle(step, round, of, range).then(
    // After 'close' the child lets go of the channel, so the process exits once the reply is out.
    (reply) => process.send!(reply, undefined, {}, () => step === 'close' && process.disconnect()),
    (e: unknown) => process.send!({ step, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});

async function handle(step: Step, round: number, of: number, range?: [number, number]): Promise<StepReply> {
  const profile = (name: string) => join(config.profileDir!, `${id}-${name}${of > 1 ? `-round${round + 1}` : ''}.cpuprofile`);
  if (step === 'open') {
    contender.open(dir);
    return { step };
  }
  stepPeak = 0;
  sampleMemory();
  if (step === 'load') {
    const loadRange = range ?? [0, config.sizes.readingsPerSensor];
    await profiler?.start();
    const measurement = load(ctx, round, of, loadRange);
    await profiler?.stop(profile('batch'));
    const anonBytes = sampleMemory();
    if (round < of - 1) {
      log(describe(measurement));
      return { step, measurement, peakAnonBytes: stepPeak };
    }
    // The whole load is in: the workloads read the store at this size from now on.
    ctx.sizes.readingsPerSensor = loadRange[1];
    const diskBytes = sizeOnDisk(dir);
    log(`${describe(measurement)}; anonymous RSS ${(anonBytes / 2 ** 20).toFixed(1)} MiB, store ${(diskBytes / 2 ** 20).toFixed(1)} MiB`);
    return { step, measurement, peakAnonBytes: stepPeak, diskBytes, anonBytes };
  }
  if (step === 'close') {
    contender.close();
    const diskBytes = sizeOnDisk(dir);
    rmSync(dir, { recursive: true, force: true });
    profiler?.session.disconnect();
    return { step, name: contender.name, notes: contender.notes, diskBytes };
  }
  await profiler?.start();
  const measurement = run(step, ctx, round);
  sampleMemory();
  await profiler?.stop(profile(step));
  if (measurement) log(describe(measurement));
  return { step, measurement, peakAnonBytes: stepPeak };
}

function describe(m: Measurement): string {
  const value = m.unit === '% of a Query' ? `${m.value.toFixed(1)}%` : `${Math.round(m.value).toLocaleString('en-US')} ${m.unit}`;
  return `${m.workload}: ${value} (${m.count} in ${(m.ms / 1000).toFixed(2)} s)`;
}

/** Allocated bytes of every file under `path` (LMDB's file grows with its pages; WAL included). */
function sizeOnDisk(path: string): number {
  let total = 0;
  for (const name of readdirSync(path)) {
    const st = statSync(join(path, name));
    total += st.isDirectory() ? sizeOnDisk(join(path, name)) : st.blocks * 512;
  }
  return total;
}

async function startProfiler(profileDir: string) {
  mkdirSync(profileDir, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  return {
    session,
    start: () => session.post('Profiler.start'),
    async stop(file: string) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
    },
  };
}
