/**
 * Conflicts between two devices editing one item, through a broker (MQTT_URL, else embedded
 * aedes) and a hub: last-writer-wins by the hybrid logical clock by default; with a version rule
 * (replication/conflict-rule.ts, replication/version-check.ts) the first write to reach the hub wins, the other is
 * refused, and its device learns it with the refused item through status() and observe(), its
 * local copy put back to the hub's version, and nothing of it travelling up again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import type { TableChange } from '../../src/index.js';
import type { ConflictRules } from '../../src/replication/conflict-rule.js';
import { startBroker, type TestBroker } from './broker.js';
import { tempDb, type Cleanup } from './fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const VERSIONED: ConflictRules = { WorkOrders: { strategy: 'version', attribute: 'version' } };

function createWorkOrders(db: Edgetable): void {
  db.createTable({
    TableName: 'WorkOrders',
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

const job = (version: number, status: string) => ({ id: { S: 'job-1' }, version: { N: String(version) }, status: { S: status } });
const statusOf = (db: Edgetable) => {
  const item = db.getItem({ TableName: 'WorkOrders', Key: { id: { S: 'job-1' } } }).Item;
  return item ? [(item.status as { S: string }).S, (item.version as { N: string }).N] : undefined;
};

/** A hub and two devices that all hold job-1 at version 1 and are in sync. */
async function fleet(conflicts: ConflictRules | undefined) {
  const broker: TestBroker = await startBroker();
  cleanups.push(() => broker.stop());
  const hubDb = tempDb(cleanups, 'etb-occ-hub-').db;
  createWorkOrders(hubDb);
  hubDb.putItem({ TableName: 'WorkOrders', Item: job(1, 'open') });
  const hub = startHub({ db: hubDb, url: broker.url, ...(conflicts ? { conflicts } : {}) });
  cleanups.push(() => hub.stop());
  const devices = await Promise.all(
    ['van-a', 'van-b'].map(async (deviceId) => {
      const db = tempDb(cleanups, `etb-occ-${deviceId}-`).db;
      createWorkOrders(db);
      db.putItem({ TableName: 'WorkOrders', Item: job(1, 'open') }); // the copy both got from the back office
      const sync = await db.startSync({ url: broker.url, deviceId, tables: ['WorkOrders'], ackTimeoutMs: 2000, ...(conflicts ? { conflicts } : {}) });
      cleanups.push(() => sync.stop());
      await sync.flushed(); // identical copies: no conflict
      const changes: TableChange[] = [];
      db.observe('WorkOrders', (c) => void changes.push(c));
      return { db, sync, changes };
    }),
  );
  expect(hub.status().versionConflicts).toBe(0);
  const restart = async (deviceId: string, db: Edgetable) => {
    const sync = await db.startSync({ url: broker.url, deviceId, tables: ['WorkOrders'], ackTimeoutMs: 2000, ...(conflicts ? { conflicts } : {}) });
    cleanups.push(() => sync.stop());
    return sync;
  };
  return { hub, hubDb, a: devices[0]!, b: devices[1]!, restart };
}

