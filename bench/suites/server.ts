/**
 * Suite `server`: bench/server.ts (the DynamoDB API through the AWS SDK v3 against `edgetable
 * serve`, with and without group commit, dynalite when installed, and the in-process adapter),
 * through its runServerBench hook. One round of at most 2.5 s per workload in a full run (server.ts
 * alone runs three rounds of 4 s and keeps the best) to keep the whole `npm run bench` within its
 * time budget; `npx tsx bench/server.ts` is the longer, steadier measurement.
 */
import { SERVER_FULL, SERVER_QUICK, runServerBench } from '../server.js';
import type { SuiteOptions, SuiteReport } from '../suite.js';

const SIZES = { full: { ...SERVER_FULL, budgetMs: 2500 }, quick: { ...SERVER_QUICK, budgetMs: 500 } };

export async function runServerSuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const { markdown, ...report } = await runServerBench({ quick, rounds: 1, sizes: quick ? SIZES.quick : SIZES.full, log: (line) => log(`server: ${line}`) });
  const dynalite = report.results.find((r) => r.id === 'dynalite');
  const section = markdown
    .replace(/^## edgetable server benchmark \([^)]*\)/, '### DynamoDB API over HTTP through the AWS SDK (`--suite server`)')
    .trimEnd();
  const note = dynalite?.skipped
    ? `\n\ndynalite: ${dynalite.skipped} (\`npm install\` brings it: it is a devDependency), so its column is empty.`
    : "\n\ndynalite's LevelDB writes are not fsync'd, so its \"durable\" columns are not durable: its write figures are an upper bound, not a like-for-like comparison.";
  return { suite: 'server', date: report.date, mode: report.mode, seconds: (performance.now() - started) / 1000, markdown: `${section}${note}\n`, data: report };
}
