/**
 * What a service writes, as journald keeps it (`journalctl -u ... -o cat | jq .`): every line on
 * stdout and stderr of a running serve or sync is one JSON object; at --log-level debug, serve
 * logs one line per request (operation, table, outcome, ms); Node's own warnings become log lines;
 * a service that fails says so in a `fatal` JSON line. Processes are spawned (about a second each under tsx).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startBroker } from '../sync/broker.js';
import { run, tempDir } from './run-cli.js';

const TSX = import.meta.resolve('tsx');
const CLI = fileURLToPath(new URL('./fixtures/run-cli.ts', import.meta.url));

const WARN_ON_SIGNAL = fileURLToPath(new URL('./fixtures/warn-on-signal.ts', import.meta.url));

type Service = { ready: Promise<string>; signal(name: NodeJS.Signals): void; stop(): Promise<{ code: number | null; out: string; err: string }> };

/** Spawns the CLI (SIGUSR2 makes it emit a Node warning); `ready` resolves with stdout once `readyPattern` shows there. */
function service(args: string[], readyPattern: RegExp): Service {
  const child = spawn(process.execPath, ['--import', TSX, '--import', WARN_ON_SIGNAL, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => void (out += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => void (err += t));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 30 s: ${out}${err}`)), 30_000);
    child.stdout.on('data', () => {
      if (readyPattern.test(out)) resolve(out);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before ready: ${out}${err}`))).finally(() => clearTimeout(timer));
  });
  return {
    ready,
    signal: (name) => child.kill(name),
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      return { code, out, err };
    },
  };
}

/** Every line parsed as JSON; a line that is not fails the test with the line. */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

async function call(url: string, operation: string, body: unknown): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-date': '20260101T000000Z', 'x-amz-target': `DynamoDB_20120810.${operation}`, authorization: 'AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' },
    body: JSON.stringify(body),
  });
  await r.arrayBuffer();
  return r.status;
}

describe('a service writes JSON lines only', () => {
  it('serve --log-level debug: the ready line, one line per request, the stop', async () => {
    const s = service(['serve', '--path', join(tempDir(), 'db'), '--port', '0', '--log-level', 'debug'], /serving .* on http:/);
    const url = /"url":"(http:[^"]+)"/.exec(await s.ready)?.[1];
    expect(url).toBeDefined();
    expect(await call(url!, 'CreateTable', { TableName: 'Readings', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' })).toBe(200);
    expect(await call(url!, 'GetItem', { TableName: 'Nope', Key: { id: { S: 'a' } } })).toBe(400);
    expect(await call(url!, 'ListTables', {})).toBe(200);
    s.signal('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const r = await s.stop();
    expect(r.code).toBe(0);
    const out = jsonLines(r.out);
    expect(out).toEqual([expect.objectContaining({ level: 'info', component: 'serve', url, sigv4: false, msg: expect.stringMatching(/^edgetable serving \S+ on http:/) })]);
    const err = jsonLines(r.err);
    const requests = err.filter((l) => l['level'] === 'debug' && l['component'] === 'server');
    expect(requests).toEqual([
      expect.objectContaining({ operation: 'CreateTable', table: 'Readings', outcome: 'success', ms: expect.any(Number), msg: 'CreateTable Readings: success' }),
      expect.objectContaining({ operation: 'GetItem', table: 'Nope', outcome: 'ResourceNotFoundException' }),
      expect.objectContaining({ operation: 'ListTables', outcome: 'success', msg: 'ListTables: success' }),
    ]);
    expect(requests[2]).not.toHaveProperty('table');
    // Node's own warnings, which it prints as text, are log lines while a service runs.
    expect(err).toContainEqual(expect.objectContaining({ level: 'warn', component: 'serve', warning: { name: 'DeprecationWarning', code: 'DEP_EDGETABLE_TEST' }, msg: 'DeprecationWarning: a warning Node would print as text' }));
    expect(err.at(-1)).toMatchObject({ level: 'info', component: 'serve', reason: 'SIGTERM' });
  }, 60_000);

  it('serve at the default level logs nothing per request', async () => {
    const s = service(['serve', '--path', join(tempDir(), 'db'), '--port', '0'], /serving .* on http:/);
    const url = /"url":"(http:[^"]+)"/.exec(await s.ready)![1]!;
    expect(await call(url, 'ListTables', {})).toBe(200);
    const r = await s.stop();
    expect(jsonLines(r.err).filter((l) => l['level'] === 'debug')).toEqual([]);
  }, 60_000);

  it('sync with --metrics-port: the ready and metrics lines on stdout, the link lines on stderr', async () => {
    const broker = await startBroker();
    try {
      const path = join(tempDir(), 'db');
      const created = await run(['create-table', 'Tab', '--path', path, '--hash', 'id:S']);
      expect(created.code, created.err).toBe(0);
      const s = service(['sync', '--path', path, '--url', broker.url, '--device', 'pi-1', '--table', 'Tab', '--metrics-port', '0'], /metrics on http:/);
      await s.ready;
      const r = await s.stop();
      expect(r.code).toBe(0);
      expect(jsonLines(r.out).map((l) => [l['component'], l['msg']])).toEqual([
        ['sync', `edgetable syncing Tab from ${path} as pi-1 to ${broker.url}`],
        ['sync', expect.stringMatching(/^metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/)],
      ]);
      expect(jsonLines(r.err).every((l) => l['component'] === 'sync')).toBe(true);
    } finally {
      await broker.stop();
    }
  }, 60_000);

  it("a service's failure is one fatal JSON line, exit code 1; a usage error stays the plain `error:` line, exit code 2", async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a store');
    const failed = await run(['serve', '--path', file, '--port', '0']);
    expect(failed.code).toBe(1);
    expect(failed.out).toBe('');
    const lines = jsonLines(failed.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'fatal', component: 'serve', msg: expect.stringMatching(/^StorageError: /), err: expect.objectContaining({ type: 'StorageError' }) });
    const usage = await run(['sync', '--path', join(tempDir(), 'db'), '--url', 'mqtt://127.0.0.1:1', '--device', 'd', '--table', 'Tab', '--when-full', 'explode']);
    expect(usage).toEqual({ code: 2, out: '', err: 'error: --when-full must be reject or drop-oldest, not explode\n' });
  }, 60_000);
});
