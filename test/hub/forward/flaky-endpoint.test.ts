/**
 * A DynamoDB endpoint that fails for a while, as seen through the real AWS SDK client: a small
 * HTTP proxy in front of dynalite answers some writes with 500 InternalServerError, some with 503
 * ServiceUnavailable and some with 400 ThrottlingException, then lets them through. Every record
 * reaches the endpoint, none is dead-lettered, and the failures are counted.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startForwarder } from '../../../src/hub/forward/start-forwarder.js';
import { countDeadLetters } from '../../../src/hub/dead-letter-bounds.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../../sync/fixtures.js';
import { startDynalite, TEST_CREDENTIALS } from './dynalite.js';
import { endpointClient, endpointContents, hubContents } from './endpoint-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Fault = { status: number; type: string };

/** Forwards to `target`, except that the n-th write request gets `faultFor(n)` when it returns one. */
async function faultyProxy(target: string, faultFor: (n: number) => Fault | undefined) {
  const to = new URL(target);
  const seen = { writes: 0, faults: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target'] ?? '');
      const fault = /\.(PutItem|DeleteItem|BatchWriteItem)$/.test(target) ? faultFor(++seen.writes) : undefined;
      if (fault) {
        seen.faults += 1;
        res.writeHead(fault.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault' });
        res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${fault.type}`, message: `injected ${fault.type}` }));
        return;
      }
      const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const FAULTS: Fault[] = [
  { status: 500, type: 'InternalServerError' },
  { status: 503, type: 'ServiceUnavailable' },
  { status: 400, type: 'ThrottlingException' },
];

describe('a flaky endpoint', () => {
  it.each(['conditional', 'batch'] as const)('gets every record after 5xx and throttling answers, nothing dead-lettered (%s mode)', async (writeMode) => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const client = endpointClient(dynalite.endpoint);
    cleanups.push(() => client.destroy());
    // The first 30 writes: two of every three fail; then all pass.
    const proxy = await faultyProxy(dynalite.endpoint, (n) => (n <= 30 && n % 3 !== 0 ? FAULTS[n % FAULTS.length] : undefined));
    const { db } = tempDb(cleanups, 'etb-forward-flaky-');
    createReadings(db, 'Readings', 2);
    writeReadings(db, 0, 120);
    db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: 's-1' }, ts: { N: '1' } } });
    const f = startForwarder(db, { endpoint: proxy.endpoint, credentials: TEST_CREDENTIALS, pollMs: 20, baseBackoffMs: 5, maxBackoffMs: 40, batchSize: 30, writeMode });
    cleanups.push(() => f.stop());
    await until(() => f.status().lagRecords === 0, 60_000, 'every record forwarded');
    expect(await endpointContents(client, 'Readings')).toEqual(hubContents(db, 'Readings'));
    expect(hubContents(db, 'Readings')).toHaveLength(119);
    const s = f.status();
    // Batch mode writes 25 items a call, so fewer calls, and fewer of them fail.
    expect(proxy.seen.faults).toBe(writeMode === 'batch' ? 16 : 20);
    expect(s.throttled).toBeGreaterThan(0);
    expect(s.errors).toBeGreaterThan(0);
    expect(s.throttled + s.errors).toBe(proxy.seen.faults);
    expect(s).toMatchObject({ permanentFailures: 0, deadLettered: 0 });
    expect(countDeadLetters(db)).toBe(0);
  }, 90_000);
});
