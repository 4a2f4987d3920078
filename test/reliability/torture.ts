/**
 * `npm run torture -- --cycles N [--seed S] [--path DIR] [--max-kill-delay-ms MS]`: the crash
 * harness for as long as asked, printing progress and the figures. Exit code 1 on any violation.
 *
 * Power cuts: `--power-cut` keeps, at each kill, only what the worker's flushes made durable
 * (harness/power-cut.ts); `--reorder` also keeps a random half of the unflushed 4 KiB pieces, as a
 * disk that reorders writes; `--no-flush` makes the worker's flushes do nothing (the run must then
 * report violations: the harness can fail). `--durability relaxed` checks relaxed mode's
 * documented loss, `--durability log` the redo log's recovery (every cut a restart), `--durability
 * interval` the deferred log flush's loss bound (CRASH_SYNC_INTERVAL_MS, default 100, plus
 * harness/crash-runner.ts's slack); `--promises N` writes through db.promises with N ops in flight.
 *
 * `--log-writes-per-commit N`: with `--durability log` or `interval`, the worker's store holds N writes per LMDB txn.
 * `--every-cut [--ops N] [--durability sync|log|interval] [--promises N]`: instead of random kills, `--cycles` cycles of
 * one worker for N ops (default 400) each, every cycle cut at every flush and around every
 * acknowledgement and the next one continued from one of those cuts (harness/every-cut.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCrashCycles } from './harness/crash-runner.js';
import { runEveryCut } from './harness/every-cut.js';

const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    path: { type: 'string' },
    'max-kill-delay-ms': { type: 'string', default: '400' },
    keep: { type: 'boolean', default: false },
    'power-cut': { type: 'boolean', default: false },
    reorder: { type: 'boolean', default: false },
    'no-flush': { type: 'boolean', default: false },
    durability: { type: 'string', default: 'sync' },
    promises: { type: 'string', default: '0' },
    'every-cut': { type: 'boolean', default: false },
    ops: { type: 'string', default: '400' },
    'log-writes-per-commit': { type: 'string', default: '1' },
  },
});
// The crash worker reads it (storage/held-txn.ts); the workers inherit this process's environment.
process.env.CRASH_LOG_WRITES_PER_COMMIT = values['log-writes-per-commit'];
if (values.durability !== 'sync' && values.durability !== 'relaxed' && values.durability !== 'log' && values.durability !== 'interval') throw new Error('--durability is sync, relaxed, log or interval');
const durability: 'sync' | 'relaxed' | 'log' | 'interval' = values.durability;
const powerCut = values['power-cut'] ? { mode: values.reorder ? ('reorder' as const) : ('last-flush' as const), noFlush: values['no-flush'] } : undefined;

const cycles = Number(values.cycles);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000;
const dir = values.path ?? mkdtempSync(join(tmpdir(), 'edgetable-torture-'));
const path = values.path ?? join(dir, 'db');

if (values['every-cut']) {
  if (durability === 'relaxed') throw new Error('--every-cut checks sync, log or interval durability');
  console.log(`torture: ${cycles} cycles cut at every flush, ${values.ops} ops each, durability ${durability}, seed ${seed}, store ${path}`);
  const f = await runEveryCut({ path, seed, durability, ops: Number(values.ops), cycles, promisesInFlight: Number(values.promises) });
  console.log(`${f.ackedOps} ops acknowledged, ${f.journalRecords} journal records, ${f.cuts} cut points x 2 modes, ${f.requiredAcks} acknowledged ops required over the cuts, ${f.violations.length} violations`);
  for (const v of f.violations.slice(0, 20)) console.log(`  violation: ${v}`);
  const violations = f.violations.length;
  if (values.path === undefined && !values.keep) rmSync(dir, { recursive: true, force: true });
  process.exit(violations > 0 ? 1 : 0);
}

let reported = 0;
const kind = powerCut ? `power cuts (${powerCut.mode}${powerCut.noFlush ? ', flushes disabled' : ''})` : 'process kills';
console.log(`torture: ${cycles} cycles of ${kind}, durability ${durability}${Number(values.promises) > 0 ? `, db.promises x${values.promises}` : ''}, seed ${seed}, store ${path}`);
const figures = await runCrashCycles({
  path,
  cycles,
  seed,
  maxKillDelayMs: Number(values['max-kill-delay-ms']),
  durability,
  promisesInFlight: Number(values.promises),
  ...(powerCut ? { powerCut } : {}),
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
  ...(powerCut
    ? {
        'writes journaled': figures.journaledWrites,
        'writes durable at the cut': figures.durableWrites,
        'unflushed 4 KiB pieces kept': figures.unflushedPiecesKept,
        'unflushed 4 KiB pieces dropped': figures.unflushedPiecesDropped,
        'files created/unlinked/renamed (kept by the cuts)': `${figures.nameChanges} (${figures.nameChangesKept})`,
        'writes journaled by file': JSON.stringify(figures.writesByFile),
      }
    : {}),
  ...(durability === 'relaxed' ? { 'last acknowledged write lost (documented)': figures.lostLastWrites } : {}),
  ...(durability === 'interval' ? { 'acknowledged ops a returned flush covered (had to be found)': figures.requiredAcks, 'acknowledged ops lost, none covered (documented)': figures.lostAckedOps, 'oldest loss, ms before the cut': figures.oldestLossMs } : {}),
  violations: figures.violations.length,
  'time (s)': (figures.ms / 1000).toFixed(1),
};
console.table(table);
console.log(
  `${figures.cycles} cycles, ${figures.ackedWrites} acknowledged writes, ${figures.acknowledgedTransactions} transactions, ` +
    `${figures.streamRecordsReplayed} change records replayed${durability === 'relaxed' ? `, ${figures.lostLastWrites} last writes lost (documented window)` : ''}` +
    `${durability === 'interval' ? `, ${figures.lostAckedOps} acknowledged ops lost within the interval (oldest ${figures.oldestLossMs} ms before the cut)` : ''}, ` +
    `${figures.violations.length} violations`,
);
process.exitCode = figures.violations.length > 0 ? 1 : 0;
