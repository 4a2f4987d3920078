/**
 * A device whose store was salvaged (cli/commands/salvage.ts) gets back from the hub what it lost
 * of the tables it receives, at its next connect, and sends up nothing stale: salvage marks every
 * table for a re-read (replication/rebase-marks.ts), the device subscribes as a device with a new
 * copy and the hub answers with a base read; an item whose version record outlived it is put back
 * by its own version (replication/apply-down.ts). Writes the device made offline, still in its
 * outbox when the card failed, go up as usual, once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { salvageStore } from '../../src/cli/commands/salvage.js';
import { open, type Edgetable } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { readRebaseMark } from '../../src/replication/rebase-marks.js';
import { leafPagesOf, zeroPages } from '../storage/fixtures/leaf-pages.js';
import { startBroker } from './broker.js';
import { tableContents, tempPath, until, type Cleanup } from './fixtures.js';
import { createWorkOrders, deviceSync, hubAt, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SYNCED = 1200;
const OFFLINE = 30;
const TABLE = 'WorkOrders';

function writeOrders(db: Edgetable, from: number, to: number): void {
  for (let i = from; i < to; i += 25) {
    const puts = [];
    for (let j = i; j < Math.min(to, i + 25); j++) {
      puts.push({ PutRequest: { Item: { site: { S: `site-${j % 5}` }, job: { S: `job-${String(j).padStart(6, '0')}` }, state: { S: `st-${j % 3}` }, note: { S: `n${j}-`.padEnd(120, 'x') } } } });
    }
    db.batchWriteItem({ RequestItems: { [TABLE]: puts } });
  }
}

function openDevice(path: string): Edgetable {
  const db = open({ path });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return db;
}

describe('a salvaged device', () => {
  it('gets back from the hub what it lost, sends its surviving offline writes once, and nothing stale', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, broker.url, ns);
    createWorkOrders(hubDb, 2);
    const spec = [{ name: TABLE, direction: 'both' as const }];

    // The device receives the table from the hub, writes SYNCED items, all acknowledged.
    const devicePath = tempPath(cleanups, 'etb-dev-');
    const device = openDevice(devicePath);
    const first = await deviceSync(cleanups, device, broker.url, ns, 'van-9', spec);
    await first.caughtUp();
    writeOrders(device, 0, SYNCED);
    await first.flushed();
    await until(() => tableContents(hubDb, TABLE).length === SYNCED, 30_000, 'the hub to hold every item');
    await until(() => hub.status().down!.subscriptions.some((s) => s.device === 'van-9' && s.state === 'delta'), 10_000, 'the hub to follow the device in delta');
    await first.stop();
    // Offline: writes that stay in the outbox.
    writeOrders(device, SYNCED, SYNCED + OFFLINE);
    const expected = [...tableContents(device, TABLE)];
    device.close();

    // The card fails: leaf pages of the table's partition (one: its copy of the hub's table) are
    // zeroed; salvage copies the rest.
    const leaves = leafPagesOf(devicePath, `t/${TABLE}/p/0`);
    const damaged = [...leaves.slice(1, 4), ...leaves.slice(40, 42)];
    expect(damaged.length).toBe(5);
    zeroPages(devicePath, damaged);
    const salvagedPath = tempPath(cleanups, 'etb-salvaged-');
    const report = salvageStore(devicePath, salvagedPath);
    expect(report.indexDifferences).toBe(0);
    expect(report.rebase).toEqual([TABLE]);
    const lostItems = report.databases.filter((db) => db.name.startsWith(`t/${TABLE}/p/`) && !db.name.includes('/lsi/')).reduce((n, db) => n + db.expected - db.copied, 0);
    expect(lostItems).toBeGreaterThan(20);
    const outbox = report.databases.filter((db) => db.name.startsWith(`t/${TABLE}/s/`));
    expect(outbox.every((db) => db.lost.length === 0 && db.copied === db.expected)).toBe(true);

    const before = hub.status();
    const salvaged = openDevice(salvagedPath);
    expect(tableContents(salvaged, TABLE).length).toBe(SYNCED + OFFLINE - lostItems);
    const back = await deviceSync(cleanups, salvaged, broker.url, ns, 'van-9', spec);
    await until(() => (back.status().down?.[0]?.basesCompleted ?? 0) >= 1, 30_000, 'the re-read to complete');
    await back.flushed();
    await until(() => tableContents(salvaged, TABLE).length === SYNCED + OFFLINE, 30_000, 'the device to hold every item again');

    expect(tableContents(salvaged, TABLE)).toEqual(expected);
    expect(tableContents(hubDb, TABLE)).toEqual(expected);
    expect(salvaged.verify().Differences).toBe(0);
    const byState = salvaged.execute('Query', { TableName: TABLE, IndexName: 'byState', KeyConditionExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':s': { S: 'st-1' } }, Select: 'COUNT' }) as { Count: number };
    expect(byState.Count).toBe(expected.filter((line) => line.includes('"st-1"')).length);
    // The request to re-read is over; the device's own items never went up again.
    expect(salvaged.store.read((txn) => readRebaseMark(txn, salvaged.store.database(SYNC_DB), TABLE))).toBeUndefined();
    const after = hub.status();
    expect(after.recordsApplied - before.recordsApplied).toBe(OFFLINE);
    expect(after.duplicateRecords).toBe(before.duplicateRecords);
    expect(after.recordsSuperseded).toBe(before.recordsSuperseded);
    expect(after.down!.baseReads - before.down!.baseReads).toBeGreaterThanOrEqual(1);
    expect(back.status().down![0]!.itemsSwept).toBe(0);

    // Afterwards the device follows the delta: a hub write arrives, no further base read.
    hubDb.putItem({ TableName: TABLE, Item: { site: { S: 'site-1' }, job: { S: 'hub-1' }, state: { S: 'st-0' } } });
    await until(() => salvaged.getItem({ TableName: TABLE, Key: { site: { S: 'site-1' }, job: { S: 'hub-1' } } }).Item !== undefined, 10_000, 'the delta');
    expect(back.status().down![0]!.basesCompleted).toBe(1);
  }, 120_000);
});
