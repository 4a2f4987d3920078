/**
 * Clocks far ahead in two-way sync. A device whose wall clock runs hours ahead: its writes are
 * refused at the hub (replication/apply-batch.ts CLOCK_AHEAD), never applied by their clock, and
 * the device takes the hub's item and version back, so the hub's later writes still reach it.
 * A version far ahead that the hub itself wrote (its own wall clock ran ahead): the receiving
 * device applies it but refuses to merge its clock (stream/hlc.ts), so its own next write of that
 * key is stamped behind it and loses at the hub. The hub answers that write with the winner
 * (batch-rejections.ts winnerBack), and the device takes it: every copy converges.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker } from './broker.js';
import { tempDb, until, type Cleanup } from './fixtures.js';
import { createWorkOrders, deviceSync, getOrder, hubAt, putOrder, siteContents, uniqueNamespace } from './down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function at<T>(offsetMs: number, fn: () => T): T {
  const real = Date.now;
  Date.now = () => real() + offsetMs;
  try {
    return fn();
  } finally {
    Date.now = real;
  }
}

describe('two-way sync: a version from a clock far ahead', () => {
  it('a device that refused its clock writes the key, loses at the hub, and gets the winner back', async () => {
    const b = await startBroker();
    cleanups.push(() => b.stop());
    const ns = uniqueNamespace();
    const { db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    putOrder(hubDb, 'site-7', 'j1', 'assigned');
    const fast = tempDb(cleanups, 'etb-fast-');
    const d = tempDb(cleanups, 'etb-d-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const }];
    const sFast = await deviceSync(cleanups, fast.db, b.url, ns, 'tech-fast', spec);
    const sd = await deviceSync(cleanups, d.db, b.url, ns, 'tech-d', spec);
    await Promise.all([sFast.caughtUp(), sd.caughtUp()]);

    // The hub's wall clock two hours ahead (over the default maxClockDriftMs of one hour).
    at(2 * 3_600_000, () => putOrder(hubDb, 'site-7', 'j1', 'from-the-future'));
    const state = (db: typeof hubDb) => (getOrder(db, 'site-7', 'j1')?.state as { S?: string } | undefined)?.S;
    await until(() => state(d.db) === 'from-the-future', 10_000, 'the future version at d');
    // The down message is visible once committed (on a worker) and counted once settled.
    await sd.settled();
    expect(sd.status().clockRefused).toBeGreaterThan(0);

    // d's edit is stamped behind it: it loses at the hub, and the hub sends the winner back.
    putOrder(d.db, 'site-7', 'j1', 'edited-at-d');
    await sd.flushed();
    await until(() => state(d.db) === 'from-the-future', 10_000, 'the winner back at d');
    await sd.settled();
    expect(state(hubDb)).toBe('from-the-future');
    expect(siteContents(d.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(fast.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(sd.status().rejectedWrites).toBe(0); // not a refusal under a version rule
    expect(sd.status().lastError).toMatch(/more than maxClockDriftMs ahead/);
  }, 30_000);

  it("a device whose clock runs ahead: its write is refused at the hub, it takes the hub's item back, and the hub's later writes still reach it", async () => {
    const b = await startBroker();
    cleanups.push(() => b.stop());
    const ns = uniqueNamespace();
    const { hub, db: hubDb } = hubAt(cleanups, b.url, ns);
    createWorkOrders(hubDb);
    putOrder(hubDb, 'site-7', 'j1', 'assigned');
    const fast = tempDb(cleanups, 'etb-fast-');
    const d = tempDb(cleanups, 'etb-d-');
    const spec = [{ name: 'WorkOrders', direction: 'both' as const }];
    const sFast = await deviceSync(cleanups, fast.db, b.url, ns, 'tech-fast', spec);
    const sd = await deviceSync(cleanups, d.db, b.url, ns, 'tech-d', spec);
    await Promise.all([sFast.caughtUp(), sd.caughtUp()]);
    const state = (db: typeof hubDb) => (getOrder(db, 'site-7', 'j1')?.state as { S?: string } | undefined)?.S;

    at(2 * 3_600_000, () => putOrder(fast.db, 'site-7', 'j1', 'from-the-future'));
    await sFast.flushed();
    await sFast.settled();
    expect(state(hubDb)).toBe('assigned');
    expect(hub.status().clockRefused).toBe(1);
    expect(state(fast.db)).toBe('assigned'); // the hub's item taken back
    expect(sFast.status()).toMatchObject({ rejectedWrites: 1, lastRejections: [expect.objectContaining({ reason: expect.stringMatching(/^clock ahead: /), restored: true })] });

    // The bad clock wins nothing: the hub's next write of the key reaches both devices.
    putOrder(hubDb, 'site-7', 'j1', 'reassigned');
    await until(() => state(fast.db) === 'reassigned' && state(d.db) === 'reassigned', 10_000, 'the next hub write at both devices');
    expect(siteContents(fast.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(d.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
  }, 30_000);
});
