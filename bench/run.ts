/**
 * `npm run bench [-- --suite indexes,sync] [-- --size full|quick|tiny] [-- --quick]`
 * `npm run bench -- [--items 1000000] [--markdown <file>] [--readme]`
 * `npm run bench -- --suite contenders [--only get,latest] [--contenders edgetable,sqlite] [--profile] [--rounds 5]`
 * `npm run bench -- --suite growth [--size tiny|quick] [--only ...] [--contenders ...] [--rounds N]`
 *
 * Runs the suites (bench/suites/index.ts; default: all of them but the growth suite, which runs
 * by name only: it loads 10 M readings per contender), each in its own
 * child process (bench/suite-child.ts), one after another so they never share the two cores or the
 * disk. Each suite prints its Markdown section on stdout as it finishes; progress goes to stderr.
 * A suite that fails or overruns its watchdog is reported and the others still run (exit code 1).
 *
 * A full run writes bench/results/<suite>.{json,md} for each suite it ran, then rebuilds the
 * combined bench/results/latest.{json,md} from every suite's file on disk (so `--suite sync` alone
 * refreshes the sync section and keeps the others). --quick (a few seconds per suite) and the
 * narrowing flags of the contenders suite (--only, --contenders, --profile) write nothing, so they
 * never replace full results. --size tiny is a smoke test of every suite (seconds each, also writes
 * nothing); --quick is --size quick. --items sets how many readings the contenders suite loads
 * (default 1,000,000 full; the growth suite's sizes are fixed: 1 M, 3 M and 10 M full). --rounds N
 * times each of the contenders and growth suites' workloads N times per
 * contender, interleaved, and reports the median (default 3, bench/rounds.ts); it narrows nothing,
 * so a full run with it writes its results (they say how many rounds). --markdown <file> writes this run's report (the summary table first,
 * then each suite's section) to <file>, whatever the size. --readme replaces the table between
 * README.md's bench-summary markers with the summary (bench/summary.ts) of the full results on
 * disk once this full run has written its own (refused on other runs): the contenders suite's table,
 * with the 10 M row of the growth suite when one is on disk. --profile writes one .cpuprofile per contender, workload and round (-round<N> when there are several) to
 * bench/results/profiles/ (summarise with `npx tsx bench/profile-summary.ts <file>`).
 */
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { WORKLOAD_NAMES } from './workloads.js';
import { DEFAULT_ROUNDS } from './rounds.js';
import { DEFAULT_SUITES, SUITE_NAMES, type SuiteName } from './suites/index.js';
import { FULL, QUICK, TINY } from './workload.js';
import { runBoundMs } from './contenders-run.js';
import { GROWTH_CONTENDERS, GROWTH_STAGES } from './suites/growth.js';
import { SETTLE_MS } from './suites/contenders.js';
import { machineInfo, type BenchSize, type SuiteReport } from './suite.js';
import { renderSummary, replaceReadmeSummary, type SuiteData } from './summary.js';
import type { SuiteChildOptions, SuiteReply } from './suite-child.js';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');
/**
 * A suite still running after this long is killed and reported as failed; the contenders and
 * growth suites' bound grows with their loads, contenders, workloads and rounds (runBoundMs).
 */
const WATCHDOG_MS = { full: 8 * 60_000, quick: 3 * 60_000 };

type StoredReport = SuiteReport & { loadAverage: [number, number] };

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string' },
      quick: { type: 'boolean', default: false },
      size: { type: 'string' },
      items: { type: 'string' },
      markdown: { type: 'string' },
      readme: { type: 'boolean', default: false },
      only: { type: 'string' },
      contenders: { type: 'string' },
      profile: { type: 'boolean', default: false },
      rounds: { type: 'string' },
    },
  });
  const size = benchSize(values.size, values.quick);
  const items = values.items === undefined ? undefined : Number(values.items);
  if (items !== undefined && !(Number.isInteger(items) && items >= 1000)) throw new Error(`--items must be a whole number of at least 1000, not ${values.items}`);
  const rounds = values.rounds === undefined ? undefined : Number(values.rounds);
  if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1)) throw new Error(`--rounds must be a whole number of at least 1, not ${values.rounds}`);
  const narrowed = values.only !== undefined || values.contenders !== undefined || values.profile;
  if (values.readme && (size !== 'full' || narrowed)) throw new Error('--readme takes full results only: run it without --size/--quick/--only/--contenders/--profile');
  const suites = values.suite === undefined ? (narrowed ? (['contenders'] as SuiteName[]) : DEFAULT_SUITES) : pick(values.suite, SUITE_NAMES, 'suite');
  const options: SuiteChildOptions = {
    quick: size !== 'full',
    size,
    ...(items !== undefined ? { items } : {}),
    ...(rounds !== undefined ? { rounds } : {}),
    ...(values.only !== undefined ? { workloads: pick(values.only, WORKLOAD_NAMES, 'workload') } : {}),
    ...(values.contenders !== undefined ? { contenders: pick(values.contenders, Object.keys(CONTENDERS) as ContenderId[], 'contender') } : {}),
    ...(values.profile ? { profileDir: join(resultsDir, 'profiles') } : {}),
  };
  const write = size === 'full' && !narrowed;
  const ran: Record<string, SuiteData> = {};
  const sections: string[] = [];

  const started = performance.now();
  const failed: string[] = [];
  for (const suite of suites) {
    process.stderr.write(`== suite ${suite}\n`);
    const reply = await runSuite(suite, options, watchdogMs(suite, size, options));
    if ('error' in reply) {
      failed.push(suite);
      process.stderr.write(`suite ${suite} failed: ${reply.error}\n`);
      const section = `### ${suite}: failed\n\n${reply.error.split('\n')[0]}\n\n`;
      sections.push(section);
      process.stdout.write(section);
      continue;
    }
    ran[suite] = reply.report;
    sections.push(`${reply.report.markdown.trimEnd()}\n`);
    process.stdout.write(`${reply.report.markdown}\n`);
    if (write) {
      mkdirSync(resultsDir, { recursive: true });
      const { markdown, ...rest } = reply.report;
      writeFileSync(join(resultsDir, `${suite}.json`), `${JSON.stringify({ ...rest, machine: machineInfo(), markdown }, null, 2)}\n`);
      writeFileSync(join(resultsDir, `${suite}.md`), markdown);
    }
  }
  process.stderr.write(`bench finished in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  // After a full run, the results on disk (this run's suites and the others' last full run).
  const summary = renderSummary(write ? storedReports() : ran);
  process.stdout.write(`${summary}\n`);
  if (write) {
    writeCombined();
    process.stderr.write(`wrote ${suites.map((s) => `${s}.{json,md}`).join(', ')} and latest.{json,md} in ${resultsDir}\n`);
  }
  if (values.markdown !== undefined) {
    writeFileSync(values.markdown, [`## edgetable benchmarks (${size} run, ${new Date().toISOString()})`, '', summary, ...sections].join('\n'));
    process.stderr.write(`wrote ${values.markdown}\n`);
  }
  if (values.readme) {
    const readme = join(here, '..', 'README.md');
    writeFileSync(readme, replaceReadmeSummary(readFileSync(readme, 'utf8'), summary));
    process.stderr.write(`updated the summary table in ${readme}\n`);
  }
  if (failed.length > 0) process.exitCode = 1;
}

