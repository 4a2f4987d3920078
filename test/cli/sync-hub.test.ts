/**
 * `edgetable sync` and `edgetable hub` say when the broker cannot be reached (and keep
 * retrying), and when it is reached again; `sync-status` shows the sync's connection state and
 * last error from the snapshot the running sync keeps in the store folder.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { readSyncStatusFile } from '../../src/cli/sync-status-file.js';
import { startHub } from '../../src/hub/start-hub.js';
import { startBroker } from '../sync/broker.js';
import { run, tempDir } from './run-cli.js';

function store(): string {
  const path = join(tempDir(), 'db');
  const db = open({ path });
  db.createTable({ TableName: 'Tab', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
  db.putItem({ TableName: 'Tab', Item: { id: { S: 'a' } } });
  db.close();
  return path;
}

/** The JSON log lines the command wrote on stderr. */
function logLines(err: string): Record<string, unknown>[] {
  return err.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('sync and hub: the broker connection', () => {
  it('sync says the broker is unreachable, keeps retrying, says when it connects; sync-status shows it', async () => {
    const broker = await startBroker();
    await broker.outage();
    const path = store();
    const stop = new AbortController();
    let err = '';
    const running = run(['sync', '--url', broker.url, '--device', 'pi-1', '--table', 'Tab', '--path', path], { signal: stop.signal, onErr: (t) => void (err += t) });
    try {
      await until(() => err.includes('sync: cannot reach the broker'), 'the unreachable line');
      const [first] = logLines(err);
      expect(first).toMatchObject({ level: 'warn', component: 'sync' });
      expect(first!['msg']).toMatch(new RegExp(`^sync: cannot reach the broker at ${broker.url.replaceAll('.', '\\.')}: .*ECONNREFUSED.*; retrying$`));
      await until(() => readSyncStatusFile(path) !== undefined, 'a status snapshot');
      expect(readSyncStatusFile(path)).toMatchObject({ running: true, online: false, deviceId: 'pi-1', url: broker.url, lastError: expect.stringContaining('ECONNREFUSED') });

      await broker.restore();
      await until(() => err.includes('sync: connected to the broker'), 'the connected line');
      await until(() => readSyncStatusFile(path)?.online === true, 'an online snapshot');
      expect(err.split('\n').filter((l) => l.includes('cannot reach'))).toHaveLength(1); // said once, not per retry
      await broker.outage();
      await until(() => err.includes('sync: lost the broker'), 'the lost line');
      await until(() => readSyncStatusFile(path)?.online === false, 'an offline snapshot');
    } finally {
      stop.abort();
      await broker.stop();
    }
    const r = await running;
    expect(r.code).toBe(0);
    expect(logLines(r.out)).toEqual([
      expect.objectContaining({ level: 'info', component: 'sync', tables: ['Tab'], device: 'pi-1', url: broker.url, msg: `edgetable syncing Tab from ${path} as pi-1 to ${broker.url}` }),
    ]);

    const status = await run(['sync-status', '--path', path]);
    expect(status.code).toBe(0);
    const [connection, header, row, base] = status.out.split('\n');
    expect(connection).toMatch(new RegExp(`^sync: not running \\(pid ${process.pid}, last snapshot \\S+\\); last error: .*ECONNREFUSED`));
    expect(header).toBe('table\tshard\tparent\tlastSeq\tackedSeq\tlagRecords\tlagBytes\tlagSeconds');
    // The item Tab held goes up as the first sync's base read, not through the change log; no hub answered.
    expect(row).toBe('(no change-log shards: nothing is logged on this store yet)');
    expect(base).toBe("Tab: first sync's base read running, 0/1 items acknowledged");
    const json = JSON.parse((await run(['sync-status', '--json', '--path', path])).out);
    expect(json.connection).toMatchObject({ running: false, online: false, deviceId: 'pi-1' });
    expect(json.shards).toEqual([]);
    expect(json.baseReads).toEqual([expect.objectContaining({ table: 'Tab', total: 1, acked: 0, done: false })]);
  }, 60_000);

  it('sync-status on a store no sync has run on says so', async () => {
    const status = await run(['sync-status', '--path', store()]);
    expect(status.out.split('\n')[0]).toBe('sync: no sync has run on this store');
  });

  it('hub says the broker is unreachable and keeps retrying', async () => {
    const broker = await startBroker();
    await broker.outage();
    const stop = new AbortController();
    let err = '';
    const running = run(['hub', '--url', broker.url, '--path', join(tempDir(), 'hub')], { signal: stop.signal, onErr: (t) => void (err += t) });
    try {
      await until(() => err.includes('hub: cannot reach the broker'), 'the unreachable line');
      await broker.restore();
      await until(() => err.includes('hub: connected to the broker'), 'the connected line');
    } finally {
      stop.abort();
      await broker.stop();
    }
    expect((await running).code).toBe(0);
  }, 60_000);

  it("sync-status names a table whose definition conflicts with the hub's", async () => {
    const broker = await startBroker();
    const hubDb = open({ path: join(tempDir(), 'hub') });
    // The hub's Tab has another key schema than the device's (id S).
    hubDb.createTable({ TableName: 'Tab', KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'site', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    const hub = startHub({ db: hubDb, url: broker.url });
    const path = store();
    const stop = new AbortController();
    const running = run(['sync', '--url', broker.url, '--device', 'pi-2', '--table', 'Tab', '--path', path], { signal: stop.signal });
    try {
      await until(() => hub.status().schemaConflicts.length === 1, 'the conflict at the hub');
      await new Promise((r) => setTimeout(r, 300)); // the hub's 'conflict' answer reaching the device
    } finally {
      stop.abort();
      expect((await running).code).toBe(0);
      await hub.stop();
      hubDb.close();
      await broker.stop();
    }
    const status = await run(['sync-status', '--path', path]);
    expect(status.out).toContain("Tab: not sent, its definition conflicts with the hub's: key schema differs: the hub's Tab has site (S, HASH), this device's has id (S, HASH)\n");
  }, 60_000);
});

describe('edgetable sync flags', () => {
  it('refuses a version horizon that is not a positive number of days, before connecting', async () => {
    for (const bad of ['0', '-3', 'soon']) {
      const r = await run(['sync', '--path', store(), '--url', 'mqtt://127.0.0.1:9', '--device', 'd1', '--table', 'Tab:both', '--version-horizon-days', bad]);
      expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: `error: --version-horizon-days must be a positive number, not ${bad}\n` });
    }
  });
});
