/**
 * Suite `startup`: what a small device pays to run edgetable, measured on the installed entry
 * point (package.json's `bin`: the compiled build once there is one, else bin/edgetable.js, which
 * loads the TypeScript sources through tsx; the report says which).
 *
 * - CLI start-up: wall time of `edgetable --version` and of `edgetable tables --path <store>`
 *   (opens a store), each spawned N times; median and fastest. `node -e 0` is the floor.
 * - serve, time to ready: from spawn until the `edgetable serving ...` line (listening).
 * - RSS: of the serve process, idle (1 s after ready) and under load (C clients doing PutItem +
 *   GetItem over keep-alive HTTP for T seconds; VmRSS sampled every 100 ms, the median of the
 *   samples after the first quarter, and VmHWM, the kernel's peak). Linux /proc figures.
 * - the same process's /metrics: its edgetable_requests_total, which the load must have moved.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, mib, sleep, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { benchDir } from './readings-table.js';
import { childPids } from '../proc.js';
import { dynamoCaller } from '../dynamo-call.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const PLAN = {
  full: { spawns: 10, clients: 8, loadSeconds: 15 },
  quick: { spawns: 3, clients: 4, loadSeconds: 3 },
};

interface Spawned {
  command: string;
  medianMs: number;
  minMs: number;
  runs: number;
}

interface StartupData {
  entry: { bin: string; kind: 'compiled' | 'tsx' };
  spawns: Spawned[];
  serve: { readyMs: number[]; idleRssBytes: number; loaded: { rssMedianBytes: number; rssMaxBytes: number; peakRssBytes: number; requests: number; seconds: number; clients: number }; metricsRequestsTotal: number };
}

export async function runStartupSuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const plan = quick ? PLAN.quick : PLAN.full;
  const entry = entryPoint();
  log(`entry point ${entry.bin} (${entry.kind})`);
  const dir = benchDir('startup');
  const store = join(dir.path, 'db');
  const cli = (args: string[]) => [entry.bin, ...args];
  const created = spawnSync(process.execPath, cli(['create-table', 'Bench', '--hash', 'pk:S', '--path', store]), { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`create-table: ${created.stderr}`);

  const spawns = [
    timeSpawns('node -e 0', ['-e', '0'], plan.spawns),
    timeSpawns('edgetable --version', cli(['--version']), plan.spawns),
    timeSpawns('edgetable tables --path <store>', cli(['tables', '--path', store]), plan.spawns),
  ];
  for (const s of spawns) log(`${s.command}: median ${fixed(s.medianMs, 0)} ms`);

  const readyMs: number[] = [];
  for (let i = 0; i < (quick ? 2 : 5); i++) {
    const serve = await startServe(cli(['serve', '--path', store, '--port', '0']));
    readyMs.push(serve.readyMs);
    await serve.stop();
  }
  log(`serve ready: median ${fixed(median(readyMs), 0)} ms`);

  const serve = await startServe(cli(['serve', '--path', store, '--port', '0']));
  let loaded: StartupData['serve']['loaded'];
  let idleRssBytes: number;
  let metricsRequestsTotal: number;
  try {
    await sleep(1000);
    // bin/edgetable.js restarts serve with its heap flags (src/cli/heap-flags.ts): measure the serving process.
    const pid = childPids(serve.child.pid!)[0] ?? serve.child.pid!;
    idleRssBytes = procStatus(pid, 'VmRSS');
    log(`idle RSS ${mib(idleRssBytes)}`);
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(procStatus(pid, 'VmRSS')), 100);
    const t0 = performance.now();
    const requests = await load(serve.port, plan.clients, plan.loadSeconds * 1000);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const steady = samples.slice(Math.floor(samples.length / 4));
    loaded = { rssMedianBytes: median(steady), rssMaxBytes: Math.max(...steady), peakRssBytes: procStatus(pid, 'VmHWM'), requests, seconds, clients: plan.clients };
    log(`loaded RSS median ${mib(loaded.rssMedianBytes)}, peak ${mib(loaded.peakRssBytes)}, ${int(requests / seconds)} requests/s`);
    const metrics = await (await fetch(`http://127.0.0.1:${serve.port}/metrics`)).text();
    metricsRequestsTotal = [...metrics.matchAll(/^edgetable_requests_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  } finally {
    await serve.stop();
    dir.remove();
  }
  const data: StartupData = { entry, spawns, serve: { readyMs, idleRssBytes, loaded, metricsRequestsTotal } };
  return { suite: 'startup', date: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds: (performance.now() - started) / 1000, markdown: render(data), data };
}

function entryPoint(): StartupData['entry'] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  const bin = join(root, pkg.bin['edgetable']!);
  return { bin, kind: readFileSync(bin, 'utf8').includes('tsx') ? 'tsx' : 'compiled' };
}

function timeSpawns(command: string, args: string[], n: number): Spawned {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${command} exited ${r.status}`);
    ms.push(performance.now() - t0);
  }
  return { command, medianMs: median(ms), minMs: Math.min(...ms), runs: n };
}

async function startServe(args: string[]): Promise<{ child: ChildProcess; port: number; readyMs: number; stop: () => Promise<void> }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /serving .* on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before it was ready: ${out}`)));
  });
  const readyMs = performance.now() - t0;
  return {
    child,
    port,
    readyMs,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `clients` loops of PutItem then GetItem of a ~300-byte item until `ms` has passed; requests sent. */
async function load(port: number, clients: number, ms: number): Promise<number> {
  const deadline = performance.now() + ms;
  const call = dynamoCaller(port);
  let requests = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const pk = { S: `c${c}-${i % 5000}` };
        await call('PutItem', { TableName: 'Bench', Item: { pk, ts: { N: String(Date.now()) }, body: { S: 'x'.repeat(256) } } });
        await call('GetItem', { TableName: 'Bench', Key: { pk } });
        requests += 2;
      }
    }),
  );
  return requests;
}

/** A /proc/<pid>/status figure in bytes (VmRSS, VmHWM). */
function procStatus(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

function render(d: StartupData): string {
  const l = d.serve.loaded;
  return [
    '### Start-up and memory',
    '',
    `Entry point: \`${d.entry.bin.slice(root.length + 1)}\` (${d.entry.kind === 'tsx' ? 'TypeScript sources through tsx: no compiled build yet' : 'compiled JavaScript'}). Each command spawned ${d.spawns[0]!.runs} times.`,
    '',
    ...table(
      ['measure', 'median', 'fastest'],
      [
        ...d.spawns.map((s) => [`\`${s.command}\``, `${fixed(s.medianMs, 0)} ms`, `${fixed(s.minMs, 0)} ms`]),
        ['`serve`: spawn to listening', `${fixed(median(d.serve.readyMs), 0)} ms`, `${fixed(Math.min(...d.serve.readyMs), 0)} ms`],
      ],
      'lrr',
    ),
    '',
    ...table(
      ['serve process', 'RSS'],
      [
        ['idle, 1 s after ready', mib(d.serve.idleRssBytes)],
        [`loaded (${l.clients} clients, PutItem + GetItem, ${int(l.requests / l.seconds)} req/s), median`, mib(l.rssMedianBytes)],
        ['loaded, highest sample', mib(l.rssMaxBytes)],
        ['peak (VmHWM)', mib(l.peakRssBytes)],
      ],
      'lr',
    ),
    '',
    `The load's ${int(l.requests)} requests; /metrics counted ${int(d.serve.metricsRequestsTotal)} (edgetable_requests_total).`,
  ].join('\n');
}
