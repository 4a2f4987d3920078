/**
 * Single puts in every durability, against better-sqlite3 (WAL) with synchronous=NORMAL and FULL,
 * in one run (docs/decisions/021-interval-durability.md): one reading per call through the
 * synchronous API, the bench's sensor reading shape (bench/workload.ts), new keys round-robin over
 * the 1,000 sensors, on a table loaded with `preload` readings. Each round runs every contender in
 * turn (the order rotated from round to round) for `puts` puts or `budgetMs`, whichever first;
 * prints one JSON line per contender and round, then the medians and the ratios to SQLite's.
 * A measurement: it never fails on a figure. Under `LD_PRELOAD` of the slowsync library
 * (/work/shared/tools/slowsync, SLOWSYNC_MS=8) every flush costs what an SD card's does.
 *
 *   tsx bench/put-durabilities.ts [puts=20000] [rounds=3] [preload=20000] [budgetMs=8000] [contenders=all]
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contender } from './contender.js';
import { createContender as edgetable } from './contenders/edgetable.js';
import { HELD_WRITES_PER_COMMIT } from './contenders/index.js';
import { createContender as sqlite } from './contenders/sqlite.js';
import { deviceBytesWritten } from './proc.js';
import { BATCH_SIZE, loadOrder, newReadings, SENSORS } from './workload.js';

const [puts = 20_000, rounds = 3, preload = 20_000, budgetMs = 8000] = process.argv.slice(2, 6).map(Number);
const only = process.argv[6]?.split(',');

const ALL: Record<string, () => Contender> = {
  'edgetable-sync': () => edgetable('sync') as Contender,
  'edgetable-relaxed': () => edgetable('relaxed') as Contender,
  'edgetable-log': () => edgetable('log') as Contender,
  'edgetable-log-held': () => edgetable('log', HELD_WRITES_PER_COMMIT) as Contender,
  'edgetable-interval': () => edgetable('interval') as Contender,
  'edgetable-interval-held': () => edgetable('interval', HELD_WRITES_PER_COMMIT) as Contender,
  'sqlite-full': () => sqlite('FULL') as Contender,
  'sqlite-normal': () => sqlite('NORMAL') as Contender,
};
const ids = Object.keys(ALL).filter((id) => only === undefined || only.includes(id));

type Round = { contender: string; round: number; puts: number; perSecond: number; bytesPerPut: number };

const root = mkdtempSync(join(tmpdir(), 'put-durabilities-'));
const opened = new Map<string, { c: Contender; dir: string }>();
try {
  for (const id of ids) {
    const dir = join(root, id);
    mkdirSync(dir);
    const c = ALL[id]!();
    c.open(dir);
    const loaded = [...loadOrder(Math.ceil(preload / SENSORS))].slice(0, preload).map((r) => c.prepare(r));
    for (let i = 0; i < loaded.length; i += BATCH_SIZE) c.putBatch(loaded.slice(i, i + BATCH_SIZE));
    opened.set(id, { c, dir });
  }
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = ids.map((_, i) => ids[(i + round) % ids.length]!);
    for (const id of order) {
      const { c } = opened.get(id)!;
      const inputs = newReadings(1_000_000 + round * 1000, puts).map((r) => c.prepare(r));
      const warm = newReadings(2_000_000 + round * 1000, 100).map((r) => c.prepare(r));
      for (const w of warm) c.putItem(w);
      await settle();
      const bytes0 = deviceBytesWritten() ?? NaN;
      const start = performance.now();
      let n = 0;
      for (; n < inputs.length; n++) {
        c.putItem(inputs[n]!);
        if ((n & 31) === 31 && performance.now() - start > budgetMs) {
          n++;
          break;
        }
      }
      const ms = performance.now() - start;
      await settle(); // the deferred flushes of what was timed land before the bytes are read
      const r: Round = { contender: id, round, puts: n, perSecond: Math.round((n * 1000) / ms), bytesPerPut: Math.round(((deviceBytesWritten() ?? NaN) - bytes0) / n) };
      results.push(r);
      console.log(JSON.stringify(r));
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)]!;
  };
  const of = (id: string): number => median(results.filter((r) => r.contender === id).map((r) => r.perSecond));
  const summary = ids.map((id) => ({
    contender: id,
    medianPerSecond: of(id),
    range: `${Math.min(...results.filter((r) => r.contender === id).map((r) => r.perSecond))}-${Math.max(...results.filter((r) => r.contender === id).map((r) => r.perSecond))}`,
    bytesPerPut: median(results.filter((r) => r.contender === id).map((r) => r.bytesPerPut)),
    vsSqliteNormal: ids.includes('sqlite-normal') ? Number((of(id) / of('sqlite-normal')).toFixed(2)) : undefined,
    vsSqliteFull: ids.includes('sqlite-full') ? Number((of(id) / of('sqlite-full')).toFixed(2)) : undefined,
    storeMiB: Number((folderBytes(opened.get(id)!.dir) / 2 ** 20).toFixed(1)),
  }));
  console.table(summary);
  console.log(JSON.stringify({ puts, rounds, preload, budgetMs, slowsyncMs: process.env.LD_PRELOAD?.includes('slowsync') ? Number(process.env.SLOWSYNC_MS ?? 5) : 0, summary }));
} finally {
  for (const { c } of opened.values()) c.close();
  rmSync(root, { recursive: true, force: true });
}

/** Lets flushes on the thread pool and timers of the last contender finish before the next one is timed. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1200));
}

function folderBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}
