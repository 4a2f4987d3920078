/**
 * `npx tsx bench/server.ts [--quick]`: the DynamoDB API through the AWS SDK v3, end to end.
 *
 * Contenders, one after another on fresh temp dirs (never two at once, so they do not share the
 * two cores or the disk):
 * - `edgetable serve` spawned as its own process (group commit on, the default),
 * - `edgetable serve --no-group-commit`,
 * - dynalite spawned on disk (`--path`), when the package is installed (a devDependency);
 *   otherwise its column says "dynalite not installed". Its LevelDB writes are not fsync'd, so
 *   its "durable" columns are not durable,
 * - edgetable in this process through the SDK adapter (db.requestHandler(); no socket, no group
 *   commit).
 * Workloads: sequential GetItem, PutItem and Query (one client, one request at a time), and
 * PutItem from 32 concurrent writers (where group commit shares fsyncs). The contenders take turns
 * for `rounds` rounds (default 3; 1 with --quick) and the best round of each counts, since other
 * processes on a shared machine only ever slow a round down. Prints a Markdown table and writes
 * bench/results/server.{json,md} (not with --quick).
 *
 * `runServerBench(options)` is the hook for bench/run.ts; it returns the report and writes nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type AttributeValue,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { open } from '../src/edgetable.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const TABLE = 'BenchReadings';
const DEVICES = 50;
const READINGS_PER_DEVICE = 20;
const CONCURRENT_WRITERS = 32;

/** Counts are upper bounds: each workload also stops once it has run for budgetMs (ops/s counts what completed). */
export type ServerBenchSizes = { gets: number; puts: number; queries: number; concurrentPutsPerWriter: number; budgetMs: number };
export const SERVER_FULL: ServerBenchSizes = { gets: 3000, puts: 400, queries: 2000, concurrentPutsPerWriter: 40, budgetMs: 4000 };
export const SERVER_QUICK: ServerBenchSizes = { gets: 500, puts: 80, queries: 300, concurrentPutsPerWriter: 8, budgetMs: 1000 };

export type WorkloadId = 'get' | 'put' | 'query' | 'put32' | 'put32raw';
const WORKLOADS: readonly { id: WorkloadId; label: string }[] = [
  { id: 'get', label: 'GetItem, sequential (ops/s)' },
  { id: 'put', label: 'PutItem, sequential (ops/s, durable)' },
  { id: 'query', label: `Query ${READINGS_PER_DEVICE} items of a device, sequential (ops/s)` },
  { id: 'put32', label: `PutItem, ${CONCURRENT_WRITERS} concurrent writers (ops/s, durable)` },
  { id: 'put32raw', label: `PutItem, ${CONCURRENT_WRITERS} concurrent writers, raw HTTP client (ops/s, durable)` },
];

export type ContenderId = 'serve' | 'serve-no-group' | 'dynalite' | 'in-process';
const CONTENDERS: readonly { id: ContenderId; label: string }[] = [
  { id: 'serve', label: 'edgetable serve' },
  { id: 'serve-no-group', label: 'serve --no-group-commit' },
  { id: 'dynalite', label: 'dynalite' },
  { id: 'in-process', label: 'in-process adapter' },
];

export type ContenderResult = {
  id: ContenderId;
  label: string;
  skipped?: string;
  /** The best round. */
  opsPerSecond: Partial<Record<WorkloadId, number>>;
  /** Every round's ops/s, in order. */
  rounds: Partial<Record<WorkloadId, number[]>>;
};

export type ServerBenchReport = {
  date: string;
  mode: 'full' | 'quick';
  /** loadAverage: 1-minute load before and after the run; other processes skew every number. */
  machine: { node: string; cpu: string; cores: number; platform: string; tmpdir: string; loadAverage: [number, number] };
  sizes: ServerBenchSizes;
  rounds: number;
  results: ContenderResult[];
  markdown: string;
};

/** A running contender: an SDK client, its HTTP port (none in-process) and how to stop it. */
type Target = { client: DynamoDBClient; port?: number; stop(): Promise<void> };

export async function runServerBench(options: { quick?: boolean; rounds?: number; sizes?: ServerBenchSizes; log?: (line: string) => void } = {}): Promise<ServerBenchReport> {
  const sizes = options.sizes ?? (options.quick ? SERVER_QUICK : SERVER_FULL);
  const rounds = Math.max(1, options.rounds ?? (options.quick ? 1 : 3));
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const results: ContenderResult[] = CONTENDERS.map((c) => ({ id: c.id, label: c.label, opsPerSecond: {}, rounds: {} }));
  const loadBefore = loadavg()[0]!;
  for (let round = 1; round <= rounds; round++) {
    for (const [i, c] of CONTENDERS.entries()) {
      const result = results[i]!;
      if (result.skipped) continue;
      await runContender(c, sizes, result, (line) => log(`round ${round}/${rounds}: ${line}`));
    }
  }
  const report: Omit<ServerBenchReport, 'markdown'> = {
    date: new Date().toISOString(),
    mode: options.quick ? 'quick' : 'full',
    machine: { node: process.version, cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: cpus().length, platform: `${platform()} ${release()}`, tmpdir: tmpdir(), loadAverage: [round2(loadBefore), round2(loadavg()[0]!)] },
    sizes,
    rounds,
    results,
  };
  return { ...report, markdown: renderMarkdown(report) };
}

