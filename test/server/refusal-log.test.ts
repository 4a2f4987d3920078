/**
 * Refused API requests are counted in /metrics and logged, at most one line per interval: the
 * first refusal at once with who sent it, the rest summed up when the interval ends or the server
 * closes.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configureLogging } from '../../src/log/logger.js';
import { createRefusalLog, type Refusal } from '../../src/server/refusal-log.js';
import { startServer } from '../../src/server/start-server.js';
import { parseExposition, valueOf } from '../metrics/parse-exposition.js';
import { useTempDbs } from '../ops/temp-db.js';
import { send } from './raw-http.js';

const temp = useTempDbs();
const bad: Refusal = { reason: 'InvalidSignatureException', operation: 'PutItem', keyId: 'AKID1', from: '10.0.0.7' };

afterEach(() => {
  vi.useRealTimers();
  configureLogging();
});

function recorder() {
  let clock = 1_000_000;
  const lines: { fields: Record<string, unknown>; line: string }[] = [];
  const log = createRefusalLog({ intervalMs: 10_000, now: () => clock, write: (fields, line) => lines.push({ fields, line }) });
  return { log, lines, advance: (ms: number) => void (clock += ms, vi.advanceTimersByTime(ms)) };
}

describe('createRefusalLog', () => {
  it('logs the first refusal at once, naming the error, operation, peer and key', () => {
    vi.useFakeTimers();
    const { log, lines } = recorder();
    log.refuse(bad);
    expect(lines).toEqual([
      { fields: { reason: 'InvalidSignatureException', operation: 'PutItem', keyId: 'AKID1', from: '10.0.0.7' }, line: 'refused API request: InvalidSignatureException, PutItem from 10.0.0.7 with access key "AKID1"' },
    ]);
  });

  it('a flood within the interval costs one summary line when the interval ends', () => {
    vi.useFakeTimers();
    const { log, lines, advance } = recorder();
    log.refuse(bad);
    for (let i = 0; i < 999; i++) log.refuse(bad);
    log.refuse({ reason: 'UnrecognizedClientException', operation: 'Scan', from: '10.0.0.8' });
    advance(9_999);
    expect(lines).toHaveLength(1);
    advance(1);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.line).toBe('1000 more API requests refused (999 InvalidSignatureException, 1 UnrecognizedClientException); the last Scan from 10.0.0.8');
    expect(lines[1]!.fields['refused']).toEqual({ InvalidSignatureException: 999, UnrecognizedClientException: 1 });
    // the next one within the following interval waits for its end too
    log.refuse(bad);
    advance(5_000);
    expect(lines).toHaveLength(2);
    advance(5_000);
    expect(lines.map((l) => l.line)).toHaveLength(3);
    expect(lines[2]!.line).toMatch(/^1 more API request refused \(1 InvalidSignatureException\)/);
  });

  it('after a quiet interval a refusal is logged at once again; close() writes what is held', () => {
    vi.useFakeTimers();
    const { log, lines, advance } = recorder();
    log.refuse(bad);
    advance(10_000);
    log.refuse(bad);
    expect(lines).toHaveLength(2);
    log.refuse(bad);
    log.close();
    expect(lines).toHaveLength(3);
    expect(lines[2]!.line).toMatch(/^1 more API request refused/);
    log.close();
    expect(lines).toHaveLength(3);
  });
});

describe('the server counts and logs refusals', () => {
  it('edgetable_auth_refusals_total counts by error; the log holds one line for a burst, then its summary at close', async () => {
    const lines: string[] = [];
    configureLogging({ level: 'info', sink: { write: (line) => void lines.push(line) } });
    const db = temp.open();
    const server = await startServer({ db, port: 0, auth: { credentials: { AKIDGOOD: 'a-secret-of-enough-length' } } });
    const c = (id: string, secret: string) => new DynamoDBClient({ endpoint: `http://127.0.0.1:${server.port}`, region: 'us-east-1', credentials: { accessKeyId: id, secretAccessKey: secret }, maxAttempts: 1 });
    const wrong = c('AKIDGOOD', 'guess');
    const unknown = c('AKIDOTHER', 'guess');
    const good = c('AKIDGOOD', 'a-secret-of-enough-length');
    try {
      for (let i = 0; i < 5; i++) await expect(wrong.send(new ListTablesCommand({}))).rejects.toThrow(/signature we calculated/);
      await expect(unknown.send(new ListTablesCommand({}))).rejects.toThrow(/security token/);
      await good.send(new ListTablesCommand({}));
      const metrics = parseExposition((await send(server.port, { method: 'GET', path: '/metrics' })).text).samples;
      expect(valueOf(metrics, 'edgetable_auth_refusals_total', { reason: 'InvalidSignatureException' })).toBe(5);
      expect(valueOf(metrics, 'edgetable_auth_refusals_total', { reason: 'UnrecognizedClientException' })).toBe(1);
      expect(valueOf(metrics, 'edgetable_requests_total', { operation: 'ListTables', outcome: 'success' })).toBe(1);
    } finally {
      for (const client of [wrong, unknown, good]) client.destroy();
      await server.close();
    }
    const refusals = lines.map((l) => JSON.parse(l) as { level: string; component: string; msg: string }).filter((l) => l.msg.includes('refused'));
    expect(refusals.map((l) => [l.level, l.component, l.msg])).toEqual([
      ['warn', 'server', 'refused API request: InvalidSignatureException, ListTables from 127.0.0.1 with access key "AKIDGOOD"'],
      ['warn', 'server', '5 more API requests refused (4 InvalidSignatureException, 1 UnrecognizedClientException); the last ListTables from 127.0.0.1 with access key "AKIDOTHER"'],
    ]);
  });
});
