/**
 * The first sync of a table that already holds items (replication/base-read.ts, sync/base-sender.ts):
 * the items go up as a base read, page by page after a durable cursor, never through the outbox;
 * writes racing it win at the hub; a broker outage and a restart of the agent resume it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import type { SyncHandle, SyncOptions } from '../../src/sync/sync-options.js';
import type { Edgetable } from '../../src/edgetable.js';
import { startBroker } from './broker.js';
import { createReadings, tableContents, tempDb, until, writeReadings, type Cleanup } from './fixtures.js';
import { createWorkOrders, deviceSync, hubAt, putOrder, siteContents, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ITEMS = 3000;
const PAGE = 100;

/** Records in the table's change log (the outbox), acknowledged or not. */
function loggedRecords(sync: SyncHandle): number {
  return sync.status().shards.reduce((n, s) => n + s.lastSeq, 0);
}

function baseOf(sync: SyncHandle) {
  return sync.status().tables[0]!;
}

function put(db: Edgetable, sensor: string, ts: number, v: number): void {
  db.putItem({ TableName: 'Readings', Item: { sensor: { S: sensor }, ts: { N: String(ts) }, v: { N: String(v) }, tag: { S: `raced-${v}` } } });
}

function remove(db: Edgetable, sensor: string, ts: number): void {
  db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: sensor }, ts: { N: String(ts) } } });
}

describe('first sync of a table that holds items (base read)', () => {
  it(`sends ${ITEMS} existing items page by page with writes racing it, through a broker outage and an agent restart; the outbox holds no base copy`, async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const device = tempDb(cleanups, 'etb-device-');
    const hubStore = tempDb(cleanups, 'etb-hub-');
    createReadings(device.db);
    writeReadings(device.db, 0, ITEMS); // keys s-(i % 64) / i
    const hub = startHub({ db: hubStore.db, url: broker.url });
    cleanups.push(() => hub.stop());
    const options: Omit<SyncOptions, 'db'> = { url: broker.url, deviceId: 'dev-1', tables: ['Readings'], batchMaxRecords: PAGE, ackTimeoutMs: 1000 };
    let sync = await device.db.startSync(options);
    let stopped = false;
    cleanups.push(() => (stopped ? undefined : sync.stop()));

    // Enabling sync copied nothing into the outbox: the base read is a state, not records.
    expect(loggedRecords(sync)).toBe(0);
    expect(baseOf(sync)).toMatchObject({ table: 'Readings', state: 'base', base: { total: ITEMS, done: false } });

    let racing = 0;
    const race = (from: number, to: number): void => {
      for (let i = from; i < to; i++) {
        if (i % 3 === 0) put(device.db, `s-${i % 64}`, i, 100_000 + i); // update an existing item
        else if (i % 3 === 1) remove(device.db, `s-${i % 64}`, i); // delete an existing one
        else put(device.db, `new-${i % 5}`, i, i); // insert a new one
        racing += 1;
      }
    };

    await until(() => (baseOf(sync).base?.acked ?? 0) >= 5 * PAGE, 20_000, 'five base pages acknowledged');
    race(0, 60); // early keys: probably sent already, so these must win over their base records
    race(2900, 2960); // late keys: not read yet, so the base read meets the new state

    await broker.outage();
    race(1500, 1530);
    await new Promise((r) => setTimeout(r, 300));
    await broker.restore();

    await until(() => (baseOf(sync).base?.acked ?? 0) >= 15 * PAGE, 30_000, 'fifteen base pages acknowledged');
    stopped = true;
    await sync.stop();
    const ackedAtStop = baseOf(sync).base!.acked;
    race(1000, 1030);
    sync = await device.db.startSync(options);
    stopped = false;
    // The cursor is durable: the new agent resumes after what the hub acknowledged.
    expect(baseOf(sync)).toMatchObject({ state: 'base', base: { acked: ackedAtStop } });

    await sync.flushed();
    expect(baseOf(sync)).toEqual({ table: 'Readings', state: 'log' });
    expect(tableContents(hubStore.db, 'Readings')).toEqual(tableContents(device.db, 'Readings'));
    // Only the racing writes were logged: no base copy ever entered the outbox.
    expect(loggedRecords(sync)).toBe(racing);
    expect(sync.status().shards.every((s) => s.lagRecords === 0)).toBe(true);
    expect(hub.status().gaps).toEqual([]);
  }, 90_000);

  it('reads the base once per table: a restart after it sends nothing, a re-created table is read again', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const device = tempDb(cleanups, 'etb-device-');
    const hubStore = tempDb(cleanups, 'etb-hub-');
    createReadings(device.db);
    writeReadings(device.db, 0, 500);
    const hub = startHub({ db: hubStore.db, url: broker.url });
    cleanups.push(() => hub.stop());
    const options: Omit<SyncOptions, 'db'> = { url: broker.url, deviceId: 'dev-1', tables: ['Readings'], batchMaxRecords: PAGE };
    const first = await device.db.startSync(options);
    await first.flushed();
    expect(first.status().recordsAcked).toBe(500);
    await first.stop();

    const again = await device.db.startSync(options);
    cleanups.push(() => again.stop());
    await until(() => again.status().online, 10_000, 'the agent online');
    await new Promise((r) => setTimeout(r, 300));
    expect(baseOf(again)).toEqual({ table: 'Readings', state: 'log' });
    expect(again.status().batchesSent).toBe(0);

    device.db.deleteTable({ TableName: 'Readings' });
    createReadings(device.db);
    writeReadings(device.db, 1000, 1200);
    await until(() => baseOf(again).state === 'base' || again.status().recordsAcked > 0, 10_000, 'the re-created table noticed');
    await again.flushed();
    expect(again.status().recordsAcked).toBe(200);
    expect(baseOf(again)).toEqual({ table: 'Readings', state: 'log' });
  }, 60_000);

  it("a two-way table's existing items reach the hub and another device subscribed to them", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const ns = uniqueNamespace();
    const { db: hubDb } = hubAt(cleanups, broker.url, ns);
    createWorkOrders(hubDb);
    const a = tempDb(cleanups, 'etb-a-');
    const c = tempDb(cleanups, 'etb-c-');
    createWorkOrders(a.db);
    for (let i = 0; i < 600; i++) putOrder(a.db, `site-${i % 3}`, `job-${i}`, 'open');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const, partitionKeys: ['site-1'] }];
    const sa = await deviceSync(cleanups, a.db, broker.url, ns, 'tech-a', spec, { batchMaxRecords: PAGE });
    const sc = await deviceSync(cleanups, c.db, broker.url, ns, 'tech-c', spec);
    await Promise.all([sa.caughtUp(), sc.caughtUp()]);
    putOrder(a.db, 'site-1', 'job-1', 'closed-on-a'); // newer than its base record, whichever arrives first
    await sa.flushed();
    await until(() => siteContents(c.db, 'site-1').length === 200 && siteContents(c.db, 'site-1').some((l) => l.includes('closed-on-a')), 15_000, "a's items at c");
    for (const site of ['site-0', 'site-1', 'site-2']) expect(siteContents(hubDb, site)).toEqual(siteContents(a.db, site));
    expect(siteContents(c.db, 'site-1')).toEqual(siteContents(hubDb, 'site-1'));
    // a kept every item it held (the down base read swept none of them away).
    expect(siteContents(a.db, 'site-0')).toHaveLength(200);
    expect(siteContents(a.db, 'site-1')).toHaveLength(200);
  }, 60_000);
});