/** One round of one contender: fresh dir, load, every workload; keeps the best round in result. */
async function runContender(c: { id: ContenderId; label: string }, sizes: ServerBenchSizes, result: ContenderResult, log: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `edgetable-bench-server-${c.id}-`));
  try {
    const target = await startTarget(c.id, dir);
    if (typeof target === 'string') {
      log(`${c.label}: ${target}`);
      result.skipped = target;
      return;
    }
    try {
      log(`${c.label}: loading`);
      await load(target.client);
      for (const w of WORKLOADS) {
        if (w.id === 'put32raw' && target.port === undefined) continue; // no socket in-process
        const ops = await measure(w.id, target, sizes);
        (result.rounds[w.id] ??= []).push(Math.round(ops));
        result.opsPerSecond[w.id] = Math.max(result.opsPerSecond[w.id] ?? 0, Math.round(ops));
        log(`${c.label}: ${w.label}: ${Math.round(ops)}`);
      }
    } finally {
      target.client.destroy();
      await target.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startTarget(id: ContenderId, dir: string): Promise<Target | string> {
  if (id === 'in-process') {
    const db = open({ path: join(dir, 'db') });
    const client = new DynamoDBClient({ ...clientBase(), requestHandler: db.requestHandler() });
    return { client, stop: async () => db.close() };
  }
  const port = await freePort();
  let child: ChildProcess;
  if (id === 'dynalite') {
    const cli = dynaliteCli();
    if (cli === undefined) return 'dynalite not installed';
    child = spawn(process.execPath, [cli, '--port', String(port), '--path', join(dir, 'dynalite'), '--createTableMs', '0'], { stdio: ['ignore', 'ignore', 'inherit'] });
  } else {
    const args = [join(root, 'bin/edgetable.js'), 'serve', '--path', join(dir, 'db'), '--port', String(port), ...(id === 'serve-no-group' ? ['--no-group-commit'] : [])];
    child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitForHealth(port, child);
  } catch (e) {
    await stop();
    throw e;
  }
  const requestHandler = new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: true, maxSockets: CONCURRENT_WRITERS * 2 }) });
  return { client: new DynamoDBClient({ ...clientBase(), endpoint: `http://127.0.0.1:${port}`, requestHandler }), port, stop };
}

