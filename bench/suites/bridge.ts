/**
 * Suite `bridge`: sensor frames per second from UDP into the readings table, acknowledged, and the
 * bridge's memory while it works.
 *
 * Builds firmware-bridge/build/udp-sender (`make -C firmware-bridge`), starts the bridge in its
 * own process (bench/bridge-child.ts: startBridge on UDP, durable store, so an ack means the
 * reading is on disk) and, per run, spawns N udp-sender processes (the C node library: 32 frames
 * in flight per node, resent after 300 ms until acked), each sending its own device's readings.
 * Frames/s = readings written by the bridge during the run / time from spawning the senders until
 * the last one exits (they exit once every reading of theirs is acknowledged). The bridge samples
 * its RSS and heap every 100 ms; steady state = the samples after the first quarter of the run.
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, mib, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { benchDir } from './readings-table.js';
import type { BridgeChildMessage, BridgeRun, MemorySample } from '../bridge-child.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const UDP_SENDER = join(root, 'firmware-bridge/build/udp-sender');
/** [senders, readings per sender]. */
const RUNS = {
  full: [
    [1, 5000],
    [4, 5000],
    [16, 2500],
  ],
  quick: [
    [1, 500],
    [4, 400],
  ],
} as const;
const SENDER_TIMEOUT_MS = { full: 40_000, quick: 15_000 };

interface RunRow {
  senders: number;
  perSender: number;
  seconds: number;
  written: number;
  framesPerSecond: number;
  sendersFailed: number;
  firstError?: string;
  batches: number;
  duplicate: number;
  steady: { rssMedian: number; rssMax: number; heapUsedMedian: number; heapUsedMax: number; samples: number };
  samples: MemorySample[];
}

export async function runBridgeSuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  execFileSync('make', ['-s', '-C', join(root, 'firmware-bridge'), 'build/udp-sender'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = benchDir('bridge');
  const child = fork(join(here, '..', 'bridge-child.ts'), [JSON.stringify({ path: dir.path })], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const runs: RunRow[] = [];
  let idle: MemorySample | undefined;
  try {
    const ready = await reply(child);
    if (!('ready' in ready)) throw new Error(`bridge process: ${JSON.stringify(ready)}`);
    const port = ready.ready.port;
    // Warm-up: one sender, untimed; then the idle footprint.
    await senders(port, 'warm', 1, 300, SENDER_TIMEOUT_MS.full);
    await exchange(child, { begin: true });
    await new Promise((r) => setTimeout(r, 500));
    const idleRun = await exchange(child, { end: true });
    idle = 'ended' in idleRun ? idleRun.ended.samples.at(-1) : undefined;
    for (const [n, perSender] of quick ? RUNS.quick : RUNS.full) {
      await exchange(child, { begin: true });
      const t0 = performance.now();
      const results = await senders(port, `n${n}`, n, perSender, quick ? SENDER_TIMEOUT_MS.quick : SENDER_TIMEOUT_MS.full);
      const seconds = (performance.now() - t0) / 1000;
      const ended = await exchange(child, { end: true });
      if (!('ended' in ended)) throw new Error(`bridge process: ${JSON.stringify(ended)}`);
      const row = summarize(n, perSender, seconds, results, ended.ended);
      log(`bridge: ${n} senders x ${perSender}: ${int(row.framesPerSecond)} frames/s acknowledged, RSS ${mib(row.steady.rssMedian)} median`);
      runs.push(row);
    }
    await exchange(child, { stop: true });
  } finally {
    if (child.exitCode === null) child.kill();
    dir.remove();
  }
  const data = { idle, runs };
  return { suite: 'bridge', date: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds: (performance.now() - started) / 1000, markdown: render(data), data };
}

function summarize(senders: number, perSender: number, seconds: number, results: SenderResult[], run: BridgeRun): RunRow {
  const failed = results.filter((r) => r.code !== 0);
  const steadySamples = run.samples.filter((s) => s.ms >= (seconds * 1000) / 4);
  const use = steadySamples.length > 0 ? steadySamples : run.samples;
  return {
    senders,
    perSender,
    seconds,
    written: run.written,
    framesPerSecond: run.written / seconds,
    sendersFailed: failed.length,
    ...(failed[0] ? { firstError: failed[0].stderr.trim().split('\n')[0] ?? `exit ${failed[0].code}` } : {}),
    batches: run.batches,
    duplicate: run.duplicate,
    steady: {
      rssMedian: median(use.map((s) => s.rss)),
      rssMax: Math.max(...use.map((s) => s.rss)),
      heapUsedMedian: median(use.map((s) => s.heapUsed)),
      heapUsedMax: Math.max(...use.map((s) => s.heapUsed)),
      samples: use.length,
    },
    samples: run.samples,
  };
}

type SenderResult = { code: number | null; stderr: string };

/** N udp-sender processes at once, device ids unique to this run; resolves when all have exited. */
function senders(port: number, run: string, n: number, count: number, timeoutMs: number): Promise<SenderResult[]> {
  return Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<SenderResult>((resolve) => {
          const p = spawn(UDP_SENDER, ['127.0.0.1', String(port), `bench-${run}-${i}`, String(count), String(timeoutMs)], { stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          p.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
          p.on('error', (e) => resolve({ code: null, stderr: e.message }));
          p.on('exit', (code) => resolve({ code, stderr }));
        }),
    ),
  );
}

function reply(child: ChildProcess): Promise<BridgeChildMessage> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bridge process exited with code ${code}`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m as BridgeChildMessage);
    });
  });
}

function exchange(child: ChildProcess, message: object): Promise<BridgeChildMessage> {
  const r = reply(child);
  child.send(message);
  return r;
}

function render(d: { idle: MemorySample | undefined; runs: RunRow[] }): string {
  const lines = [
    '### Sensor bridge: UDP frames into the table (`--suite bridge`)',
    '',
    'N `firmware-bridge/build/udp-sender` processes (the C node library; 32 frames in flight per node, resent after 300 ms until acked) against `startBridge` on UDP in its own process; durable store, so an ack means the reading is committed and fsync\'d. Frames/s = readings written / time until the last sender has every reading acknowledged. Memory sampled in the bridge process every 100 ms; steady state = samples after the first quarter of the run. The bridge process runs the TypeScript sources under tsx, as `edgetable bridge` does; the loader is part of its RSS.',
    '',
    ...table(
      ['senders x readings', 'frames/s (acked)', 'time', 'written', 'batches', 'duplicates (resends)', 'RSS median / max', 'heap used median / max'],
      d.runs.map((r) => [
        `${r.senders} x ${int(r.perSender)}`,
        int(r.framesPerSecond),
        `${fixed(r.seconds, 2)} s`,
        int(r.written),
        int(r.batches),
        int(r.duplicate),
        `${mib(r.steady.rssMedian)} / ${mib(r.steady.rssMax)}`,
        `${mib(r.steady.heapUsedMedian)} / ${mib(r.steady.heapUsedMax)}`,
      ]),
      'lrrrrrrr',
    ),
    '',
  ];
  if (d.idle) lines.push(`Idle bridge (after a warm-up run): RSS ${mib(d.idle.rss)}, heap used ${mib(d.idle.heapUsed)}.`, '');
  for (const r of d.runs) if (r.sendersFailed > 0) lines.push(`- WARNING ${r.senders} senders: ${r.sendersFailed} did not get every reading acknowledged in time (${r.firstError ?? 'no message'}).`);
  return lines.join('\n');
}
