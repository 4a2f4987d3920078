/**
 * `npx tsx bench/read-rounds.ts [--rounds 6] [--only get,latest,window,scan] [--contenders ...]
 *  [--items 110000] [--slice-ms 1500]`: the read columns of the contenders suite with every
 * contender in one process, run round-robin in short slices (each column, each contender in turn,
 * `rounds` times), so that load from other processes on a shared machine falls on all contenders
 * alike, and rates are per CPU second of the process (see slice). Prints, per column, each contender's best and median rate and the ratios of edgetable's
 * to the others' (of the bests, and the median of the per-round ratios). Measures, never fails on
 * a time. The contenders' processes of `npm run bench` remain the reference (memory, compiled
 * code); this is the tool for before/after comparisons of the read path on a noisy machine.
 *
 * With `--before <dir>` (a checkout of another tree, its node_modules linked) that tree's edgetable
 * contender runs too, as `before`, in the same rounds: after/before ratios on the same load.
 *
 * With `--profile <file>` it runs edgetable only (or the first of `--contenders`), the first column of
 * `--only` (after a warm-up of every column given, so code shared by columns is in the rounds' state), for `--slice-ms` under
 * the inspector's CPU profiler, and writes the .cpuprofile (summarise it with
 * bench/profile-summary.ts ... within=slice).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CONTENDERS } from './contenders/index.js';
import type { Contender } from './contender.js';
import { BATCH_SIZE, LATEST_COUNT, SCAN_PAGE_ITEMS, SENSORS, loadOrder, randomKeys, randomSensors, randomWindows } from './workload.js';

const COLUMNS = ['get', 'latest', 'window', 'scan'] as const;
type Column = (typeof COLUMNS)[number];

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    only: { type: 'string' },
    contenders: { type: 'string' },
    items: { type: 'string', default: '110000' },
    'slice-ms': { type: 'string', default: '1500' },
    profile: { type: 'string' },
    before: { type: 'string' },
    /** Where the stores live; /dev/shm makes the load's fsyncs free on a busy disk (reads do not flush). */
    dir: { type: 'string', default: tmpdir() },
  },
});
const columns = (values.only?.split(',') ?? COLUMNS) as Column[];
const ids: string[] = values.profile ? [values.contenders?.split(',')[0] ?? 'edgetable'] : (values.contenders?.split(',') ?? Object.keys(CONTENDERS));
const rounds = values.profile ? 1 : Number(values.rounds);
const sliceMs = Number(values['slice-ms']);
const rps = Math.max(1, Math.round(Number(values.items) / SENSORS));

const keys = randomKeys(1, 200_000, rps);
const sensors = randomSensors(2, 20_000);
const windows = randomWindows(3, 3000, rps);

/** One operation of `column` number i; returns the items it handled (rates are per op, scan per item). */
function op(c: Contender, column: Column, i: number): number {
  switch (column) {
    case 'get':
      return c.getItem(keys[i % keys.length]!);
    case 'latest':
      return c.queryLatest(sensors[i % sensors.length]!, LATEST_COUNT);
    case 'window':
      return c.queryWindow(windows[i % windows.length]!);
    case 'scan':
      return c.scanAll(SCAN_PAGE_ITEMS, Infinity);
  }
}

/**
 * Ops (items for scan) per second of this process's CPU time (user + system) over one slice of
 * about `ms` wall-clock: the work is single-threaded and reads come from the page cache, so CPU
 * time is its duration, without the time other processes took the core away.
 */
function slice(c: Contender, column: Column, ms = sliceMs): number {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let n = 0;
  let i = 0;
  let now = start;
  do {
    const items = op(c, column, i++);
    n += column === 'scan' ? items : 1;
    if ((i & 15) === 0 || column === 'scan') now = performance.now();
  } while (now - start < ms);
  const used = process.cpuUsage(cpu);
  return (n * 1e6) / (used.user + used.system);
}

const factories: Record<string, () => Contender> = { ...CONTENDERS };
if (values.before) {
  const module = (await import(join(values.before, 'bench', 'contenders', 'edgetable.ts'))) as { createContender: () => Contender };
  factories.before = module.createContender;
  ids.push('before');
}
const dirs: string[] = [];
const open = ids.map((id) => {
  const c = factories[id]!();
  const dir = mkdtempSync(join(values.dir, `edgetable-rounds-${id}-`));
  dirs.push(dir);
  c.open(dir);
  let batch: unknown[] = [];
  for (const r of loadOrder(rps)) {
    batch.push(c.prepare(r));
    if (batch.length === BATCH_SIZE) (c.putBatch(batch), (batch = []));
  }
  if (batch.length > 0) c.putBatch(batch);
  process.stderr.write(`loaded ${id}\n`);
  return { id, c };
});

try {
  if (values.profile) {
    const column = columns[0]!;
    const { c } = open[0]!;
    for (const other of columns) slice(c, other, 300); // warm-up, every column given: the state the rounds run in
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const rate = slice(c, column);
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(values.profile, JSON.stringify(profile));
    console.log(`${column}: ${Math.round(rate)} /s while profiled -> ${values.profile}`);
  } else {
    const rates = new Map<string, number[]>();
    for (const column of columns) for (const { c } of open) slice(c, column, 300); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const column of columns) {
        for (const { id, c } of open) {
          const k = `${column}/${id}`;
          (rates.get(k) ?? rates.set(k, []).get(k)!).push(slice(c, column));
        }
      }
      process.stderr.write(`round ${r + 1}/${rounds}\n`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    for (const column of columns) {
      const et = rates.get(`${column}/edgetable`);
      const parts = open.map(({ id }) => {
        const xs = rates.get(`${column}/${id}`)!;
        return `${id} best ${Math.round(Math.max(...xs))} med ${Math.round(median(xs))}`;
      });
      const ratios = et
        ? open
            .filter(({ id }) => id !== 'edgetable')
            .map(({ id }) => {
              const xs = rates.get(`${column}/${id}`)!;
              const perRound = et.map((v, i) => v / xs[i]!);
              return `${id === 'before' ? 'after/before' : `vs ${id}`} ${(Math.max(...et) / Math.max(...xs)).toFixed(2)}x best, ${median(perRound).toFixed(2)}x med`;
            })
        : [];
      console.log(`${column}: ${parts.join('; ')} | ${ratios.join('; ')}`);
    }
  }
} finally {
  for (const { c } of open) c.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
