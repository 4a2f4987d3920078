/**
 * `npx tsx bench/get-probe.ts [--runs 3] [--passes 5] [--contenders edgetable,raw-lmdb]
 *  [--before <tree>] [--node-flags=<flags>]`: the contenders suite's GetItem as its child
 * processes run it (one contender per process, compiled JavaScript, the same load, warm-up and
 * 200,000 random keys), several passes per process. Each pass prints ops per wall-clock second and
 * per CPU second of the process (all its threads), then V8's garbage collection: its cost as a
 * share of the pass (GCProfiler), the scavenges, and the young bytes allocated per op (new space
 * in use when each scavenge began), and each process its new space's size at the end. The
 * contenders' processes run one after another, `runs` times interleaved, so load from other
 * processes falls on each alike. Measures, never fails on a time.
 *
 * Why: the suite times wall-clock with each contender in its own process, bench/read-rounds.ts CPU
 * time with all of them in one; the GC settings differ between the two (edgetable's open holds
 * the young generation at its size then, process-wide: young-generation.ts), and this shows it.
 * `--node-flags=--max-semi-space-size=16` gives every child the same young generation. With
 * `--before <dir>` (another checkout, with its own node_modules directory and a copy of this file)
 * that tree's edgetable runs too, as `before`, bundled there.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import type { Contender } from './contender.js';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { BATCH_SIZE, FULL, loadOrder, randomKeys, SENSORS } from './workload.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    passes: { type: 'string', default: '5' },
    contenders: { type: 'string', default: 'edgetable,raw-lmdb' },
    items: { type: 'string', default: String(FULL.readingsPerSensor * SENSORS) },
    before: { type: 'string' },
    /** Extra node flags for the children, e.g. '--max-semi-space-size=16'. */
    'node-flags': { type: 'string', default: '' },
  },
});

if (positionals[0] === 'child') await child(positionals[1]!);
else await parent();

async function parent(): Promise<void> {
  const { compiled } = await import('./compile.js');
  const entry = compiled('get-probe.ts');
  const runs: { id: string; file: string }[] = values.contenders.split(',').map((id) => ({ id, file: entry }));
  if (values.before) {
    // The before tree's own copy of this probe (copy it there), bundled there: its edgetable as it was.
    const before = (await import(join(values.before, 'bench', 'compile.ts'))) as { compiled: (entry: string) => string };
    runs.push({ id: 'before', file: before.compiled('get-probe.ts') });
  }
  for (let r = 0; r < Number(values.runs); r++) {
    for (const { id, file } of runs) {
      const out = execFileSync('node', [...values['node-flags'].split(' ').filter(Boolean), file, 'child', id === 'before' ? 'edgetable' : id, '--passes', values.passes, '--items', values.items], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 180_000,
      });
      process.stdout.write(`run ${r + 1} ${id}: ${out.trim()}\n`);
    }
  }
}

async function child(id: string): Promise<void> {
  const c: Contender = CONTENDERS[id as ContenderId]();
  const dir = mkdtempSync(join(tmpdir(), `edgetable-get-probe-${id}-`));
  try {
    c.open(dir);
    const rps = Math.max(1, Math.round(Number(values.items) / SENSORS));
    let batch: unknown[] = [];
    for (const r of loadOrder(rps)) {
      batch.push(c.prepare(r));
      if (batch.length === BATCH_SIZE) (c.putBatch(batch), (batch = []));
    }
    if (batch.length > 0) c.putBatch(batch);
    const keys = randomKeys(1, FULL.getItem, rps);
    for (let i = 0; i < 20_000; i++) c.getItem(keys[keys.length - 1 - i]!);
    const parts: string[] = [];
    for (let p = 0; p < Number(values.passes); p++) {
      const gc = new GCProfiler();
      gc.start();
      const cpu = process.cpuUsage();
      const start = performance.now();
      let found = 0;
      for (let i = 0; i < keys.length; i++) found += c.getItem(keys[i]!);
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      const { statistics } = gc.stop()!;
      if (found !== keys.length) throw new Error(`${id}: found ${found} of ${keys.length}`);
      const wall = (keys.length * 1000) / ms;
      const perCpu = (keys.length * 1e6) / (used.user + used.system);
      // V8's own cost of each collection (main thread), and the young bytes each scavenge found
      // (new space in use when it started: about what was allocated since the one before).
      let gcUs = 0;
      let youngBytes = 0;
      let scavenges = 0;
      for (const e of statistics) {
        gcUs += e.cost;
        if (e.gcType !== 'Scavenge') continue;
        scavenges++;
        youngBytes += e.beforeGC.heapSpaceStatistics.find((x) => x.spaceName === 'new_space')?.spaceUsedSize ?? 0;
      }
      parts.push(
        `${Math.round(wall / 1000)}k/${Math.round(perCpu / 1000)}k gc ${((100 * gcUs) / 1000 / ms).toFixed(0)}% ${scavenges}x ${Math.round(youngBytes / keys.length)}B/op`,
      );
    }
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(`wall/cpu ops/s per pass: ${parts.join('  ')}  (new space ${((young?.space_size ?? 0) / 2 ** 20).toFixed(1)} MiB; ${threadTimes()})\n`);
  } finally {
    c.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU seconds of this process's threads by name (the main thread as 'main'), busiest first (Linux; empty elsewhere). */
function threadTimes(): string {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return '';
  }
  const tick = 100; // USER_HZ on Linux
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim();
      const name = task === String(process.pid) ? 'main' : comm;
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / tick);
    } catch {
      // the thread ended meanwhile
    }
  }
  return [...byName].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ');
}
