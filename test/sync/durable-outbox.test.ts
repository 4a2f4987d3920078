/**
 * The outbox sends only what a power cut cannot take back (src/sync/durable-outbox.ts): in
 * durability 'interval' a committed write is readable before its redo log record is flushed, and
 * the agent sends each shard only up to where it was when a completed flush began.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { DurableOutbox } from '../../src/sync/durable-outbox.js';
import { startBroker } from './broker.js';
import { createReadings, tableContents, tempDb, tempPath, until, writeReadings, type Cleanup } from './fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A store in 'interval' whose timer never fires within a test: only the agent's flushes (and checkpoints) make writes durable. */
function intervalDb(): Edgetable {
  const db = open({ path: tempPath(cleanups, 'etb-interval-'), durability: 'interval', syncIntervalMs: 600_000, checkpoint: { commits: 1e9, bytes: 1e12, pages: 1e9 } });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return db;
}

const pending = (db: Edgetable): number => db.replica.outboxShards(['Readings']).reduce((n, p) => n + p.header.nextSeq - 1 - p.header.ackedSeq, 0);

describe('the outbox in durability interval', () => {
  it('offers no record until a flush that began after it completed, then exactly the records that flush covered', async () => {
    const db = intervalDb();
    createReadings(db);
    db.replica.enableOutbox('Readings', { outboxBudgetBytes: 1 << 20, whenFull: 'reject', retentionMs: 0 });
    writeReadings(db, 0, 100);
    expect(db.store.hasUnflushedCommits).toBe(true);
    let kicked = 0;
    const outbox = new DurableOutbox(db.replica, () => (kicked += 1), (err) => {
      throw err;
    });
    const sendable = (): number => outbox.sendable(db.replica.outboxShards(['Readings'])).reduce((n, p) => n + p.header.nextSeq - 1 - p.header.ackedSeq, 0);
    expect(pending(db)).toBe(100);
    expect(sendable()).toBe(0); // and a flush began
    await until(() => kicked === 1, 5000, 'the first flush');
    expect(db.store.hasUnflushedCommits).toBe(false);
    expect(sendable()).toBe(100); // nothing unflushed: everything
    writeReadings(db, 100, 150);
    expect(sendable()).toBe(100); // the 50 new ones wait for a flush of their own
    await new Promise((r) => setTimeout(r, 150)); // past the gap between two flushes the agent starts
    sendable();
    await until(() => kicked === 2, 5000, 'the second flush');
    writeReadings(db, 150, 160);
    expect(sendable()).toBe(150);
  });

  it("syncs a device writing with 'interval' to a hub, item for item, though its own flush timer never fires", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const device = intervalDb();
    const hubStore = tempDb(cleanups, 'etb-hub-');
    createReadings(device);
    const hub = startHub({ db: hubStore.db, url: broker.url });
    cleanups.push(() => hub.stop());
    const sync = await device.startSync({ url: broker.url, deviceId: 'dev-1', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    writeReadings(device, 0, 1000);
    expect(device.store.hasUnflushedCommits).toBe(true);
    await sync.flushed();
    expect(tableContents(hubStore.db, 'Readings')).toEqual(tableContents(device, 'Readings'));
    expect(sync.status().recordsAcked).toBeGreaterThanOrEqual(1000);
  }, 60_000);
});
