/**
 * One suite in its own process, so no suite inherits another's heap, timers or open stores:
 * `fork('bench/suite-child.ts', [suiteName, optionsJson], { execArgv: ['--import', 'tsx'] })`.
 * Sends one SuiteReply over IPC, then exits. The suite's Markdown gets a closing line with its
 * wall time and the 1-minute load average around it (other processes skew every number).
 */
import { cpus } from 'node:os';
import { SUITES, type SuiteName } from './suites/index.js';
import { load1, type SuiteReport } from './suite.js';
import type { ContendersOptions } from './suites/contenders.js';

export type SuiteChildOptions = Omit<ContendersOptions, 'log'>;
export type SuiteReply = { report: SuiteReport & { loadAverage: [number, number] } } | { error: string };

const [name, optionsJson] = process.argv.slice(2);
if (!name || !(name in SUITES) || !optionsJson || !process.send) {
  throw new Error(`run by bench/run.ts: suite-child.ts <${Object.keys(SUITES).join('|')}> <options-json> (with an IPC channel)`);
}
const options = JSON.parse(optionsJson) as SuiteChildOptions;
const log = (line: string) => process.stderr.write(`[${name}] ${line}\n`);

async function main(): Promise<SuiteReply> {
  const before = load1();
  const report = await SUITES[name as SuiteName]({ ...options, log });
  const loadAverage: [number, number] = [before, load1()];
  const closing = `_${report.mode} run in ${report.seconds.toFixed(0)} s, ${report.date}; 1-min load average ${loadAverage.map((x) => x.toFixed(1)).join(' -> ')} on ${cpus().length} cores._\n`;
  return { report: { ...report, markdown: `${report.markdown.trimEnd()}\n\n${closing}`, loadAverage } };
}

main().then(
  (reply) => process.send!(reply, undefined, {}, () => process.exit(0)),
  (e: unknown) => process.send!({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies SuiteReply, undefined, {}, () => process.exit(1)),
);
