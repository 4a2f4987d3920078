/**
 * A/B micro-benchmark of the embedded API's reads (and PutItem): the engine before a change (A)
 * and after (B), each in its own child process, run alternately (A, B, B, A, ...) so machine
 * noise (a shared 2-core box) falls on both alike. Two engine copies in one process measured
 * unequal even when identical (an A/A run gave ratios of 1.3-2), hence the processes. Reports
 * each case's median ns/op per side over the runs and the ratio B/A of the medians.
 *
 *   git archive <base-commit> src | tar -x -C /tmp/ab-base     # A: the engine before a change
 *   ln -s "$PWD/node_modules" /tmp/ab-base/node_modules
 *   npx tsx bench/ab-reads.ts /tmp/ab-base/src src [runs] [wall|cpu]   # B: the working tree's
 *
 * Both sides are bundled into compiled JavaScript first (build below).
 * `cpu` times each round by the process's CPU time instead of the wall clock: on a machine whose
 * load exceeds its cores, wall time mostly measures waiting for a core.
 * Cases: GetItem plain (the fast path, ops/request/plain-get.ts; by execute and by the db.getItem method), GetItem with a ProjectionExpression (the
 * checked path), Query plain (ops/request/plain-query.ts, 20 items), Query with a FilterExpression (the
 * checked path), and PutItem (relaxed durability).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledAs } from './compile.js';

type Db = { execute(op: string, request: Record<string, unknown>): unknown; getItem(request: Record<string, unknown>): unknown; close(): void };
type Engine = { open(options: Record<string, unknown>): Db };

const ROUNDS_PER_RUN = 5;
const OPS_PER_ROUND = 20_000;
const TABLE = 'Bench';

/**
 * Each side's engine runs as compiled JavaScript, as users run it (compile.ts): under tsx every
 * imported binding is a getter, which costs a hot path like GetItem's a few per cent.
 */
function build(dir: string, side: 'A' | 'B'): string {
  return compiledAs(path.resolve(dir, 'edgetable.ts'), `ab-reads-${side}.mjs`);
}

async function load(file: string): Promise<Engine> {
  return (await import(pathToFileURL(file).href)) as Engine;
}

function seed(engine: Engine, dir: string): Db {
  const db = engine.open({ path: dir, durability: 'relaxed', throttling: false });
  db.execute('CreateTable', {
    TableName: TABLE,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  for (let p = 0; p < 50; p++) {
    for (let s = 0; s < 20; s++) {
      db.execute('PutItem', { TableName: TABLE, Item: { pk: { S: `p${p}` }, sk: { N: String(s) }, name: { S: `item ${p}/${s}` }, n: { N: String(s * 7) }, tags: { SS: ['a', 'b'] } } });
    }
  }
  return db;
}

const CASES: Record<string, (db: Db, i: number) => unknown> = {
  'GetItem plain': (db, i) => db.execute('GetItem', { TableName: TABLE, Key: { pk: { S: `p${i % 50}` }, sk: { N: String(i % 20) } } }),
  'db.getItem plain': (db, i) => db.getItem({ TableName: TABLE, Key: { pk: { S: `p${i % 50}` }, sk: { N: String(i % 20) } } }),
  'GetItem projected': (db, i) => db.execute('GetItem', { TableName: TABLE, Key: { pk: { S: `p${i % 50}` }, sk: { N: String(i % 20) } }, ProjectionExpression: '#n, sk', ExpressionAttributeNames: { '#n': 'name' } }),
  'Query plain (20 items)': (db, i) => db.execute('Query', { TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: `p${i % 50}` } } }),
  'Query filtered': (db, i) => db.execute('Query', { TableName: TABLE, KeyConditionExpression: 'pk = :p AND sk > :s', FilterExpression: 'n > :n', ExpressionAttributeValues: { ':p': { S: `p${i % 50}` }, ':s': { N: '3' }, ':n': { N: '20' } } }),
  PutItem: (db, i) => db.execute('PutItem', { TableName: TABLE, Item: { pk: { S: `w${i % 100}` }, sk: { N: String(i % 10) }, name: { S: 'x' } } }),
};

type Clock = 'wall' | 'cpu';

/** ns per op of one round; 'cpu' counts the process's CPU time only, so time spent descheduled on a loaded machine does not count. */
function round(db: Db, run: (db: Db, i: number) => unknown, ops: number, clock: Clock): number {
  if (clock === 'cpu') {
    const start = process.cpuUsage();
    for (let i = 0; i < ops; i++) run(db, i);
    const used = process.cpuUsage(start);
    return ((used.user + used.system) * 1000) / ops;
  }
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) run(db, i);
  return Number(process.hrtime.bigint() - start) / ops;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One side, in this process: median ns/op of each case over ROUNDS_PER_RUN rounds, as JSON. */
async function child(engine: string, clock: Clock): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'ab-reads-'));
  const db = seed(await load(engine), path.join(root, 'db'));
  const out: Record<string, number> = {};
  try {
    for (const [name, run] of Object.entries(CASES)) {
      // A write commits each time: fewer of them.
      const ops = name === 'PutItem' ? OPS_PER_ROUND / 40 : OPS_PER_ROUND;
      round(db, run, ops, clock); // warm-up
      out[name] = median(Array.from({ length: ROUNDS_PER_RUN }, () => round(db, run, ops, clock)));
    }
  } finally {
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
  console.log(JSON.stringify(out));
}

function main(baseDir: string, headDir: string, runs: number, clock: Clock): void {
  const self = fileURLToPath(import.meta.url);
  const results: Record<'A' | 'B', Record<string, number>[]> = { A: [], B: [] };
  const engines = { A: build(baseDir, 'A'), B: build(headDir, 'B') };
  for (let r = 0; r < runs; r++) {
    // A B B A A B ...: neither side always runs first.
    const order: ('A' | 'B')[] = r % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    for (const side of order) {
      const text = execFileSync(process.execPath, [...process.execArgv, self, '--child', engines[side], clock], { encoding: 'utf8' });
      results[side].push(JSON.parse(text.trim().split('\n').pop()!) as Record<string, number>);
    }
  }
  console.log(`A = ${baseDir}, B = ${headDir}; ${runs} alternating runs per side, each the median of ${ROUNDS_PER_RUN} rounds of ${OPS_PER_ROUND} ops; ${clock} time`);
  for (const name of Object.keys(CASES)) {
    const [ma, mb] = [median(results.A.map((x) => x[name]!)), median(results.B.map((x) => x[name]!))];
    const ratios = results.A.map((x, i) => results.B[i]![name]! / x[name]!);
    console.log(`${name.padEnd(24)} A ${ma.toFixed(0).padStart(7)} ns  B ${mb.toFixed(0).padStart(7)} ns  B/A ${(mb / ma).toFixed(3)}  (per-run ratios ${ratios.map((x) => x.toFixed(2)).join(' ')})`);
  }
}

const args = process.argv.slice(2);
const clockOf = (arg: string | undefined): Clock => (arg === 'cpu' ? 'cpu' : 'wall');
if (args[0] === '--child') await child(args[1]!, clockOf(args[2]));
else main(args[0] ?? '/tmp/ab-base/src', args[1] ?? 'src', Number(args[2] ?? '6'), clockOf(args[3]));