describe('conflicting edits of one item by two devices', () => {
  it('default, last-writer-wins: the later write (by HLC) wins at the hub, and no device is told of a conflict', async () => {
    const { hub, hubDb, a, b, restart } = await fleet(undefined);
    const superseded = hub.status().recordsSuperseded;
    await a.sync.stop(); // a is offline
    a.db.putItem({ TableName: 'WorkOrders', Item: job(2, 'done by a') });
    await new Promise((r) => setTimeout(r, 5)); // b's write is later, by the clock
    b.db.putItem({ TableName: 'WorkOrders', Item: job(2, 'done by b') });
    await b.sync.flushed(); // the later write reaches the hub first...
    const aAgain = await restart('van-a', a.db);
    await aAgain.flushed(); // ...and the earlier one, arriving after it, is superseded
    expect(statusOf(hubDb)).toEqual(['done by b', '2']);
    expect(hub.status().recordsSuperseded).toBe(superseded + 1);
    expect(aAgain.status().rejectedWrites + b.sync.status().rejectedWrites).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect([...a.changes, ...b.changes].some((c) => c.rejected)).toBe(false);
  }, 60_000);

  it("version rule: the first to reach the hub wins; the other is refused, reported with its item, and its copy restored to the hub's", async () => {
    const { hub, hubDb, a, b } = await fleet(VERSIONED);
    a.db.putItem({ TableName: 'WorkOrders', Item: job(2, 'done by a') });
    await a.sync.flushed();
    b.db.putItem({ TableName: 'WorkOrders', Item: job(2, 'done by b') }); // later by the clock, on b's copy of v1
    await b.sync.flushed();
    expect(statusOf(hubDb)).toEqual(['done by a', '2']); // not last-writer-wins: b's write was stale

    const status = b.sync.status();
    expect(status.rejectedWrites).toBe(1);
    expect(status.lastRejections).toEqual([
      expect.objectContaining({ table: 'WorkOrders', keys: { id: { S: 'job-1' } }, item: job(2, 'done by b'), hubItem: job(2, 'done by a'), restored: true, reason: "version 2 is not the hub's version 2 + 1" }),
    ]);
    expect(status.lastError).toMatch(/refused 1 write/);
    expect(a.sync.status().rejectedWrites).toBe(0);
    expect(hub.status().versionConflicts).toBe(1);

    // b's copy is the hub's again, and observe told b's screens, with the refused item.
    expect(statusOf(b.db)).toEqual(['done by a', '2']);
    await new Promise((r) => setImmediate(r));
    const rejected = b.changes.filter((c) => c.rejected);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      eventName: 'MODIFY',
      origin: 'sync',
      deviceId: 'hub',
      dynamodb: { Keys: { id: { S: 'job-1' } }, OldImage: job(2, 'done by b'), NewImage: job(2, 'done by a') },
      rejected: { item: job(2, 'done by b'), hubItem: job(2, 'done by a'), restored: true },
    });
    // The refused record is kept at the hub with its reason.
    const letters = hubDb.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? [];
    expect(letters.map((l) => (l.reason as { S: string }).S)).toEqual(["version conflict: version 2 is not the hub's version 2 + 1"]);

    // The restore does not travel up as a write; b's next edit, made on the hub's version, is applied.
    expect(b.sync.status().shards.every((s) => s.lagRecords === 0)).toBe(true);
    b.db.putItem({ TableName: 'WorkOrders', Item: job(3, 'reviewed by b') });
    await b.sync.flushed();
    expect(statusOf(hubDb)).toEqual(['reviewed by b', '3']);
    expect(b.sync.status().rejectedWrites).toBe(1);
  }, 60_000);

  it('version rule: edits made offline on a refused one are refused too (a fork), and the copy ends as the hub’s', async () => {
    const { hubDb, a, b, restart } = await fleet(VERSIONED);
    await b.sync.stop(); // b goes offline
    a.db.putItem({ TableName: 'WorkOrders', Item: job(2, 'done by a') });
    await a.sync.flushed();
    b.db.putItem({ TableName: 'WorkOrders', Item: job(2, 'started by b') });
    b.db.putItem({ TableName: 'WorkOrders', Item: job(3, 'done by b') }); // v3 = hub's v2 + 1, but made on b's own v2
    b.db.deleteItem({ TableName: 'WorkOrders', Key: { id: { S: 'job-1' } } }); // made on b's v3
    const again = await restart('van-b', b.db);
    await again.flushed();
    expect(statusOf(hubDb)).toEqual(['done by a', '2']);
    const reported = again.status().lastRejections;
    expect(reported.map((r) => [r.reason.replace(/ \(.*\)$/, ''), r.restored])).toEqual([
      ["version 2 is not the hub's version 2 + 1", false],
      ['made on a version 2 the hub does not hold', false],
      ['made on version 3, the hub holds version 2', true],
    ]);
    expect(statusOf(b.db)).toEqual(['done by a', '2']); // the deleted copy is back as the hub's
  }, 60_000);
});
