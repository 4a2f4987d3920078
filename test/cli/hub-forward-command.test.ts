/** `edgetable hub --port --forward-endpoint`: the API on the hub store, forwarded to a DynamoDB endpoint. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoDBClient, CreateTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { main } from '../../src/cli/main.js';
import { forwardLine } from '../../src/cli/commands/hub.js';
import type { HubStatus } from '../../src/hub/start-hub.js';
import type { ForwardStatus } from '../../src/hub/forward/start-forwarder.js';
import { startDynalite, TEST_CREDENTIALS } from '../hub/forward/dynalite.js';
import { until, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('edgetable hub --port --forward-endpoint', () => {
  it('serves the API on the hub store and forwards what is written there, reporting its counters on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-forward-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const secretFile = join(dir, 'forward-secret');
    writeFileSync(secretFile, `${TEST_CREDENTIALS.secretAccessKey}\n`, { mode: 0o600 });
    const stop = new AbortController();
    let out = '';
    let err = '';
    const running = main(
      ['hub', '--path', dir, '--url', 'mqtt://127.0.0.1:9', '--port', '0', '--forward-endpoint', dynalite.endpoint,
        '--forward-access-key-id', TEST_CREDENTIALS.accessKeyId, '--forward-secret-access-key-file', secretFile],
      { out: (t) => void (out += t), err: (t) => void (err += t), errIsTty: false, signal: stop.signal },
    );
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    await until(() => /serving the DynamoDB API on http:\/\/127\.0\.0\.1:\d+/.test(out), 20_000, 'the API line');
    expect(out).toContain(`"forward":"${dynalite.endpoint}","msg":"edgetable hub forwarding to ${dynalite.endpoint}"}\n`);
    const api = /serving the DynamoDB API on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const hubClient = new DynamoDBClient({ endpoint: api, region: 'us-east-1', credentials: TEST_CREDENTIALS, maxAttempts: 1 });
    cleanups.push(() => hubClient.destroy());
    await hubClient.send(new CreateTableCommand({ TableName: 'Jobs', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' }));
    await hubClient.send(new PutItemCommand({ TableName: 'Jobs', Item: { id: { S: 'job-1' }, state: { S: 'assigned' } } }));
    // The status line is a log line now: its msg ends at the closing quote.
    await until(() => /forward: [1-9]\d* forwarded, 0 conditional skips, \d+ retries \(\d+ throttled, \d+ unprocessed\), 0 errors, 0 dead-lettered, lag 0 records \(oldest 0 s\)"/.test(err), 30_000, 'a forward status line with lag 0');
    const cloud = new DynamoDBClient({ endpoint: dynalite.endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS, maxAttempts: 1 });
    cleanups.push(() => cloud.destroy());
    const got = await cloud.send(new GetItemCommand({ TableName: 'Jobs', Key: { id: { S: 'job-1' } } }));
    expect(got.Item?.['state']).toEqual({ S: 'assigned' });
    stop.abort();
    expect(await running).toBe(0);
  }, 60_000);

  it('refuses an unknown forward write mode before starting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-forward-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let err = '';
    const code = await main(['hub', '--path', dir, '--url', 'mqtt://127.0.0.1:9', '--forward-endpoint', 'http://127.0.0.1:9', '--forward-write-mode', 'fast'], { out: () => undefined, err: (t) => void (err += t), errIsTty: false });
    expect({ code, err }).toEqual({ code: 2, err: 'error: --forward-write-mode must be conditional or batch, not fast\n' });
  });

  it("prints the forwarder's status line: dead letters, lag and its age, records missed, or why it did not start", () => {
    const forward: ForwardStatus = {
      endpoint: 'http://x', forwarded: 120, conditionalSkips: 1, retries: 3, throttled: 2, unprocessedItems: 1, errors: 0,
      permanentFailures: 2, deadLettered: 2, missedRecords: 0, lagRecords: 40, oldestUnforwardedAgeMs: 12_400, lag: [], tables: [],
    };
    const line = (f: ForwardStatus) => forwardLine({ forward: f } as HubStatus);
    expect(line(forward)).toBe('forward: 120 forwarded, 1 conditional skips, 3 retries (2 throttled, 1 unprocessed), 0 errors, 2 dead-lettered, lag 40 records (oldest 12 s)');
    expect(line({ ...forward, missedRecords: 25 })).toContain('lag 40 records (oldest 12 s), 25 pruned unforwarded');
    expect(line({ ...forward, refused: 'forwarding to http://x needs AWS credentials' })).toBe('forward: not started: forwarding to http://x needs AWS credentials');
  });
});
