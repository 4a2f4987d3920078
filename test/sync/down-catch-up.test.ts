/**
 * Two-way sync, the down direction over time: a device away longer than the version horizon
 * re-reads its partitions whole, then follows the log; a long catch-up stays within the flow
 * control bounds; hub and device restarts resume from the hub's durable cursors, and a base-done
 * the device already applied, sent again, changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { readBasePage, type BaseProgress } from '../../src/replication/base-reader.js';
import { readDownState, writeDownState } from '../../src/replication/down-state.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { readIncarnation } from '../../src/stream/store-identity.js';
import { decodeDownMessage } from '../../src/sync/protocol/down-messages.js';
import { Topics } from '../../src/sync/protocol/topics.js';
import { connect } from 'mqtt';
import { startBroker } from './broker.js';
import { tempDb, tempPath, until, type Cleanup } from './fixtures.js';
import { createWorkOrders, deviceSync, getOrder, hubAt, putOrder, siteContents, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CATCH_UP_ITEMS = Number(process.env.SYNC_DOWN_ITEMS ?? 20_000);

async function broker() {
  const b = await startBroker();
  cleanups.push(() => b.stop());
  return b;
}

function writeOrders(db: Edgetable, site: string, from: number, to: number): void {
  for (let i = from; i < to; i += 25) {
    const puts = [];
    for (let j = i; j < Math.min(to, i + 25); j++) puts.push({ PutRequest: { Item: { site: { S: site }, job: { S: `job-${String(j).padStart(6, '0')}` }, state: { S: 'assigned' }, n: { N: String(j) } } } });
    db.batchWriteItem({ RequestItems: { WorkOrders: puts } });
  }
}

/** A hub on a store at `path` holding `count` orders of site-7 (written before it starts). */
function hubWithOrders(path: string, url: string, namespace: string, count: number) {
  const hubDb = open({ path });
  createWorkOrders(hubDb);
  writeOrders(hubDb, 'site-7', 0, count);
  return { hubDb, hub: startHub({ db: hubDb, url, namespace, downPollMs: 10 }) };
}

/** The hub again on the store at `path` (closed by the caller), stopped and closed after the test. */
function reopenHub(path: string, url: string, namespace: string) {
  const hubDb = open({ path });
  const hub = startHub({ db: hubDb, url, namespace, downPollMs: 10 });
  cleanups.push(async () => {
    await hub.stop();
    hubDb.close();
  });
  return { hubDb, hub };
}

