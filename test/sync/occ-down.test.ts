/**
 * Optimistic concurrency with two-way sync (docs/sync.md, "Optimistic concurrency"): a device whose
 * write the hub refused puts the hub's item back AND the hub's version of it (the per-item version
 * record that last-writer-wins compares down records with), so the hub's later writes of that key
 * reach it even when their clocks are behind the refused write's. Through a broker (MQTT_URL, else
 * embedded aedes) and a hub.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { ValidationException } from '../../src/model/errors.js';
import { resolveSyncOptions } from '../../src/sync/sync-options.js';
import { startBroker } from './broker.js';
import { tempPath, until, type Cleanup } from './fixtures.js';
import { deviceSync, createWorkOrders, getOrder, hubAt, siteContents, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const RULE = { strategy: 'version', attribute: 'version' } as const;
const TABLES = [{ name: 'WorkOrders', direction: 'both' as const, conflict: RULE }];

function putJob(db: Edgetable, version: number, state: string): void {
  db.putItem({ TableName: 'WorkOrders', Item: { site: { S: 'site-7' }, job: { S: 'j1' }, state: { S: state }, version: { N: String(version) } } });
}

function jobOf(db: Edgetable): string | undefined {
  const item = getOrder(db, 'site-7', 'j1') as { state: { S: string }; version: { N: string } } | undefined;
  return item ? `${item.version.N} ${item.state.S}` : undefined;
}

/** A device store whose wall clock runs `aheadMs` ahead of the others'. */
function deviceDb(aheadMs: number): Edgetable {
  const db = open({ path: tempPath(cleanups, 'etb-occ-down-'), now: () => Date.now() + aheadMs });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return db;
}

describe('a refused write on a table synced both ways', () => {
  it('restores the hub item with its version: later hub writes of the key, older by the clock than the refused write, still reach the device', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, broker.url, ns, { conflicts: { WorkOrders: RULE } });
    createWorkOrders(hubDb);
    putJob(hubDb, 1, 'assigned');

    const a = deviceDb(0);
    const b = deviceDb(20_000); // van-b's clock is 20 s ahead: its writes carry later HLCs than van-a's
    const syncA = await deviceSync(cleanups, a, broker.url, ns, 'van-a', TABLES, { ackTimeoutMs: 2000 });
    let syncB = await deviceSync(cleanups, b, broker.url, ns, 'van-b', TABLES, { ackTimeoutMs: 2000 });
    await Promise.all([syncA.caughtUp(), syncB.caughtUp()]);
    await until(() => jobOf(a) === '1 assigned' && jobOf(b) === '1 assigned', 10_000, 'version 1 down to both vans');

    // Concurrent edits of version 1: van-b offline, van-a's edit reaches the hub first.
    await syncB.stop();
    putJob(b, 2, 'parts ordered by b');
    putJob(a, 2, 'started by a');
    await syncA.flushed();
    expect(jobOf(hubDb)).toBe('2 started by a');

    // van-b comes back: its edit is refused and its copy put back to the hub's.
    syncB = await deviceSync(cleanups, b, broker.url, ns, 'van-b', TABLES, { ackTimeoutMs: 2000 });
    // (flushed(): the batch goes at once, not when the wall clock reaches its 20 s-ahead time.)
    await Promise.all([syncB.caughtUp(), syncB.flushed()]);
    await until(() => syncB.status().rejectedWrites === 1 && jobOf(b) === '2 started by a', 10_000, "van-b's edit refused and restored");
    expect(syncB.status().lastRejections[0]).toMatchObject({ restored: true });

    // van-a edits the hub's version 2 (its clock still behind van-b's refused write): accepted at
    // the hub, and it must reach van-b too.
    putJob(a, 3, 'done by a');
    await syncA.flushed();
    expect(jobOf(hubDb)).toBe('3 done by a');
    await until(() => jobOf(b) === '3 done by a', 10_000, "van-a's version 3 down to van-b");

    // And a later back-office write reaches both.
    putJob(hubDb, 4, 'closed');
    await until(() => jobOf(a) === '4 closed' && jobOf(b) === '4 closed', 10_000, 'the hub write down to both vans');
    expect(siteContents(a, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(b, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(hub.status().versionConflicts).toBe(1);
    expect(syncA.status().rejectedWrites).toBe(0);
  }, 60_000);
});

describe("a table's conflict rule in its entry of startSync's tables", () => {
  it('is the same rule as the top-level conflicts: a delete carries its base and the hub accepts it', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, broker.url, ns, { conflicts: { WorkOrders: RULE } });
    createWorkOrders(hubDb);
    putJob(hubDb, 1, 'assigned');
    const van = deviceDb(0);
    const sync = await deviceSync(cleanups, van, broker.url, ns, 'van-a', TABLES, { ackTimeoutMs: 2000 });
    await sync.caughtUp();
    await until(() => jobOf(van) === '1 assigned', 10_000, 'version 1 down');
    // Without the device's rule its change log keeps no base item, and the hub refuses a delete.
    van.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j1' } } });
    await sync.flushed();
    expect(sync.status().rejectedWrites).toBe(0);
    expect(hub.status().versionConflicts).toBe(0);
    expect(jobOf(hubDb)).toBeUndefined();
  }, 30_000);

  it('resolves with the top-level conflicts, which keep working', () => {
    const db = deviceDb(0);
    const other = { strategy: 'version', attribute: 'rev' } as const;
    const o = resolveSyncOptions({ db, url: 'mqtt://127.0.0.1:1', deviceId: 'd', tables: [...TABLES, 'Readings'], conflicts: { Readings: other } });
    expect(o.conflicts).toEqual({ WorkOrders: RULE, Readings: other });
  });

  it('is validated: a bad strategy or attribute, or a rule different from the top-level one, is a ValidationException naming the table', async () => {
    const db = deviceDb(0);
    const url = 'mqtt://127.0.0.1:1';
    const start = (conflict: unknown, conflicts?: unknown) =>
      db.startSync({ url, deviceId: 'd', tables: [{ name: 'WorkOrders', direction: 'both', conflict: conflict as never }], ...(conflicts ? { conflicts: conflicts as never } : {}) });
    await expect(start({ strategy: 'newest' })).rejects.toThrow(ValidationException);
    await expect(start({ strategy: 'newest' })).rejects.toThrow("conflict of WorkOrders.strategy must be 'version' or 'last-writer-wins', not \"newest\"");
    await expect(start({ strategy: 'version' })).rejects.toThrow('conflict of WorkOrders.attribute must name the version attribute (1 to 255 characters), not undefined');
    await expect(start({ strategy: 'version', attribute: '' })).rejects.toThrow('conflict of WorkOrders.attribute must name the version attribute');
    await expect(start('version')).rejects.toThrow("conflict of WorkOrders must be { strategy: 'version', attribute } or { strategy: 'last-writer-wins' }");
    await expect(start(RULE, { WorkOrders: { strategy: 'version', attribute: 'rev' } })).rejects.toThrow('conflict of WorkOrders differs from conflicts.WorkOrders; give the rule once');
    await expect(start(RULE, { WorkOrders: { strategy: 'sometimes' } })).rejects.toThrow("conflicts.WorkOrders.strategy must be 'version' or 'last-writer-wins'");
  });
});
