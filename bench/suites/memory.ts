/**
 * Suite `memory`: anonymous RSS (RssAnon: JS heap and native allocations; not the mapped store
 * nor the node binary) of compiled edgetable, as a device runs it. Target (issue 16): at most
 * 64 MiB during a 1 M-item ingest and during `serve` under load.
 *
 * - Embedded ingest (bench/memory.ts, compiled, in its own process): the contenders' readings
 *   through batchWriteItem x25, durable, RssAnon sampled after every batch; with Node's default
 *   heap as a user opens a store (open() holds the young generation at its size,
 *   src/young-generation.ts, and its old generation's growth, src/old-generation.ts), the same
 *   with `limitYoungGeneration: false` and with `limitOldGenerationGrowth: false` (V8's own growth), and
 *   with the flags bin/edgetable.js gives long-running commands (src/cli/heap-flags.ts), and with
 *   durability 'log' holding the contenders suite's writes per LMDB txn; and once followed by every
 *   read workload of the contenders suite on the same store (issue 48's target: a process that
 *   ingests 1 M readings and then reads). Stops at its item count or its time budget, whichever
 *   comes first.
 * - `serve` under load: `node bin/edgetable.js serve` as a user starts it (the wrapper restarts
 *   it with the heap flags; its own RSS is reported too), `clients` concurrent keep-alive HTTP
 *   clients each looping PutItem of a new reading then a latest-10 Query, RssAnon of the serving
 *   process sampled every 100 ms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IngestFigures, ReadFigures } from '../memory.js';
import { compiled } from '../compile.js';
import { anonRssBytes, childPids } from '../proc.js';
import { fixed, int, median, mib, sleep, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { open } from '../../src/edgetable.js';
import { DEFAULT_HEAP_FLAGS } from '../../src/cli/heap-flags.js';
import { benchDir } from './readings-table.js';
import { HELD_WRITES_PER_COMMIT } from '../contenders/index.js';
import { dynamoCaller } from '../dynamo-call.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PLAN = {
  full: { items: 1_000_000, ingestBudgetMs: 90_000, reads: 2_000, clients: 16, loadSeconds: 15 },
  quick: { items: 100_000, ingestBudgetMs: 20_000, reads: 300, clients: 8, loadSeconds: 4 },
  tiny: { items: 5_000, ingestBudgetMs: 5_000, reads: 20, clients: 4, loadSeconds: 1 },
};
export const TARGET_ANON_BYTES = 64 * 2 ** 20;

type Ingest = IngestFigures & { flags: string; budgetMs?: number };
type Serve = { idleAnonBytes: number; peakAnonBytes: number; medianAnonBytes: number; wrapperAnonBytes: number | null; requests: number; seconds: number; clients: number; flags: string };
export type MemoryData = { ingest: Ingest[]; serve: Serve[]; plan: (typeof PLAN)['full'] };

export async function runMemorySuite({ quick, size, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const plan = PLAN[size ?? (quick ? 'quick' : 'full')];
  const dir = benchDir('memory');
  try {
    const entry = compiled('memory.ts');
    const ingest: Ingest[] = [];
    const runs = [
      { flags: [], limitYoungGeneration: true, label: "Node's defaults" },
      // Issue 48's target: the process that ingests and then serves every read workload; its
      // figure is worth having at the full size, so it gets a longer budget on a slow machine.
      { flags: [], limitYoungGeneration: true, reads: plan.reads, budgetMs: plan.ingestBudgetMs * 4, label: "Node's defaults, then every read workload" },
      { flags: [], limitYoungGeneration: false, label: "Node's defaults, open() with limitYoungGeneration: false" },
      { flags: [], limitYoungGeneration: true, limitOldGenerationGrowth: false, label: "Node's defaults, open() with limitOldGenerationGrowth: false" },
      { flags: [...DEFAULT_HEAP_FLAGS], limitYoungGeneration: true, label: DEFAULT_HEAP_FLAGS.join(' ') },
      // Held writes keep their txn's dirtied pages and their log records in memory.
      { flags: [], limitYoungGeneration: true, durability: 'log' as const, logWritesPerCommit: HELD_WRITES_PER_COMMIT, label: `Node's defaults, durability 'log' with logWritesPerCommit ${HELD_WRITES_PER_COMMIT}` },
    ];
    for (const { flags, label, ...options } of runs) {
      const figures = await runIngest(entry, flags, { path: join(dir.path, `ingest${ingest.length}`), items: plan.items, budgetMs: plan.ingestBudgetMs, ...options });
      ingest.push({ ...figures, flags: label, budgetMs: options.budgetMs ?? plan.ingestBudgetMs });
      log(`ingest (${ingest.at(-1)!.flags}): ${int(figures.items)} items, anonymous RSS peak ${mib(figures.peakAnonBytes)}${figures.reads ? ` (reads: ${int(figures.reads.items)} items, peak ${mib(figures.reads.peakAnonBytes)})` : ''}`);
    }
    const serve: Serve[] = [];
    // Node's defaults (EDGETABLE_NODE_OPTIONS empty: one process), then as the CLI starts it.
    for (const heapFlags of ['', undefined]) {
      const s = await serveUnderLoad(join(dir.path, `serve${serve.length}`), plan.clients, plan.loadSeconds * 1000, heapFlags);
      serve.push(s);
      log(`serve under load (${s.flags}): anonymous RSS peak ${mib(s.peakAnonBytes)}, ${int(s.requests / s.seconds)} requests/s`);
    }
    const data: MemoryData = { ingest, serve, plan };
    return { suite: 'memory', date: new Date().toISOString(), mode: size ?? (quick ? 'quick' : 'full'), seconds: (performance.now() - started) / 1000, markdown: render(data), data };
  } finally {
    dir.remove();
  }
}

function runIngest(
  entry: string,
  flags: string[],
  args: { path: string; items: number; budgetMs: number; limitYoungGeneration: boolean; limitOldGenerationGrowth?: boolean; durability?: 'sync' | 'log'; logWritesPerCommit?: number; reads?: number },
): Promise<IngestFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, entry, JSON.stringify(args)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(stdout.trim().split('\n').pop()!) as IngestFigures) : reject(new Error(`ingest exited with ${code}: ${stderr.slice(0, 1000)}`))));
  });
}

/** `heapFlags`: EDGETABLE_NODE_OPTIONS for the run ('' = Node's defaults), undefined = unset, as a user starts it. */
async function serveUnderLoad(path: string, clients: number, ms: number, heapFlags: string | undefined): Promise<Serve> {
  const db = open({ path, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
  db.createTable({
    TableName: 'Readings',
    KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  db.close();
  // As a user starts it: no NODE_OPTIONS or EDGETABLE_NODE_OPTIONS of the bench's own.
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  delete env['EDGETABLE_NODE_OPTIONS'];
  if (heapFlags !== undefined) env['EDGETABLE_NODE_OPTIONS'] = heapFlags;
  const wrapper = spawn(process.execPath, [join(root, 'bin', 'edgetable.js'), 'serve', '--path', path, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => wrapper.once('exit', () => resolve()));
  try {
    const port = await listening(wrapper);
    const serving = childPids(wrapper.pid!)[0] ?? wrapper.pid!;
    const flags = serving === wrapper.pid ? "Node's defaults" : DEFAULT_HEAP_FLAGS.join(' ');
    await sleep(1000);
    const idleAnonBytes = anonRssBytes(serving) ?? NaN;
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(anonRssBytes(serving) ?? NaN), 100);
    const t0 = performance.now();
    const requests = await load(port, clients, ms);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    samples.push(anonRssBytes(serving) ?? NaN);
    return {
      idleAnonBytes,
      peakAnonBytes: Math.max(...samples),
      medianAnonBytes: median(samples),
      wrapperAnonBytes: serving === wrapper.pid ? null : (anonRssBytes(wrapper.pid!) ?? null),
      requests,
      seconds,
      clients,
      flags,
    };
  } finally {
    wrapper.kill('SIGTERM');
    await exited;
  }
}

function listening(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /serving .* on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before it was ready: ${out}`)));
  });
}

/** `clients` loops of PutItem (a new reading) then Query (latest 10 of that sensor) until `ms` has passed. */
async function load(port: number, clients: number, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  const call = dynamoCaller(port);
  let requests = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const sensorId = { S: `sensor-${c}` };
      for (let i = 0; performance.now() < deadline; i++) {
        const item = { sensorId, ts: { N: String(1_700_000_000_000 + i) }, temperature: { N: '21.5' }, humidity: { N: '40.1' }, status: { S: 'ok' }, location: { S: `site-${c}/room-${i % 40}` } };
        await call('PutItem', { TableName: 'Readings', Item: item });
        await call('Query', { TableName: 'Readings', KeyConditionExpression: 'sensorId = :s', ExpressionAttributeValues: { ':s': sensorId }, ScanIndexForward: false, Limit: 10 });
        requests += 2;
      }
    }),
  );
  return requests;
}

function readsLabel(reads: ReadFigures): string {
  return Object.entries(reads.requests)
    .map(([name, n]) => `${int(n)} ${name}`)
    .join(', ');
}

function render(d: MemoryData): string {
  const verdict = (bytes: number) => (bytes <= TARGET_ANON_BYTES ? 'yes' : 'no');
  return [
    '### Memory: anonymous RSS of compiled edgetable (`--suite memory`)',
    '',
    'Anonymous RSS (RssAnon: JS heap and native allocations; not the mapped store file nor the node binary), compiled JavaScript, no TypeScript loader. Target: at most 64 MiB.',
    '',
    ...table(
      ['run', 'node flags', 'items / requests', 'start / idle', 'peak', 'end / median', 'heap used / held (new space) at the end', 'within 64 MiB'],
      [
        ...d.ingest.map((r) => [
          `embedded ingest, batchWriteItem x25, durable${r.items < d.plan.items ? ` (stopped at its ${(r.budgetMs ?? d.plan.ingestBudgetMs) / 1000} s budget)` : ''}${r.reads ? `, then ${readsLabel(r.reads)}` : ''}`,
          r.flags,
          `${int(r.items)} items (${int(r.items / r.seconds)}/s, ${fixed(r.cpuMicrosPerItem, 1)} µs CPU each)${r.reads ? `; ${int(r.reads.items)} items read in ${fixed(r.reads.seconds, 1)} s` : ''}`,
          mib(r.startAnonBytes),
          mib(r.peakAnonBytes),
          mib(r.endAnonBytes),
          `${mib(r.heapUsedBytes)} / ${mib(r.heapTotalBytes)}${r.newSpaceBytes === undefined ? '' : ` (${mib(r.newSpaceBytes)})`}`,
          verdict(r.peakAnonBytes),
        ]),
        ...d.serve.map((s) => [
          `\`edgetable serve\`, ${s.clients} HTTP clients, PutItem + latest-10 Query`,
          s.flags,
          `${int(s.requests)} requests (${int(s.requests / s.seconds)}/s)`,
          mib(s.idleAnonBytes),
          mib(s.peakAnonBytes),
          mib(s.medianAnonBytes),
          '-',
          verdict(s.peakAnonBytes),
        ]),
      ],
      'llrrrrrl',
    ),
    '',
    `\`edgetable serve\` runs as bin/edgetable.js starts it: the wrapper restarts the command with ${DEFAULT_HEAP_FLAGS.join(' ')} (src/cli/heap-flags.ts); the wrapper process itself holds ${d.serve.map((s) => (s.wrapperAnonBytes === null ? '' : mib(s.wrapperAnonBytes))).filter(Boolean).join(', ') || 'n/a'} (none with NODE_OPTIONS=${DEFAULT_HEAP_FLAGS.join(' ')}, as the systemd units set; with EDGETABLE_NODE_OPTIONS empty, serve runs in one process with Node's defaults). The ingest's heap used against held shows what the young generation adds (new space: both semi-spaces): the live heap stays small. V8 grows the young generation whenever the bytes surviving scavenges since its last growth pass its capacity, a count any long write load reaches; open() holds it at the size it has then (src/young-generation.ts) unless node was given semi-space flags. ${int(d.plan.items)} items planned per ingest.`,
    '',
  ].join('\n');
}