function clientBase(): DynamoDBClientConfig {
  return { region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' }, maxAttempts: 1 };
}

function dynaliteCli(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('dynalite/package.json');
    const cli = join(dirname(pkg), 'cli.js');
    return existsSync(cli) ? cli : undefined;
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls GET / until the server answers (bounded: 30 s), or fails if the process exits. */
async function waitForHealth(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} before answering`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/`);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server on port ${port} did not answer within 30 s`);
}

const device = (d: number): AttributeValue => ({ S: `device-${String(d).padStart(4, '0')}` });
function reading(d: number, seq: number): Record<string, AttributeValue> {
  return { device: device(d), ts: { N: String(1_767_225_600_000 + seq * 1000) }, temperature: { N: (20 + (seq % 50) / 10).toFixed(1) }, humidity: { N: String(40 + (seq % 30)) }, status: { S: 'ok' } };
}

async function load(client: DynamoDBClient): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'device', KeyType: 'HASH' },
        { AttributeName: 'ts', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'device', AttributeType: 'S' },
        { AttributeName: 'ts', AttributeType: 'N' },
      ],
    }),
  );
  for (let i = 0; i < 100; i++) {
    const t = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    if (t.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // Loaded by 32 concurrent writers: fast with group commit, and the same data for everyone.
  const all: [number, number][] = [];
  for (let d = 0; d < DEVICES; d++) for (let s = 0; s < READINGS_PER_DEVICE; s++) all.push([d, s]);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENT_WRITERS }, async () => {
      while (next < all.length) {
        const [d, s] = all[next++]!;
        await client.send(new PutItemCommand({ TableName: TABLE, Item: reading(d, s) }));
      }
    }),
  );
}

async function measure(id: WorkloadId, target: Target, sizes: ServerBenchSizes): Promise<number> {
  const { client } = target;
  const run = async (n: number, op: (i: number) => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < Math.min(20, n); i++) await op(i); // warm-up
    const t0 = performance.now();
    const deadline = t0 + sizes.budgetMs;
    let done = 0;
    while (done < n && performance.now() < deadline) await op(done++);
    return done / ((performance.now() - t0) / 1000);
  };
  /** CONCURRENT_WRITERS loops of `perWriter` ops each, until the budget runs out; ops/s of the whole. */
  const concurrently = async (perWriter: number, op: (writer: number, i: number) => Promise<unknown>): Promise<number> => {
    const t0 = performance.now();
    const deadline = t0 + sizes.budgetMs;
    let done = 0;
    await Promise.all(
      Array.from({ length: CONCURRENT_WRITERS }, async (_, w) => {
        for (let i = 0; i < perWriter && performance.now() < deadline; i++) {
          await op(w, i);
          done++;
        }
      }),
    );
    return done / ((performance.now() - t0) / 1000);
  };
  switch (id) {
    case 'get':
      return run(sizes.gets, (i) => client.send(new GetItemCommand({ TableName: TABLE, Key: { device: device(i % DEVICES), ts: reading(0, (i * 7) % READINGS_PER_DEVICE).ts! } })));
    case 'put':
      return run(sizes.puts, (i) => client.send(new PutItemCommand({ TableName: TABLE, Item: reading(DEVICES + (i % 10), 1000 + i) })));
    case 'query':
      return run(sizes.queries, (i) =>
        client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'device = :d', ExpressionAttributeValues: { ':d': device(i % DEVICES) } })),
      );
    case 'put32':
      return concurrently(sizes.concurrentPutsPerWriter, (w, i) => client.send(new PutItemCommand({ TableName: TABLE, Item: reading(DEVICES + 100 + w, 10_000 + i) })));
    case 'put32raw': {
      // Without the SDK's per-request CPU (signing, middleware) in this process: the server's own capacity.
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT_WRITERS });
      try {
        return await concurrently(sizes.concurrentPutsPerWriter * 2, (w, i) => rawPut(target.port!, agent, { TableName: TABLE, Item: reading(DEVICES + 200 + w, 20_000 + i) }));
      } finally {
        agent.destroy();
      }
    }
  }
}

/** One PutItem as a bare JSON 1.0 POST (no signature: neither server verifies one by default). */
function rawPut(port: number, agent: Agent, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'x-amz-date': '20260101T000000Z', authorization: 'AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PutItem answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`))));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function renderMarkdown(report: Omit<ServerBenchReport, 'markdown'>): string {
  const by = new Map(report.results.map((r) => [r.id, r]));
  const fmt = (n: number | undefined): string => (n === undefined ? 'n/a' : Math.round(n).toLocaleString('en-US'));
  const ratio = (a: number | undefined, b: number | undefined): string => (a === undefined || b === undefined || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`);
  const cell = (id: ContenderId, w: WorkloadId): string => {
    const r = by.get(id);
    return r?.skipped ? r.skipped : fmt(r?.opsPerSecond[w]);
  };
  const lines = [
    `## edgetable server benchmark (${report.mode} run, ${report.date})`,
    '',
    `Machine: Node ${report.machine.node}, ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.platform}; data in ${report.machine.tmpdir}; 1-minute load average ${report.machine.loadAverage[0]} before, ${report.machine.loadAverage[1]} after.`,
    `AWS SDK v3 (@aws-sdk/client-dynamodb) with a keep-alive agent; each server is its own process on a fresh temp dir, one contender at a time; best of ${report.rounds} round(s), contenders taking turns; each workload stops at its count or after ${report.sizes.budgetMs / 1000} s, whichever comes first. ${DEVICES} devices x ${READINGS_PER_DEVICE} readings loaded first. Sizes: ${JSON.stringify(report.sizes)}.`,
    '',
    `| workload | ${CONTENDERS.map((c) => c.label).join(' | ')} | group commit gain | serve/dynalite | serve/in-process |`,
    `|---|${CONTENDERS.map(() => '--:').join('|')}|--:|--:|--:|`,
  ];
  for (const w of WORKLOADS) {
    const v = (id: ContenderId): number | undefined => by.get(id)?.opsPerSecond[w.id];
    lines.push(`| ${w.label} | ${CONTENDERS.map((c) => cell(c.id, w.id)).join(' | ')} | ${ratio(v('serve'), v('serve-no-group'))} | ${ratio(v('serve'), v('dynalite'))} | ${ratio(v('serve'), v('in-process'))} |`);
  }
  lines.push('', 'Ratios above 1 mean `edgetable serve` (group commit on) is faster. Durable writes are bound by the fsync latency of the disk under the temp dir; group commit shares one fsync among the writes that arrive together.', '');
  return lines.join('\n');
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const roundsArg = process.argv.indexOf('--rounds');
  const report = await runServerBench({ quick, ...(roundsArg > 0 ? { rounds: Number(process.argv[roundsArg + 1]) } : {}) });
  process.stdout.write(`${report.markdown}\n`);
  if (!quick) {
    const dir = join(here, 'results');
    mkdirSync(dir, { recursive: true });
    const { markdown, ...json } = report;
    writeFileSync(join(dir, 'server.json'), `${JSON.stringify(json, null, 2)}\n`);
    writeFileSync(join(dir, 'server.md'), markdown);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    process.stderr.write(`bench/server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}
