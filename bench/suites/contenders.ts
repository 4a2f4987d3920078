/**
 * Suite `contenders`: edgetable against raw node-lmdb and better-sqlite3 on the sensor workload.
 *
 * Forks one child per contender (bench/child.ts, compiled) and runs one step at a time across them
 * (load, then each workload for every contender in turn), so they never share the two cores or the
 * disk. `only`, `contenders` and `profileDir` narrow the run (bench/run.ts flags).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildConfig, Step, StepReply } from '../child.js';
import { CONTENDERS, type ContenderId } from '../contenders/index.js';
import { wireItem } from '../contenders/edgetable.js';
import { renderMarkdown, type ChildResult, type Report } from '../report.js';
import { compiled } from '../compile.js';
import { FULL, QUICK, TINY, SENSORS, reading, BATCH_SIZE, SCAN_PAGE_ITEMS, WINDOW_READINGS } from '../workload.js';
import { WORKLOAD_NAMES, type WorkloadName } from '../workloads.js';
import { machineInfo, type SuiteOptions, type SuiteReport } from '../suite.js';
import { itemSize } from '../../src/model/item-size.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface ContendersOptions extends SuiteOptions {
  workloads?: readonly WorkloadName[];
  contenders?: readonly ContenderId[];
  profileDir?: string;
  /** Items loaded (rounded to whole rounds of the 1,000 sensors); default by size: 110,000 full. */
  items?: number;
}

export async function runContendersSuite(options: ContendersOptions): Promise<SuiteReport> {
  const started = performance.now();
  const workloads = options.workloads ?? WORKLOAD_NAMES;
  const contenders = options.contenders ?? (Object.keys(CONTENDERS) as ContenderId[]);
  const preset = options.size === 'tiny' ? TINY : options.quick ? QUICK : FULL;
  const sizes = options.items === undefined ? preset : { ...preset, readingsPerSensor: Math.max(1, Math.round(options.items / SENSORS)) };
  const config: ChildConfig = { sizes, ...(options.profileDir ? { profileDir: options.profileDir } : {}) };
  const loadBefore = loadavg()[0] ?? 0;
  const results = await runAll(contenders, workloads, config, options.log);
  const report: Omit<Report, 'markdown'> = {
    compiled: true,
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

/** Forks every contender, then runs each step on each child in turn, one at a time. */
async function runAll(ids: readonly ContenderId[], workloads: readonly WorkloadName[], config: ChildConfig, log: (line: string) => void): Promise<ChildResult[]> {
  const children = ids.map((id) => ({ id, child: forkChild(id, config) }));
  const results: ChildResult[] = ids.map((id) => ({ contender: id, name: id, notes: [], measurements: [], diskBytes: 0 }));
  const steps: Step[] = ['load', ...workloads.filter((w): w is Exclude<WorkloadName, 'batch'> => w !== 'batch'), 'close'];
  try {
    for (const step of steps) {
      if (step !== 'load' && step !== 'close') log(`-- ${step}`);
      for (const [i, { child }] of children.entries()) {
        const reply = await send(child, step);
        const result = results[i]!;
        if ('error' in reply) throw new Error(`${result.contender} failed in ${step}: ${reply.error}`);
        if (reply.step === 'close') Object.assign(result, { name: reply.name, notes: reply.notes, diskBytes: reply.diskBytes, memory: reply.memory });
        else if (reply.measurement && (reply.step !== 'load' || workloads.includes('batch'))) result.measurements.push(reply.measurement);
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

function send(child: ChildProcess, step: Step): Promise<StepReply> {
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
    child.send({ step });
  });
}
