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

    // A later hub write (the back office assigns a job) reaches site 7's device only, and its screens.
    const seen: string[] = [];
    const unobserve = seven.db.observe('WorkOrders', (c) => void seen.push(`${c.eventName} ${c.origin} ${c.deviceId} ${(c.dynamodb.Keys['job'] as { S: string }).S}`));
    cleanups.push(unobserve);
    putOrder(hubDb, 'site-7', 'j3', 'assigned');
    putOrder(hubDb, 'site-9', 'j4', 'assigned');
    await until(() => getOrder(seven.db, 'site-7', 'j3') !== undefined && getOrder(nine.db, 'site-9', 'j4') !== undefined, 10_000, 'hub writes down');
    await new Promise((r) => setTimeout(r, 200));
    expect(getOrder(seven.db, 'site-9', 'j4')).toBeUndefined();
    expect(getOrder(nine.db, 'site-7', 'j3')).toBeUndefined();
    const byState = seven.db.execute('Query', { TableName: 'WorkOrders', IndexName: 'byState', KeyConditionExpression: '#s = :a', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':a': { S: 'assigned' } } }) as { Count: number };
    expect(byState.Count).toBe(2);
    expect(seen).toEqual(['INSERT sync hub j3']);
    expect(hub.status().down?.subscriptions.map((s) => `${s.device}:${s.state}`).sort()).toEqual(['tablet-7:delta', 'tablet-9:delta']);
  }, 30_000);
});

