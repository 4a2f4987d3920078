/** Two-way sync, the down direction: what the hub holds reaches the devices subscribed to it, and no other. */
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker } from './broker.js';
import { tempDb, until, type Cleanup } from './fixtures.js';
import { createWorkOrders, deviceSync, getOrder, hubAt, putOrder, siteContents, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function broker() {
  const b = await startBroker();
  cleanups.push(() => b.stop());
  return b;
}

describe('two-way sync: down', () => {
  it('a hub write reaches the devices subscribed to its partition key, and no other; the table is created with its index', async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    putOrder(hubDb, 'site-7', 'j1', 'assigned');
    putOrder(hubDb, 'site-9', 'j2', 'assigned');
    const seven = tempDb(cleanups, 'etb-dev7-');
    const nine = tempDb(cleanups, 'etb-dev9-');
    const s7 = await deviceSync(cleanups, seven.db, b.url, ns, 'tablet-7', [{ name: 'WorkOrders', direction: 'down', partitionKeys: ['site-7'] }]);
    const s9 = await deviceSync(cleanups, nine.db, b.url, ns, 'tablet-9', [{ name: 'WorkOrders', direction: 'both', partitionKeys: ['site-9'] }]);
    await Promise.all([s7.caughtUp(), s9.caughtUp()]);
    // Created from the hub's definition, its global index included.
    expect(seven.db.describeTable({ TableName: 'WorkOrders' }).Table.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['byState']);
    expect(siteContents(seven.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(seven.db, 'site-9')).toEqual([]);
    expect(siteContents(nine.db, 'site-9')).toEqual(siteContents(hubDb, 'site-9'));
    expect(siteContents(nine.db, 'site-7')).toEqual([]);

    // A later hub write (the back office assigns a job) reaches site 7's device only.
    putOrder(hubDb, 'site-7', 'j3', 'assigned');
    putOrder(hubDb, 'site-9', 'j4', 'assigned');
    await until(() => getOrder(seven.db, 'site-7', 'j3') !== undefined && getOrder(nine.db, 'site-9', 'j4') !== undefined, 10_000, 'hub writes down');
    await new Promise((r) => setTimeout(r, 200));
    expect(getOrder(seven.db, 'site-9', 'j4')).toBeUndefined();
    expect(getOrder(nine.db, 'site-7', 'j3')).toBeUndefined();
    const byState = seven.db.execute('Query', { TableName: 'WorkOrders', IndexName: 'byState', KeyConditionExpression: '#s = :a', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':a': { S: 'assigned' } } }) as { Count: number };
    expect(byState.Count).toBe(2);
    expect(hub.status().down?.subscriptions.map((s) => `${s.device}:${s.state}`).sort()).toEqual(['tablet-7:delta', 'tablet-9:delta']);
  }, 30_000);
});
