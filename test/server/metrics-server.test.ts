/**
 * GET /metrics: on the DynamoDB port of `serve` (requests counted by operation and outcome, latency
 * by operation), and on the listener `--metrics-port` starts for hub, bridge and sync.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { startMetricsServer, type MetricsServer } from '../../src/server/metrics-server.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { parseExposition, valueOf } from '../metrics/parse-exposition.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { call, send } from './raw-http.js';

const temp = useTempDbs();
const running: (RunningServer | MetricsServer)[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function scrape(port: number) {
  const r = await send(port, { method: 'GET', path: '/metrics' });
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(r.text).samples;
}

describe('GET /metrics on serve', () => {
  it('counts requests by operation and outcome, and their latency, as requests arrive', async () => {
    const db = temp.open();
    db.createTable(tableRequest('Things', ['id', 'S']));
    const server = await startServer({ db, port: 0 });
    running.push(server);
    const before = await scrape(server.port);
    expect(valueOf(before, 'edgetable_requests_total', { operation: 'PutItem', outcome: 'success' })).toBeUndefined();

    for (let i = 0; i < 3; i++) expect((await call(server.port, 'PutItem', { TableName: 'Things', Item: { id: { S: `k${i}` } } })).status).toBe(200);
    const refused = await call(server.port, 'PutItem', { TableName: 'Things', Item: { id: { S: 'k0' } }, ConditionExpression: 'attribute_not_exists(id)' });
    expect(refused.status).toBe(400);
    expect((await call(server.port, 'GetItem', { TableName: 'Nope', Key: { id: { S: 'k0' } } })).status).toBe(400);

    const after = await scrape(server.port);
    expect(valueOf(after, 'edgetable_requests_total', { operation: 'PutItem', outcome: 'success' })).toBe(3);
    expect(valueOf(after, 'edgetable_requests_total', { operation: 'PutItem', outcome: 'ConditionalCheckFailedException' })).toBe(1);
    expect(valueOf(after, 'edgetable_requests_total', { operation: 'GetItem', outcome: 'ResourceNotFoundException' })).toBe(1);
    expect(valueOf(after, 'edgetable_request_duration_seconds_count', { operation: 'PutItem' })).toBe(4);
    expect(valueOf(after, 'edgetable_request_duration_seconds_bucket', { operation: 'PutItem', le: '+Inf' })).toBe(4);
    expect(valueOf(after, 'edgetable_table_items', { table: 'Things' })).toBe(3);
  });

  it('is absent with metrics: false (the path is then an unknown operation)', async () => {
    const db = temp.open();
    const server = await startServer({ db, port: 0, metrics: false });
    running.push(server);
    expect((await send(server.port, { method: 'GET', path: '/metrics' })).status).toBe(404);
  });
});

describe('startMetricsServer (--metrics-port)', () => {
  it('answers GET /metrics and 404 elsewhere', async () => {
    const db = temp.open();
    const server = await startMetricsServer(createMetrics({ db }), 0);
    running.push(server);
    const samples = await scrape(server.port);
    expect(valueOf(samples, 'edgetable_lmdb_map_size_bytes')).toBeGreaterThan(0);
    expect((await send(server.port, { method: 'GET', path: '/' })).status).toBe(404);
    expect((await send(server.port, { method: 'POST', path: '/metrics' })).status).toBe(404);
  });
});
