/**
 * A/B of single PutItem cost: bench/put-trace.ts of the engine before a change (A) and after (B),
 * each run in its own process, alternately (A B B A A B ...), so machine noise falls on both
 * alike (bench/ab-reads.ts says why processes). Reports per side the median wall and main-thread
 * CPU microseconds per put over the runs, and the ratios B/A of the medians.
 *
 *   git archive <base-commit> src bench package.json tsconfig.json | tar -x -C /tmp/ab-base   # A: the engine before
 *   ln -s "$PWD/node_modules" /tmp/ab-base/node_modules
 *   npx tsx bench/ab-puts.ts /tmp/ab-base . edgetable-interval-held [runs=6] [loaded=20000] [count=10000]
 *
 * Each side runs its own bench/put-trace.ts: copy B's into A's bench/ when they differ. A copy
 * without package.json runs as CommonJS under tsx, measurably slower (an A/A run's tell: ratios
 * far from 1 that all lean one way); run an A/A (B against a copy of itself) to see the noise.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

type Trace = { wallUs: number; mainThreadCpuUs: number; userUs: number; systemUs: number };

const [baseDir = '/tmp/ab-base', headDir = '.', contender = 'edgetable-interval-held', runsText = '6', loaded = '20000', count = '10000'] = process.argv.slice(2);
const runs = Number(runsText);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function trace(root: string): Trace {
  const text = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'put-trace.ts'), contender, 'single', loaded, count], { encoding: 'utf8', cwd: path.resolve(headDir) });
  return JSON.parse(text.trim().split('\n').pop()!) as Trace;
}

const results: Record<'A' | 'B', Trace[]> = { A: [], B: [] };
for (let r = 0; r < runs; r++) {
  const order: ('A' | 'B')[] = r % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  for (const side of order) {
    const t = trace(side === 'A' ? baseDir : headDir);
    results[side].push(t);
    console.log(JSON.stringify({ side, ...t }));
  }
}
console.log(`${contender}: A = ${baseDir}, B = ${headDir}; ${runs} alternating runs per side of ${count} puts on ${loaded} readings`);
for (const field of ['wallUs', 'mainThreadCpuUs', 'userUs', 'systemUs'] as const) {
  const [a, b] = [median(results.A.map((x) => x[field])), median(results.B.map((x) => x[field]))];
  const ratios = results.A.map((x, i) => results.B[i]![field] / x[field]);
  console.log(`${field.padEnd(16)} A ${a.toFixed(1).padStart(7)}  B ${b.toFixed(1).padStart(7)}  B/A ${(b / a).toFixed(3)}  (per-run ${ratios.map((x) => x.toFixed(2)).join(' ')})`);
}
