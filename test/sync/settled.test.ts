/**
 * A device's sync commits run on a libuv worker (store.writeAsync): LMDB makes their data visible
 * to every reader at commit, a moment before the agent's JavaScript learns of it and updates
 * status() and tells db.observe. `sync.settled()` waits for the message in hand; `flushed()`
 * resolves only once each ack it waited for is fully handled (sync-agent.ts).
 *
 * The device store's writeAsync resolves LAG_MS after its commit here, so that moment is long
 * enough to see: the data is already readable while the counters are not updated yet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startBroker } from './broker.js';
import { tempDb, until, type Cleanup } from './fixtures.js';
import { createWorkOrders, deviceSync, getOrder, hubAt, putOrder, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const LAG_MS = 300;

/** writeAsync resolves LAG_MS after the commit (the data is visible meanwhile). */
function lagAfterCommit(db: Edgetable): void {
  const writeAsync = db.store.writeAsync.bind(db.store);
  db.store.writeAsync = async (fn) => {
    const result = await writeAsync(fn);
    await new Promise((r) => setTimeout(r, LAG_MS));
    return result;
  };
}

describe('sync: settled() and flushed() with commits on a worker', () => {
  it('a received item is readable before it is counted; settled() waits for its count and its observers', async () => {
    const b = await startBroker();
    cleanups.push(() => b.stop());
    const ns = uniqueNamespace();
    const { db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    const device = tempDb(cleanups, 'etb-settled-');
    const sync = await deviceSync(cleanups, device.db, b.url, ns, 'tab-1', [{ name: 'WorkOrders', direction: 'down', partitionKeys: ['site-7'] }]);
    await sync.caughtUp();
    lagAfterCommit(device.db);
    const seen: string[] = [];
    cleanups.push(device.db.observe('WorkOrders', (c) => void seen.push((c.dynamodb.Keys['job'] as { S: string }).S)));
    const applied = () => sync.status().down![0]!.recordsApplied;
    const before = applied();

    putOrder(hubDb, 'site-7', 'j1', 'assigned');
    await until(() => getOrder(device.db, 'site-7', 'j1') !== undefined, 10_000, 'the hub write at the device');
    // Committed, so readable; its handler still waits for writeAsync to return. (Observers are
    // told when the worker returns, before that; settled() covers them too.)
    expect(applied()).toBe(before);
    await sync.settled();
    expect(seen).toEqual(['j1']);
    expect(applied()).toBe(before + 1);
  }, 30_000);

  it('flushed() resolves only once the ack is counted, though the moved cursor is readable before', async () => {
    const b = await startBroker();
    cleanups.push(() => b.stop());
    const ns = uniqueNamespace();
    const { db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    const device = tempDb(cleanups, 'etb-flushed-');
    createWorkOrders(device.db);
    const sync = await deviceSync(cleanups, device.db, b.url, ns, 'tab-2', [{ name: 'WorkOrders', direction: 'both', partitionKeys: ['site-7'] }]);
    await sync.caughtUp();
    await sync.flushed();
    lagAfterCommit(device.db);
    const acked = sync.status().recordsAcked;

    putOrder(device.db, 'site-7', 'j2', 'done');
    await sync.flushed();
    expect(sync.status().recordsAcked).toBe(acked + 1);
    expect(sync.status().shards.every((s) => s.lagRecords === 0)).toBe(true);
  }, 30_000);
});
