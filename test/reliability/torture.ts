/**
 * `npm run torture -- --cycles N [--seed S] [--path DIR] [--max-kill-delay-ms MS]`: the crash
 * harness for as long as asked, printing progress and the figures. Exit code 1 on any violation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCrashCycles } from './harness/crash-runner.js';

const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    path: { type: 'string' },
    'max-kill-delay-ms': { type: 'string', default: '400' },
    keep: { type: 'boolean', default: false },
  },
});

const cycles = Number(values.cycles);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000;
const dir = values.path ?? mkdtempSync(join(tmpdir(), 'edgetable-torture-'));
const path = values.path ?? join(dir, 'db');
let reported = 0;
console.log(`torture: ${cycles} cycles, seed ${seed}, store ${path}`);
const figures = await runCrashCycles({
  path,
  cycles,
  seed,
  maxKillDelayMs: Number(values['max-kill-delay-ms']),
  onCycle: (cycle, f) => {
    for (const v of f.violations.slice(reported)) console.log(`  violation: ${v}`);
    reported = f.violations.length;
    if (cycle % 50 === 0 || cycle === cycles) {
      console.log(`  cycle ${cycle}: ${f.ackedWrites} acknowledged writes checked, ${f.violations.length} violations, ${(f.ms / 1000).toFixed(1)} s`);
    }
  },
});
if (values.path === undefined && !values.keep) rmSync(dir, { recursive: true, force: true });
const table = {
  cycles: figures.cycles,
  'acknowledged writes checked': figures.ackedWrites,
  'acknowledged ops (incl. expected rejections)': figures.ackedOps,
  'acknowledged transactions': figures.acknowledgedTransactions,
  'in-flight ops found applied': figures.inFlightApplied,
  'keys compared': figures.keysCompared,
  'change records replayed': figures.streamRecordsReplayed,
  violations: figures.violations.length,
  'time (s)': (figures.ms / 1000).toFixed(1),
};
console.table(table);
process.exitCode = figures.violations.length > 0 ? 1 : 0;
