/**
 * The options of the long-running commands: --log-level (and EDGETABLE_LOG_LEVEL) for the JSON
 * log lines on stderr, and --metrics-port for hub, sync and bridge (serve answers /metrics on its
 * own port).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { parseExposition, valueOf } from '../metrics/parse-exposition.js';
import { startBroker } from '../sync/broker.js';
import { run, tempDir, type Run } from './run-cli.js';

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts a long-running command; resolves with its metrics URL once it printed it. */
async function startWithMetrics(argv: string[]): Promise<{ url: string; stop: () => Promise<Run> }> {
  const controller = new AbortController();
  let out = '';
  const running = run([...argv, '--metrics-port', '0'], { signal: controller.signal, onOut: (t) => void (out += t) });
  let exited = false;
  void running.then(() => (exited = true));
  await until(() => /"metrics":"(http:[^"]+)"/.test(out) || exited, 'the metrics line');
  const url = /"metrics":"(http:[^"]+)"/.exec(out)?.[1];
  if (!url) throw new Error(`no metrics line; output: ${out}; ${JSON.stringify(await running)}`);
  return {
    url,
    stop: async () => {
      controller.abort();
      return running;
    },
  };
}

async function scrape(url: string) {
  const r = await fetch(url);
  expect(r.status).toBe(200);
  return parseExposition(await r.text()).samples;
}