describe('two-way sync: both directions', () => {
  it('updates from two devices and the hub converge by last-writer-wins; a device never gets its own writes back', async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const { db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    putOrder(hubDb, 'site-7', 'j1', 'assigned');
    const a = tempDb(cleanups, 'etb-a-');
    const c = tempDb(cleanups, 'etb-c-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const, partitionKeys: ['site-7'] }];
    const sa = await deviceSync(cleanups, a.db, b.url, ns, 'tech-a', spec);
    const sc = await deviceSync(cleanups, c.db, b.url, ns, 'tech-c', spec);
    await Promise.all([sa.caughtUp(), sc.caughtUp()]);
    const before = sa.status().down![0]!;

    // Device a writes new jobs and updates j1; c and the hub receive them; a receives nothing back.
    const atC: string[] = [];
    cleanups.push(c.db.observe('WorkOrders', (ch) => void atC.push(`${ch.eventName} ${ch.origin} ${ch.deviceId} ${(ch.dynamodb.Keys['job'] as { S: string }).S}`)));
    putOrder(a.db, 'site-7', 'j1', 'in-progress');
    putOrder(a.db, 'site-7', 'a1', 'created-on-a');
    await sa.flushed();
    const sentByA = sa.status().batchesSent;
    await until(() => (getOrder(c.db, 'site-7', 'a1') !== undefined && (getOrder(c.db, 'site-7', 'j1') as { state: { S: string } }).state.S === 'in-progress'), 10_000, 'a\'s writes at c');
    await sc.settled(); // c's down message is visible once committed (on a worker), observed once settled
    expect(siteContents(hubDb, 'site-7')).toEqual(siteContents(a.db, 'site-7'));
    expect(atC.sort()).toEqual(['INSERT sync tech-a a1', 'MODIFY sync tech-a j1']);
    await new Promise((r) => setTimeout(r, 200));
    const after = sa.status().down![0]!;
    expect(after.recordsApplied + after.recordsSuperseded).toBe(before.recordsApplied + before.recordsSuperseded);

    // Concurrent updates of one key at c and at the hub: the later clock wins everywhere.
    putOrder(c.db, 'site-7', 'j1', 'done-on-c');
    await new Promise((r) => setTimeout(r, 5));
    putOrder(hubDb, 'site-7', 'j1', 'cancelled-at-hub');
    await sc.flushed();
    const hubWins = () => [a.db, c.db, hubDb].every((d) => (getOrder(d, 'site-7', 'j1') as { state: { S: string } } | undefined)?.state.S === 'cancelled-at-hub');
    await until(hubWins, 10_000, 'the hub\'s later write to win everywhere');
    // What a received went nowhere: its cursor passed over it locally, and it sent no batch.
    await until(() => sa.status().shards.every((s) => s.lagRecords === 0), 5000, 'a\'s cursor past what it received');
    expect(sa.status().batchesSent).toBe(sentByA);
    expect(siteContents(a.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(c.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
  }, 30_000);

  it('deletes travel as tombstones both ways, and an older put does not resurrect them', async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const { db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    for (const j of ['j1', 'j2', 'j3']) putOrder(hubDb, 'site-7', j, 'assigned');
    const a = tempDb(cleanups, 'etb-a-');
    const c = tempDb(cleanups, 'etb-c-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const }];
    const sa = await deviceSync(cleanups, a.db, b.url, ns, 'tech-a', spec);
    const sc = await deviceSync(cleanups, c.db, b.url, ns, 'tech-c', spec);
    await Promise.all([sa.caughtUp(), sc.caughtUp()]);
    expect(siteContents(a.db, 'site-7')).toHaveLength(3);

    hubDb.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j1' } } });
    a.db.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j2' } } });
    await sa.flushed();
    const gone = (job: string) => [a.db, c.db, hubDb].every((d) => getOrder(d, 'site-7', job) === undefined);
    await until(() => gone('j1') && gone('j2'), 10_000, 'both deletes everywhere');

    // c goes offline; the hub deletes j3; c, not knowing, updates j3 with a clock that runs behind.
    await sc.stop();
    hubDb.deleteItem({ TableName: 'WorkOrders', Key: { site: { S: 'site-7' }, job: { S: 'j3' } } });
    const real = Date.now;
    Date.now = () => real() - 60_000;
    try {
      putOrder(c.db, 'site-7', 'j3', 'stale-update');
    } finally {
      Date.now = real;
    }
    // Back online: its older update loses to the tombstone at the hub, and the tombstone reaches c.
    const again = await deviceSync(cleanups, c.db, b.url, ns, 'tech-c', spec);
    await again.flushed();
    await until(() => gone('j3'), 10_000, 'the tombstone to win at c');
    expect(siteContents(a.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(c.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
  }, 30_000);
});

describe('two-way sync: subscriptions', () => {
  it('the hub refuses a subscription its authorizeSubscription hook does not allow; namespaces keep deployments apart', async () => {
    const b = await broker();
    const ns = uniqueNamespace();
    const asked: string[] = [];
    const { db: hubDb } = hubAt(cleanups, b.url, ns, {
      authorizeSubscription: (device, table, keys) => {
        asked.push(`${device}:${table}:${keys?.join(',') ?? '*'}`);
        return keys !== undefined && keys.every((k) => k === 'site-7');
      },
    });
    createWorkOrders(hubDb);
    putOrder(hubDb, 'site-7', 'j1', 'assigned');
    putOrder(hubDb, 'site-9', 'j2', 'assigned');
    // Another deployment on the same broker, under another namespace, with its own hub.
    const other = hubAt(cleanups, b.url, uniqueNamespace());
    createWorkOrders(other.db);
    putOrder(other.db, 'site-7', 'other-deployment', 'assigned');

    const allowed = tempDb(cleanups, 'etb-ok-');
    const greedy = tempDb(cleanups, 'etb-greedy-');
    const ok = await deviceSync(cleanups, allowed.db, b.url, ns, 'tablet-7', [{ name: 'WorkOrders', direction: 'down', partitionKeys: ['site-7'] }]);
    const no = await deviceSync(cleanups, greedy.db, b.url, ns, 'tablet-x', [{ name: 'WorkOrders', direction: 'down', partitionKeys: ['site-7', 'site-9'] }]);
    await ok.caughtUp();
    await until(() => no.status().down![0]!.state === 'refused', 10_000, 'the refusal');
    expect(no.status().down![0]!.lastMessage).toBe('device tablet-x is not allowed to subscribe to WorkOrders partitions site-7, site-9');
    expect(no.status().lastError).toMatch(/refused the subscription to WorkOrders/);
    expect(greedy.db.context.catalog.find('WorkOrders')).toBeUndefined();
    expect(asked).toContain('tablet-x:WorkOrders:site-7,site-9');
    expect(siteContents(allowed.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(getOrder(allowed.db, 'site-7', 'other-deployment')).toBeUndefined();
  }, 30_000);

  it('startSync refuses malformed table specifications with a clear message', async () => {
    const d = tempDb(cleanups, 'etb-bad-');
    const url = 'mqtt://127.0.0.1:1';
    await expect(d.db.startSync({ url, deviceId: 'd', tables: [{ name: 'T', direction: 'sideways' as never }] })).rejects.toThrow("direction of T must be 'up', 'down' or 'both'");
    await expect(d.db.startSync({ url, deviceId: 'd', tables: [{ name: 'T', partitionKeys: ['a'] }] })).rejects.toThrow("partitionKeys of T need direction 'down' or 'both'");
    await expect(d.db.startSync({ url, deviceId: 'd', tables: [{ name: 'T', direction: 'down', partitionKeys: [true as never] }] })).rejects.toThrow('must be a non-empty string, a finite number or binary');
    await expect(d.db.startSync({ url, deviceId: 'd', tables: ['T', { name: 'T', direction: 'down' }] })).rejects.toThrow('T is listed twice');
    await expect(d.db.startSync({ url, deviceId: 'd', namespace: 'a/+/b', tables: ['T'] })).rejects.toThrow('invalid namespace');
  });
});
