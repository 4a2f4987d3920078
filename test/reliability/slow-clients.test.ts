/**
 * Slow and hostile HTTP clients against `serve` as a device runs it (issue 44, point 3): the CLI
 * compiled to JavaScript (under tsx the loader alone holds ~55 MiB of anonymous memory) in its own
 * process with the heap flags the long-running commands get, default request limits. While a
 * slowloris holds more connections than the cap (trickling header lines, reopening whatever the
 * server closes) and a body flood keeps 30 requests that each declare 15 MiB, send 14 MiB and wait,
 * the serving process's anonymous memory (RssAnon in /proc/<pid>/status: JS heap and native
 * allocations, not the mapped store nor the node binary) stays under the project's 64 MiB target,
 * and a well-behaved client, opening a new connection for every request, has every request
 * answered. Its latency (p50/p99) is printed, not asserted: the machine is shared.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_FLAGS } from '../../src/cli/heap-flags.js';
import { bodyFlood, slowloris, type Attack } from './harness/http-attacks.js';

const ROOT = join(import.meta.dirname, '..', '..');
const MiB = 1024 * 1024;
const TARGET_ANON_BYTES = 64 * MiB;
const ATTACK_MS = 8_000;

let work: string;
let serve: ChildProcess;
let port: number;

// The bundle lives two levels under the repository (tmp/ is git-ignored) so that its packages
// resolve from node_modules and main.ts finds ../../package.json.
beforeAll(async () => {
  mkdirSync(join(ROOT, 'tmp'), { recursive: true });
  work = mkdtempSync(join(ROOT, 'tmp', 'slow-clients-'));
  const cli = join(work, 'cli.mjs');
  buildSync({ entryPoints: [join(ROOT, 'test', 'cli', 'fixtures', 'run-cli.ts')], outfile: cli, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  serve = spawn(process.execPath, [...DEFAULT_HEAP_FLAGS, cli, 'serve', '--path', join(work, 'data'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  port = await new Promise<number>((resolve, reject) => {
    let out = '';
    serve.stdout!.setEncoding('utf8').on('data', (t: string) => {
      out += t;
      const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    serve.once('exit', (code) => reject(new Error(`serve exited (${code}) before serving: ${out}`)));
  });
  const created = await call('CreateTable', {
    TableName: 'Readings',
    KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  expect(created.status).toBe(200);
}, 60_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((r) => serve.once('exit', r));
    serve.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (serve.exitCode === null) serve.kill('SIGKILL');
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

/** One DynamoDB call on a connection of its own (no keep-alive): the client has to win a connection every time. */
function call(operation: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${operation}`,
          'x-amz-date': '20260101T000000Z',
          authorization: 'AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (t: string) => void (text += t));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function statusKiB(pid: number, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

type ClientRun = { latenciesMs: number[]; failures: string[] };

/** The well-behaved client: PutItem of a new reading, then GetItem of it, in a loop until `until`. */
async function wellBehaved(until: () => boolean, sensor: string): Promise<ClientRun> {
  const latenciesMs: number[] = [];
  const failures: string[] = [];
  for (let ts = 0; !until(); ts++) {
    for (const [op, body] of [
      ['PutItem', { TableName: 'Readings', Item: { sensorId: { S: sensor }, ts: { N: String(ts) }, t: { N: '21.5' } } }],
      ['GetItem', { TableName: 'Readings', Key: { sensorId: { S: sensor }, ts: { N: String(ts) } } }],
    ] as const) {
      const started = performance.now();
      try {
        const r = await call(op, body);
        latenciesMs.push(performance.now() - started);
        if (r.status !== 200) failures.push(`${op}: ${r.status} ${r.text.slice(0, 160)}`);
        else if (op === 'GetItem' && !r.text.includes(`"ts":{"N":"${ts}"}`)) failures.push(`GetItem: not the item written: ${r.text.slice(0, 160)}`);
      } catch (err) {
        failures.push(`${op}: ${(err as Error).message}`);
      }
    }
  }
  return { latenciesMs, failures };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function summary(label: string, run: ClientRun): string {
  return `${label}: ${run.latenciesMs.length} requests, p50 ${percentile(run.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(run.latenciesMs, 99).toFixed(1)} ms, max ${Math.max(...run.latenciesMs).toFixed(1)} ms`;
}

function answers(attack: Attack): string {
  return JSON.stringify({ opened: attack.counts.opened, closedByServer: attack.counts.closedByServer, answers: Object.fromEntries(attack.counts.answers) });
}

describe.runIf(existsSync('/proc/self/status'))('serve under slow and hostile clients', () => {
  it('a slowloris past the connection cap and a flood of 30 x 14 MiB of declared 15 MiB bodies: RssAnon stays under 64 MiB and every request of a well-behaved client is answered', async () => {
    const pid = serve.pid!;
    const quietEnd = performance.now() + 1_500;
    const quiet = await wellBehaved(() => performance.now() > quietEnd, 'quiet');
    const idleAnon = statusKiB(pid, 'RssAnon');

    const loris = slowloris(port, 200);
    const flood = bodyFlood(port, 30, 15 * MiB, 14 * MiB);
    let peakAnon = 0;
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakAnon = Math.max(peakAnon, statusKiB(pid, 'RssAnon'));
      peakRss = Math.max(peakRss, statusKiB(pid, 'VmRSS'));
    }, 50);
    const attackEnd = performance.now() + ATTACK_MS;
    let attacked: ClientRun;
    try {
      await new Promise((r) => setTimeout(r, 1_000)); // the attack in place before the client starts
      attacked = await wellBehaved(() => performance.now() > attackEnd, 'attacked');
    } finally {
      clearInterval(sampler);
      loris.stop();
      flood.stop();
    }
    peakAnon = Math.max(peakAnon, statusKiB(pid, 'RssAnon'));

    console.log(
      `serve (compiled, ${DEFAULT_HEAP_FLAGS.join(' ')}, default request limits): RssAnon idle ${(idleAnon / MiB).toFixed(1)} MiB, ` +
        `peak under attack ${(peakAnon / MiB).toFixed(1)} MiB (VmRSS peak ${(peakRss / MiB).toFixed(1)} MiB)\n` +
        `${summary('well-behaved client before the attack', quiet)}\n${summary('well-behaved client during the attack', attacked)}\n` +
        `slowloris ${answers(loris)}\nbody flood ${answers(flood)}`,
    );
    expect(serve.exitCode).toBeNull();
    expect(attacked.failures.slice(0, 5)).toEqual([]);
    expect(attacked.latenciesMs.length).toBeGreaterThan(10);
    // The attacks were real: the cap closed slowloris connections, the budget refused flood requests unread.
    expect(loris.counts.closedByServer).toBeGreaterThan(0);
    expect(flood.counts.answers.get('400 ThrottlingException') ?? 0).toBeGreaterThan(0);
    expect(peakAnon).toBeLessThan(TARGET_ANON_BYTES);
  }, 60_000);
});