describe('two-way sync: down, over time', () => {
  it('a device away longer than the version horizon re-reads its partitions whole (deletes included), then follows the delta', async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, b.url, ns, { versionHorizonMs: 400, versionCollectIntervalMs: 0, logPruneIntervalMs: 0 });
    createWorkOrders(hubDb);
    for (const j of ['j1', 'j2', 'j3', 'j4', 'j5']) putOrder(hubDb, 'site-7', j, 'assigned');
    const a = tempDb(cleanups, 'etb-a-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const, partitionKeys: ['site-7'] }];
    const first = await deviceSync(cleanups, a.db, b.url, ns, 'van-1', spec);
    await first.caughtUp();
    expect(siteContents(a.db, 'site-7')).toHaveLength(5);
    await first.stop();

    // Away: the hub deletes j1 and changes j2; the device makes a job of its own.
    hubDb.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j1' } } });
    putOrder(hubDb, 'site-7', 'j2', 'reassigned');
    putOrder(hubDb, 'site-7', 'j6', 'assigned');
    putOrder(a.db, 'site-7', 'a1', 'found-on-site');
    await new Promise((r) => setTimeout(r, 600));
    hub.collectVersions(); // the horizon passed: tombstones collected, the log pruned below the device's cursor
    expect(hub.status().logRecordsPruned).toBeGreaterThan(0);

    const back = await deviceSync(cleanups, a.db, b.url, ns, 'van-1', spec);
    await back.flushed();
    await back.caughtUp();
    await until(() => JSON.stringify(siteContents(a.db, 'site-7')) === JSON.stringify(siteContents(hubDb, 'site-7')), 10_000, 'the device to equal the hub');
    const down = back.status().down![0]!;
    expect(down.basesCompleted).toBe(1);
    expect(down.itemsSwept).toBe(1); // j1: its tombstone no longer exists anywhere, the base read removed it
    expect(getOrder(a.db, 'site-7', 'j1')).toBeUndefined();
    expect(getOrder(hubDb, 'site-7', 'a1')).toBeDefined();

    // Then the delta: a later hub write arrives without another base read.
    putOrder(hubDb, 'site-7', 'j7', 'assigned');
    await until(() => getOrder(a.db, 'site-7', 'j7') !== undefined, 10_000, 'the delta after the base');
    expect(back.status().down![0]!.basesCompleted).toBe(1);
  }, 30_000);

  it(`catches up ${CATCH_UP_ITEMS} hub writes with at most 2 down messages of at most 500 records in flight`, async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, b.url, ns, { downBatchRecords: 500, downMaxInFlight: 2 });
    createWorkOrders(hubDb, 4);
    const device = tempDb(cleanups, 'etb-dev-');
    const spec = [{ name: 'WorkOrders', direction: 'down' as const, partitionKeys: ['site-7'] }];
    const first = await deviceSync(cleanups, device.db, b.url, ns, 'van-2', spec);
    await first.caughtUp();
    // The device is caught up once it handled "base done"; the hub moves to the delta once that
    // ack reached it. Stopping before would leave the base read to finish in the next session.
    await until(() => hub.status().down!.subscriptions.some((s) => s.device === 'van-2' && s.state === 'delta'), 10_000, 'the hub to take the base read as done');
    await first.stop();
    writeOrders(hubDb, 'site-7', 0, CATCH_UP_ITEMS);
    writeOrders(hubDb, 'site-9', 0, 1000); // not subscribed: never sent
    const sentBefore = hub.status().down!.messagesSent;
    const started = Date.now();
    const back = await deviceSync(cleanups, device.db, b.url, ns, 'van-2', spec);
    await until(() => siteContents(device.db, 'site-7').length === CATCH_UP_ITEMS, 120_000, 'the catch-up');
    const elapsed = Date.now() - started;
    await back.settled(); // the last down message is visible once committed, counted once settled
    const status = hub.status().down!;
    console.log(`down catch-up: ${CATCH_UP_ITEMS} records in ${elapsed} ms (${Math.round((CATCH_UP_ITEMS / elapsed) * 1000)} records/s), ${status.messagesSent - sentBefore} messages, at most ${status.maxInFlightSeen} in flight`);
    expect(status.maxInFlightSeen).toBeLessThanOrEqual(2);
    // One shard holds site-7: 500-record messages, nothing more (a resend after a time-out would add some).
    expect(status.messagesSent - sentBefore).toBeGreaterThanOrEqual(CATCH_UP_ITEMS / 500);
    expect(back.status().down![0]).toMatchObject({ recordsApplied: CATCH_UP_ITEMS, basesCompleted: 0 });
    expect(siteContents(device.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(device.db, 'site-9')).toEqual([]);
  }, 180_000);

  it('a restarted hub and a restarted device resume from the durable cursors, without a new base read', async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const path = tempPath(cleanups, 'etb-hub-');
    let { hubDb, hub } = hubWithOrders(path, b.url, ns, 100);
    const device = tempDb(cleanups, 'etb-dev-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const }];
    const sync = await deviceSync(cleanups, device.db, b.url, ns, 'van-3', spec);
    await sync.caughtUp();
    expect(sync.status().down![0]).toMatchObject({ basesCompleted: 1, recordsApplied: 100 });
    // (The hub moved to the delta once it received the device's ack of "base done".)
    await until(() => hub.status().down!.subscriptions.every((s) => s.state === 'delta'), 10_000, 'the hub to receive the last ack');

    // The hub restarts (store closed and opened again); what it writes next arrives as a delta.
    await hub.stop();
    hubDb.close();
    ({ hubDb, hub } = reopenHub(path, b.url, ns));
    writeOrders(hubDb, 'site-7', 100, 150);
    await until(() => siteContents(device.db, 'site-7').length === 150, 20_000, 'the writes after the hub restart');
    // A down message's writes are visible once committed (on a worker); it is counted once settled.
    await sync.settled();
    expect(hub.status().down!.baseReads).toBe(0);
    expect(sync.status().down![0]).toMatchObject({ basesCompleted: 1, recordsApplied: 150 });

    // The device restarts: it receives only what it missed.
    await until(() => hub.status().down!.subscriptions.every((s) => s.state === 'delta'), 10_000, 'the hub to receive the last ack');
    await sync.stop();
    writeOrders(hubDb, 'site-7', 150, 180);
    const again = await deviceSync(cleanups, device.db, b.url, ns, 'van-3', spec);
    await until(() => siteContents(device.db, 'site-7').length === 180, 20_000, 'the writes after the device restart');
    await again.settled();
    expect(again.status().down![0]).toMatchObject({ basesCompleted: 0, basePages: 0, recordsApplied: 30 });
    expect(hub.status().down!.baseReads).toBe(0);
    expect(siteContents(device.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
  }, 60_000);

  it("a device that stopped before the hub had its base-done ack gets base-done again, and keeps every item the base held", async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const path = tempPath(cleanups, 'etb-hub-');
    let { hubDb, hub } = hubWithOrders(path, b.url, ns, 60);
    // What the hub sends the device, as the broker delivers it: the base read's id.
    const watcher = connect(b.url, { clientId: `watch-${ns}` });
    cleanups.push(() => void watcher.end(true));
    const baseIds = new Set<string>();
    watcher.on('message', (_topic, payload) => {
      const m = decodeDownMessage(payload);
      if (m.kind === 'base-done') baseIds.add(m.baseId);
    });
    await new Promise<void>((resolve, reject) => watcher.subscribe(new Topics(ns).down('van-3'), { qos: 1 }, (err) => (err ? reject(err) : resolve())));
    const device = tempDb(cleanups, 'etb-dev-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const }];
    const first = await deviceSync(cleanups, device.db, b.url, ns, 'van-3', spec);
    await first.caughtUp();
    await until(() => baseIds.size === 1, 10_000, 'base-done seen on the broker');
    const [baseId] = [...baseIds];
    await until(() => hub.status().down!.subscriptions.every((s) => s.state === 'delta'), 10_000, 'the hub to receive the last ack');
    await first.stop();
    await hub.stop();

    // The hub's durable down state as it was before that ack: the same base read, every page acknowledged.
    const hubSync = hubDb.store.database(SYNC_DB);
    const deviceSyncDb = device.db.store.database(SYNC_DB);
    const incarnation = device.db.store.read((txn) => readIncarnation(txn, deviceSyncDb))!;
    const acked = hubDb.store.read((txn) => readDownState(txn, hubSync, 'van-3', incarnation, 'WorkOrders'))!;
    expect(acked.phase).toBe('delta');
    const table = hubDb.context.catalog.require('WorkOrders');
    let progress: BaseProgress = { pk: 0 };
    for (;;) {
      const page = readBasePage(hubDb.store, table, undefined, progress, 1000, 2 ** 20, () => ({ hlc: { ms: 0, counter: 0 }, device: '', incarnation: '' }));
      progress = page.next;
      if (page.done) break;
    }
    hubDb.store.write((txn) =>
      writeDownState(txn, hubSync, 'van-3', incarnation, 'WorkOrders', {
        fingerprint: acked.fingerprint,
        ...(acked.deviceTableId !== undefined ? { deviceTableId: acked.deviceTableId } : {}),
        phase: 'base',
        base: { id: baseId!, progress, start: acked.cursors },
        cursors: {},
      }),
    );
    hubDb.close();
    ({ hubDb, hub } = reopenHub(path, b.url, ns));

    const again = await deviceSync(cleanups, device.db, b.url, ns, 'van-3', spec);
    // A base-done lost before the device re-subscribed goes again after the hub's ack time-out and
    // back-off (5 s, then 5 s): allow for that.
    await until(() => hub.status().down!.subscriptions.some((s) => s.state === 'delta'), 30_000, 'the hub to receive the repeated ack');
    await again.settled();
    expect(hub.status().down!.baseReads).toBe(0);
    expect(again.status().down![0]).toMatchObject({ basesCompleted: 0, itemsSwept: 0 });
    expect(siteContents(device.db, 'site-7')).toHaveLength(60);
    expect(siteContents(device.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
  }, 90_000);
});
