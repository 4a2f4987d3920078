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
// The device writes in about 40 paced steps whatever ITEMS is, so that "killed mid-sync" and
// "killed mid-apply" hold at any size: in fixed steps of 250 and unpaced, 1,000 items were all
// written (and applied) before the test read the first progress line, and the wait for the hub to
// apply more never ended.
const STEP_ITEMS = Math.min(250, Math.max(25, Math.ceil(ITEMS / 40)));
const STEP_PAUSE_MS = 10;
// Waits that depend on the amount of data grow with it past the default size (about 25 s at
// 10,000 items on the 2-core CI machine); start-up waits do not.
const SCALE = Math.max(1, ITEMS / 10_000);

function device(path: string, url: string, from: number, to: number): Child {
  const child = spawnScript('test/sync/fixtures/device-process.ts', [path, url, 'dev-k', String(from), String(to), String(STEP_ITEMS), String(STEP_PAUSE_MS)]);
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
    await until(() => lastCount(dev, 'written ') >= ITEMS / 3, 60_000 * SCALE, 'a third written');
    await kill(dev, 'SIGKILL');
    const deviceKilledAt = lastCount(dev, 'written ');
    expect(dev.lines).not.toContain('flushed');
    expect(deviceKilledAt, 'the device is killed before it wrote everything').toBeLessThan(ITEMS);

    dev = device(devicePath, broker.url, 0, ITEMS); // rewrites are identical overwrites: no new records
    await until(() => lastCount(hub, 'applied ') > 0, 30_000, 'hub applying');
    const before = lastCount(hub, 'applied ');
    // Ends also once the device is flushed, when nothing is left to apply: the check below then
    // says the kill came too late, instead of this wait running into its timeout.
    await until(() => lastCount(hub, 'applied ') > before || dev.lines.includes('flushed'), 30_000 * SCALE, 'hub applying more');
    await kill(hub, 'SIGKILL');
    const hubKilledAt = { applied: lastCount(hub, 'applied '), deviceWritten: lastCount(dev, 'written ') };
    console.log(`sync crash: ${ITEMS} items in steps of ${STEP_ITEMS}; device killed after writing ${deviceKilledAt}; hub killed after applying ${hubKilledAt.applied} records, the device at ${hubKilledAt.deviceWritten} written`);
    expect(dev.lines, 'the hub is killed before the last write of the device is acknowledged').not.toContain('flushed');
    hub = hubProcess(hubPath, broker.url);
    await until(() => dev.lines.includes('flushed') || dev.proc.exitCode !== null, 90_000 * SCALE, 'device flushed');
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
  }, 180_000 * SCALE);

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