function store(): string {
  const path = join(tempDir(), 'db');
  const db = open({ path });
  db.createTable({ TableName: 'Tab', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
  db.putItem({ TableName: 'Tab', Item: { id: { S: 'a' } } });
  db.close();
  return path;
}

async function serveAndStop(argv: string[]): Promise<Run> {
  const stop = new AbortController();
  let out = '';
  const running = run(['serve', '--port', '0', ...argv], { signal: stop.signal, onOut: (t) => void (out += t) });
  await until(() => out.includes('serving'), 'serving');
  stop.abort();
  return running;
}

describe('--log-level', () => {
  const saved = process.env['EDGETABLE_LOG_LEVEL'];
  afterEach(() => {
    if (saved === undefined) delete process.env['EDGETABLE_LOG_LEVEL'];
    else process.env['EDGETABLE_LOG_LEVEL'] = saved;
  });

  it('refuses a level that is not one (usage error, exit 2)', async () => {
    const r = await run(['serve', '--path', join(tempDir(), 'db'), '--log-level', 'loud']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--log-level.*loud/);
  });

  it('at warn, an orderly stop logs nothing', async () => {
    const r = await serveAndStop(['--path', join(tempDir(), 'db'), '--log-level', 'warn']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });

  it('takes EDGETABLE_LOG_LEVEL when the option is absent', async () => {
    process.env['EDGETABLE_LOG_LEVEL'] = 'error';
    const quiet = await serveAndStop(['--path', join(tempDir(), 'db')]);
    expect(quiet.err).toBe('');
    process.env['EDGETABLE_LOG_LEVEL'] = 'debug';
    const r = await serveAndStop(['--path', join(tempDir(), 'db')]);
    expect(JSON.parse(r.err.split('\n')[0]!)).toMatchObject({ level: 'info', component: 'serve' });
  });
});

describe('--metrics-port', () => {
  it('hub: applied, duplicate and rejected counters and the broker connection', async () => {
    const broker = await startBroker();
    try {
      const hub = await startWithMetrics(['hub', '--url', broker.url, '--path', join(tempDir(), 'hub')]);
      let samples = await scrape(hub.url);
      expect(valueOf(samples, 'edgetable_hub_records_applied_total')).toBe(0);
      expect(valueOf(samples, 'edgetable_hub_batches_rejected_total')).toBe(0);
      const deadline = Date.now() + 20_000;
      while (valueOf(samples, 'edgetable_hub_broker_connected') !== 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        samples = await scrape(hub.url);
      }
      expect(valueOf(samples, 'edgetable_hub_broker_connected')).toBe(1);
      expect((await hub.stop()).code).toBe(0);
      await expect(fetch(hub.url)).rejects.toThrow();
    } finally {
      await broker.stop();
    }
  }, 60_000);

  it("sync: a first sync's base read, records acknowledged, the table's items", async () => {
    const broker = await startBroker();
    const path = store();
    try {
      const sync = await startWithMetrics(['sync', '--url', broker.url, '--device', 'pi-1', '--table', 'Tab', '--path', path]);
      const samples = await scrape(sync.url);
      // The store's one item goes up as the table's base read, not through its change log.
      expect(valueOf(samples, 'edgetable_sync_base_items', { table: 'Tab' })).toBe(1);
      expect(valueOf(samples, 'edgetable_sync_base_items_acked', { table: 'Tab' })).toBeLessThanOrEqual(1);
      expect(valueOf(samples, 'edgetable_sync_records_acked_total')).toBeGreaterThanOrEqual(0);
      expect(valueOf(samples, 'edgetable_table_items', { table: 'Tab' })).toBe(1);
      expect((await sync.stop()).code).toBe(0);
    } finally {
      await broker.stop();
    }
  }, 60_000);

  it('bridge: frames received, written and dropped', async () => {
    const bridge = await startWithMetrics(['bridge', '--udp', '127.0.0.1:0', '--allow-unauthenticated', '--path', join(tempDir(), 'db')]);
    const samples = await scrape(bridge.url);
    expect(valueOf(samples, 'edgetable_bridge_frames_received_total')).toBe(0);
    expect(valueOf(samples, 'edgetable_bridge_frames_dropped_total', { reason: 'corrupt' })).toBe(0);
    expect(valueOf(samples, 'edgetable_table_items', { table: 'Readings' })).toBe(0);
    const r = await bridge.stop();
    expect(r.code).toBe(0);
    expect(r.err.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).component)).toEqual(['bridge', 'bridge']);
  }, 60_000);
});

describe('--durability', () => {
  it('refuses a mode that is not one (usage error, exit 2)', async () => {
    const r = await run(['serve', '--path', join(tempDir(), 'db'), '--durability', 'fast']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--durability.*fast/);
  });

  it('sync --durability log opens its store through the redo log (the folder is claimed while it runs)', async () => {
    const broker = await startBroker();
    const path = store();
    try {
      const sync = await startWithMetrics(['sync', '--url', broker.url, '--device', 'pi-1', '--table', 'Tab', '--path', path, '--durability', 'log']);
      expect(readFileSync(join(path, 'redo.owner'), 'latin1').split('\n')[0]).toBe(String(process.pid)); // the CLI runs in this process here
      expect((await sync.stop()).code).toBe(0);
      expect(existsSync(join(path, 'redo.owner'))).toBe(false);
    } finally {
      await broker.stop();
    }
  }, 60_000);

  it('bridge --durability log opens its store through the redo log (the folder is claimed while it runs)', async () => {
    const path = join(tempDir(), 'db');
    const bridge = await startWithMetrics(['bridge', '--udp', '127.0.0.1:0', '--allow-unauthenticated', '--path', path, '--durability', 'log']);
    expect(existsSync(join(path, 'redo.owner'))).toBe(true);
    expect(readFileSync(join(path, 'redo.owner'), 'latin1').split('\n')[0]).toBe(String(process.pid)); // the CLI runs in this process here
    expect((await bridge.stop()).code).toBe(0);
    expect(existsSync(join(path, 'redo.owner'))).toBe(false);
  }, 60_000);

  it('bridge --durability interval opens its store through the redo log too (the folder is claimed while it runs)', async () => {
    const path = join(tempDir(), 'db');
    const bridge = await startWithMetrics(['bridge', '--udp', '127.0.0.1:0', '--allow-unauthenticated', '--path', path, '--durability', 'interval']);
    expect(readFileSync(join(path, 'redo.owner'), 'latin1').split('\n')[0]).toBe(String(process.pid));
    expect((await bridge.stop()).code).toBe(0);
    expect(existsSync(join(path, 'redo.owner'))).toBe(false);
  }, 60_000);
});
