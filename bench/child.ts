/**
 * One contender in its own process, driven by the parent over IPC, as compiled JavaScript
 * (bench/compile.ts) so its memory is the contender's and not a TypeScript loader's:
 * `fork(compiled('child.ts'), [contenderId, configJson], { execArgv: [] })`.
 *
 * Protocol: the parent sends { step: 'open' } (the store opens), then { step: 'load', round, of }
 * once per load segment, then { step: <workload>, round, of } once per round of each workload,
 * then { step: 'close' }; the child answers each with a StepReply. The parent runs one step at a time across all children,
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
/** A step's round (from 0) of `of`; for 'load', its segment (bench/workloads.ts `load`). */
export type StepRequest = { step: Step; round: number; of: number };

export type StepReply =
  | { step: 'open' }
  | { step: 'load'; measurement: Measurement }
  | { step: Exclude<WorkloadName, 'batch'>; measurement: Measurement | undefined }
  | { step: 'close'; name: string; notes: readonly string[]; diskBytes: number; memory: MemoryReport }
  | { step: Step; error: string };

/** Anonymous resident memory (RssAnon: heap, native allocations; not the mapped store file). */
export type MemoryReport = { afterLoadBytes: number; maxBytes: number };

const [id, configJson] = process.argv.slice(2);
if (!id || !(id in CONTENDERS) || !configJson || !process.send) {
  throw new Error(`run by bench/run.ts: child.ts <${Object.keys(CONTENDERS).join('|')}> <config-json> (with an IPC channel)`);
}
const config = JSON.parse(configJson) as ChildConfig;
const contender: Contender = CONTENDERS[id as ContenderId]();
const dir = mkdtempSync(join(tmpdir(), `edgetable-bench-${id}-`));
const log = (msg: string) => process.stderr.write(`[${contender.name}] ${msg}\n`);
const ctx = { contender, sizes: config.sizes, log, blockDevice: blockDeviceStatFile(dir) };
const profiler = config.profileDir ? await startProfiler(config.profileDir) : undefined;

process.on('message', (message) => {
  const { step, round, of } = message as StepRequest;
  handle(step, round, of).then(
    // After 'close' the child lets go of the channel, so the process exits once the reply is out.
    (reply) => process.send!(reply, undefined, {}, () => step === 'close' && process.disconnect()),
    (e: unknown) => process.send!({ step, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});

async function handle(step: Step, round: number, of: number): Promise<StepReply> {
  const profile = (name: string) => join(config.profileDir!, `${id}-${name}${of > 1 ? `-round${round + 1}` : ''}.cpuprofile`);
  if (step === 'open') {
    contender.open(dir);
    return { step };
  }
  if (step === 'load') {
    await profiler?.start();
    const measurement = load(ctx, round, of);
    await profiler?.stop(profile('batch'));
    // After the whole load: the last segment's sample.
    memory.afterLoadBytes = sampleMemory();
    log(`${describe(measurement)}; anonymous RSS ${(memory.afterLoadBytes / 2 ** 20).toFixed(1)} MiB`);
    return { step, measurement };
  }
  if (step === 'close') {
    sampleMemory();
    contender.close();
    const diskBytes = sizeOnDisk(dir);
    rmSync(dir, { recursive: true, force: true });
    profiler?.session.disconnect();
    return { step, name: contender.name, notes: contender.notes, diskBytes, memory };
  }
  await profiler?.start();
  const measurement = run(step, ctx, round);
  sampleMemory();
  await profiler?.stop(profile(step));
  if (measurement) log(describe(measurement));
  return { step, measurement };
}

const memory: MemoryReport = { afterLoadBytes: 0, maxBytes: 0 };

/**
 * Samples anonymous RSS after a step (the workloads are synchronous, so a timer could not sample
 * during one); keeps the maximum. Falls back to the whole RSS where /proc is missing.
 */
function sampleMemory(): number {
  const bytes = anonRssBytes() ?? process.memoryUsage().rss;
  memory.maxBytes = Math.max(memory.maxBytes, bytes);
  return bytes;
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
