/**
 * `npm run bench [-- --quick] [-- --only get,latest] [-- --contenders edgetable,sqlite] [-- --profile]`
 *
 * Forks one child per contender (bench/child.ts under tsx), one after another so they never share
 * the two cores or the disk, collects their measurements and prints a Markdown table on stdout;
 * progress goes to stderr. Writes bench/results/latest.{json,md} unless --only, --contenders or
 * --profile narrowed the run. --profile writes one .cpuprofile per contender and workload to
 * bench/results/profiles/ (summarise with `npx tsx bench/profile-summary.ts <file>`).
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import type { ChildConfig, Step, StepReply } from './child.js';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { wireItem } from './contenders/edgetable.js';
import { renderMarkdown, type ChildResult, type Report } from './report.js';
import { FULL, QUICK, SENSORS, reading, BATCH_SIZE, SCAN_PAGE_ITEMS, WINDOW_READINGS } from './workload.js';
import { WORKLOAD_NAMES, type WorkloadName } from './workloads.js';
import { itemSize } from '../src/model/item-size.js';
import { validateItem } from '../src/model/validate-attribute-value.js';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      contenders: { type: 'string' },
      profile: { type: 'boolean', default: false },
    },
  });
  const workloads = pick(values.only, WORKLOAD_NAMES, 'workload');
  const contenders = pick(values.contenders, Object.keys(CONTENDERS) as ContenderId[], 'contender');
  const sizes = values.quick ? QUICK : FULL;
  const config: ChildConfig = { sizes, ...(values.profile ? { profileDir: join(resultsDir, 'profiles') } : {}) };

  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const results = await runAll(contenders, workloads, config);

  const report: Omit<Report, 'markdown'> = {
    date: new Date().toISOString(),
    mode: values.quick ? 'quick' : 'full',
    machine: {
      node: process.version,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      platform: `${platform()} ${release()}`,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      tmpdir: tmpdir(),
      loadAverage: [loadBefore, loadavg()[0] ?? 0],
    },
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
  const markdown = renderMarkdown(report, workloads);
  process.stdout.write(markdown);
  process.stderr.write(`bench finished in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  if (!values.only && !values.contenders && !values.profile) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify({ ...report, markdown }, null, 2)}\n`);
    writeFileSync(join(resultsDir, 'latest.md'), markdown);
    process.stderr.write(`wrote ${join(resultsDir, 'latest.json')} and latest.md\n`);
  }
}

function pick<T extends string>(raw: string | undefined, all: readonly T[], what: string): T[] {
  if (raw === undefined) return [...all];
  const wanted = raw.split(',').map((s) => s.trim());
  for (const w of wanted) if (!all.includes(w as T)) throw new Error(`unknown ${what} "${w}"; one of: ${all.join(', ')}`);
  return all.filter((w) => wanted.includes(w));
}

/** Forks every contender, then runs each step on each child in turn, one at a time. */
async function runAll(ids: readonly ContenderId[], workloads: readonly WorkloadName[], config: ChildConfig): Promise<ChildResult[]> {
  const children = ids.map((id) => ({ id, child: forkChild(id, config) }));
  const results: ChildResult[] = ids.map((id) => ({ contender: id, name: id, notes: [], measurements: [], diskBytes: 0 }));
  const steps: Step[] = ['load', ...workloads.filter((w): w is Exclude<WorkloadName, 'batch'> => w !== 'batch'), 'close'];
  try {
    for (const step of steps) {
      if (step !== 'load' && step !== 'close') process.stderr.write(`-- ${step}\n`);
      for (const [i, { child }] of children.entries()) {
        const reply = await send(child, step);
        const result = results[i]!;
        if ('error' in reply) throw new Error(`${result.contender} failed in ${step}: ${reply.error}`);
        if (reply.step === 'close') Object.assign(result, { name: reply.name, notes: reply.notes, diskBytes: reply.diskBytes });
        else if (reply.measurement && (reply.step !== 'load' || workloads.includes('batch'))) result.measurements.push(reply.measurement);
      }
    }
  } finally {
    for (const { child } of children) if (child.connected) child.kill();
  }
  return results;
}

function forkChild(id: ContenderId, config: ChildConfig): ChildProcess {
  return fork(join(here, 'child.ts'), [id, JSON.stringify(config)], {
    execArgv: ['--import', 'tsx'],
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

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
