import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { startBroker } from './broker.js';
import { kill, lastCount, spawnScript, type Child } from './fixtures/child.js';
import { tableContents, tempDb, tempPath, until, type Cleanup } from './fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ITEMS = Number(process.env.SYNC_CRASH_ITEMS ?? 10_000);

function device(path: string, url: string, from: number, to: number): Child {
  const child = spawnScript('test/sync/fixtures/device-process.ts', [path, url, 'dev-k', String(from), String(to)]);
  cleanups.push(() => kill(child, 'SIGKILL'));
  return child;
}

function hubProcess(path: string, url: string): Child {
  const child = spawnScript('test/hub/fixtures/hub-process.ts', [path, url]);
  cleanups.push(() => kill(child, 'SIGKILL'));
  return child;
}

describe('sync across crashes', () => {
  it(`device SIGKILLed mid-sync and restarted, hub SIGKILLed mid-apply and restarted: still exactly equal (${ITEMS} items)`, async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const devicePath = tempPath(cleanups, 'etb-device-');
    const hubPath = tempPath(cleanups, 'etb-hub-');

    let hub = hubProcess(hubPath, broker.url);
    await until(() => hub.lines.includes('ready'), 20_000, 'hub ready');
    let dev = device(devicePath, broker.url, 0, ITEMS);
    await until(() => lastCount(dev, 'written ') >= ITEMS / 3, 60_000, 'a third written');
    await kill(dev, 'SIGKILL');
    expect(dev.lines).not.toContain('flushed');

    dev = device(devicePath, broker.url, 0, ITEMS); // rewrites are identical overwrites: no new records
    await until(() => lastCount(hub, 'applied ') > 0, 30_000, 'hub applying');
    const before = lastCount(hub, 'applied ');
    await until(() => lastCount(hub, 'applied ') > before, 30_000, 'hub applying more');
    await kill(hub, 'SIGKILL');
    hub = hubProcess(hubPath, broker.url);
    await until(() => dev.lines.includes('flushed') || dev.proc.exitCode !== null, 90_000, 'device flushed');
    expect(dev.lines.filter((l) => l.startsWith('stderr'))).toEqual([]);
    await kill(dev, 'SIGTERM');
    await kill(hub, 'SIGTERM');

    const d = open({ path: devicePath });
    const deviceItems = tableContents(d, 'Readings');
    d.close();
    const h = open({ path: hubPath });
    const hubItems = tableContents(h, 'Readings');
    h.close();
    expect(deviceItems).toHaveLength(ITEMS);
    expect(hubItems).toEqual(deviceItems);
  }, 180_000);

  it('a sync agent in another process ships the writes of this process', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const { db, path } = tempDb(cleanups, 'etb-device-');
    const hubStore = tempDb(cleanups, 'etb-hub-');
    const hub = startHub({ db: hubStore.db, url: broker.url });
    cleanups.push(() => hub.stop());
    const { createReadings, writeReadings } = await import('./fixtures.js');
    createReadings(db);
    const agent = device(path, broker.url, 0, 0); // writes nothing itself
    await until(() => agent.lines.includes('flushed'), 30_000, 'agent ready');
    writeReadings(db, 0, 3000);
    await until(() => hubStore.db.context.catalog.find('Readings') !== undefined && tableContents(hubStore.db, 'Readings').length === 3000, 30_000, 'hub to receive the other process’s writes');
    expect(tableContents(hubStore.db, 'Readings')).toEqual(tableContents(db, 'Readings'));
  }, 60_000);
});