function watchdogMs(suite: SuiteName, size: BenchSize, options: SuiteChildOptions): number {
  const fixed = size === 'full' ? WATCHDOG_MS.full : WATCHDOG_MS.quick;
  if (suite !== 'contenders' && suite !== 'growth') return fixed;
  const sizes = { full: FULL, quick: QUICK, tiny: TINY }[size];
  const stages = suite === 'growth' ? GROWTH_STAGES[size] : [options.items === undefined ? sizes.readingsPerSensor : Math.round(options.items / 1000)];
  const contenders = options.contenders?.length ?? (suite === 'growth' ? GROWTH_CONTENDERS.length : Object.keys(CONTENDERS).length);
  const workloads = options.workloads?.length ?? WORKLOAD_NAMES.length;
  const bound = runBoundMs({ contenders, workloads, rounds: options.rounds ?? DEFAULT_ROUNDS, stages, settleMs: size === 'tiny' ? 0 : SETTLE_MS });
  return Math.max(fixed, bound);
}

function benchSize(raw: string | undefined, quick: boolean): BenchSize {
  if (raw === undefined) return quick ? 'quick' : 'full';
  if (raw !== 'full' && raw !== 'quick' && raw !== 'tiny') throw new Error(`unknown size "${raw}"; one of: full, quick, tiny`);
  return raw;
}

function pick<T extends string>(raw: string | undefined, all: readonly T[], what: string): T[] {
  if (raw === undefined) return [...all];
  const wanted = raw.split(',').map((s) => s.trim());
  for (const w of wanted) if (!all.includes(w as T)) throw new Error(`unknown ${what} "${w}"; one of: ${all.join(', ')}`);
  return all.filter((w) => wanted.includes(w));
}

function runSuite(suite: SuiteName, options: SuiteChildOptions, watchdogMs: number): Promise<SuiteReply> {
  return new Promise((resolve) => {
    const child = fork(join(here, 'suite-child.ts'), [suite, JSON.stringify(options)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let reply: SuiteReply | undefined;
    const watchdog = setTimeout(() => {
      reply ??= { error: `still running after ${watchdogMs / 1000} s; killed` };
      child.kill('SIGKILL');
    }, watchdogMs);
    child.on('message', (m) => (reply ??= m as SuiteReply));
    child.on('exit', (code, signal) => {
      clearTimeout(watchdog);
      resolve(reply ?? { error: `suite process exited (${signal ?? `code ${code}`}) without a report` });
    });
  });
}

/** Every suite's last full result on disk, in suite order. */
function storedReports(): Record<string, StoredReport> {
  const reports: Record<string, StoredReport> = {};
  for (const suite of SUITE_NAMES) {
    const file = join(resultsDir, `${suite}.json`);
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredReport>;
    if (r.suite === suite && typeof r.markdown === 'string') reports[suite] = r as StoredReport;
  }
  return reports;
}

/** latest.{json,md}: the summary, then every suite's last full result on disk, in suite order. */
function writeCombined(): void {
  const stored = storedReports();
  const reports = Object.values(stored);
  const m = machineInfo();
  const markdown = [
    '## edgetable benchmarks',
    '',
    `Machine: Node ${m.node}, ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.platform}; data in ${m.tmpdir}.`,
    '`npm run bench` runs every suite below, each in its own process and one after another; `npm run bench -- --suite <name>` runs one, `--quick` a short version that writes nothing. Each section ends with its own date and the load average around it: on a shared machine, a load above the core count means other processes competed for CPU and disk.',
    '',
    renderSummary(stored),
    ...reports.map((r) => r.markdown.trimEnd() + '\n'),
  ].join('\n');
  writeFileSync(join(resultsDir, 'latest.md'), markdown);
  writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify({ machine: m, suites: stored }, null, 2)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
