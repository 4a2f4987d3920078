/**
 * The measuring process of the slowsync suite (bench/suites/slowsync.ts), started with
 * libslowsync.so preloaded so every flush takes SLOWSYNC_MS. argv[2]: JSON { path, budgetMs,
 * writers }. Prints one JSON line with the phases' figures on stdout; slowsync's own flush count
 * goes to stderr at exit (SLOWSYNC_REPORT=1).
 *
 * Phases, each on a fresh table of the same store (durability 'sync', or args.durability):
 * - sequential: db.putItem in a loop, one at a time (each returns durable);
 * - sequential-promises: one writer awaiting db.promises.putItem;
 * - concurrent: `writers` writers each awaiting db.promises.putItem in a loop;
 * - sync-per-turn: db.putItem once per setImmediate turn (what a server without group commit
 *   does), to compare the event loop's delay.
 * - idle: no writes, the timer's baseline on this machine.
 * During each asynchronous phase a 1 ms interval timer records its lateness (worst and p99).
 */
import { open, type Edgetable } from '../src/edgetable.js';
import { withTimer } from './timer-lateness.js';

type Args = { path: string; budgetMs: number; writers: number; durability?: 'sync' | 'log' };
export type PhaseFigures = { writes: number; seconds: number; writesPerSecond: number; flushes: number; flushesPerWrite: number; worstTimerDelayMs: number | null; p99TimerDelayMs: number | null; commits: number; blockMedianMs: number | null; blockMaxMs: number | null };

const args = JSON.parse(process.argv[2]!) as Args;
const db = open({ path: args.path, durability: args.durability ?? 'sync', ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
let tableNo = 0;

/**
 * How long the event loop is held by write work: each synchronous putItem, or each group the
 * commit queue runs on this thread: the recorded write txn of store.writeAsync (Store's private
 * runWrite called with a recording; its commit and flushes run on a worker). Tables are created
 * with the synchronous API outside the measured phases. Unlike the timer's delay, this excludes
 * time the process waited for the CPU between turns.
 */
let blocks: number[] = [];
const timeBlock = <T>(fn: () => T): T => {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    blocks.push(performance.now() - t0);
  }
};
type RunWrite = (fn: unknown, group: boolean, recording: unknown, ...rest: unknown[]) => unknown;
const internals = db.store as unknown as { runWrite: RunWrite };
const runWrite = internals.runWrite.bind(db.store);
// A recording run, and in durability 'log' also the apply of a logged write (its 4th argument false), is a group's time on this thread.
internals.runWrite = (fn, group, recording, ...rest) => (recording === null && rest[0] !== false ? runWrite(fn, group, recording, ...rest) : timeBlock(() => runWrite(fn, group, recording, ...rest)));

function freshTable(): string {
  const name = `Readings${++tableNo}`;
  db.createTable({ TableName: name, KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }], AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }], BillingMode: 'PAY_PER_REQUEST' });
  return name;
}

const reading = (table: string, writer: number, i: number) => ({ TableName: table, Item: { sensorId: { S: `s-${writer}` }, ts: { N: String(1_700_000_000_000 + i) }, temperature: { N: '21.5' }, humidity: { N: '40.1' } } });


async function phase(run: (table: string, until: number) => Promise<number> | number, timed: boolean): Promise<PhaseFigures> {
  const table = freshTable();
  const flushes = db.store.flushCount;
  const commits = db.store.stats().commits;
  blocks = [];
  const started = performance.now();
  const until = started + args.budgetMs;
  let writes: number;
  let worst: number | null = null;
  let p99: number | null = null;
  if (timed) {
    const r = await withTimer(async () => run(table, until));
    writes = r.result;
    worst = r.worstMs;
    p99 = r.p99Ms;
  } else {
    writes = await run(table, until);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = db.store.flushCount - flushes;
  blocks.sort((a, b) => a - b);
  const blockMedianMs = blocks.length > 0 ? blocks[Math.floor(blocks.length / 2)]! : null;
  const blockMaxMs = blocks.length > 0 ? blocks[blocks.length - 1]! : null;
  return { writes, seconds, writesPerSecond: writes / seconds, flushes: used, flushesPerWrite: used / writes, worstTimerDelayMs: worst, p99TimerDelayMs: p99, commits: db.store.stats().commits - commits, blockMedianMs, blockMaxMs };
}

function sequential(table: string, until: number): number {
  let i = 0;
  while (performance.now() < until) timeBlock(() => db.putItem(reading(table, 0, i++)));
  return i;
}

async function sequentialPromises(table: string, until: number): Promise<number> {
  let i = 0;
  while (performance.now() < until) await db.promises.putItem(reading(table, 0, i++));
  return i;
}

async function concurrent(table: string, until: number): Promise<number> {
  let total = 0;
  await Promise.all(
    Array.from({ length: args.writers }, async (_, w) => {
      let i = 0;
      while (performance.now() < until) {
        await db.promises.putItem(reading(table, w, i++));
        total += 1;
      }
    }),
  );
  return total;
}

async function syncPerTurn(table: string, until: number): Promise<number> {
  let i = 0;
  while (performance.now() < until) {
    timeBlock(() => db.putItem(reading(table, 0, i++)));
    await new Promise((r) => setImmediate(r));
  }
  return i;
}

/** No writes: the timer's delay from the machine alone (other processes, GC), the baseline. */
async function idle(_table: string, until: number): Promise<number> {
  while (performance.now() < until) await new Promise((r) => setTimeout(r, 50));
  return 0;
}

async function main(edgetable: Edgetable): Promise<void> {
  const result = {
    idle: await phase(idle, true),
    sequential: await phase(sequential, false),
    sequentialPromises: await phase(sequentialPromises, true),
    concurrent: await phase(concurrent, true),
    syncPerTurn: await phase(syncPerTurn, true),
    asyncCommits: db.store.asyncCommitStats,
  };
  edgetable.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main(db);
