/**
 * Background work never ends the process (issue 12.3): while every commit fails (an SD card that
 * reports EIO), the TTL sweeper, the split timer and the index backfill fail, are counted in
 * `db.backgroundStatus()` and retried after a back-off; foreground writes get a StorageError and
 * reads keep working. When commits work again, every job catches up and the status is healthy.
 * (Without the catch, the first failed step is an uncaught exception: vitest fails the run.)
 */
import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();

/** Fails every commit while `failing` is set. */
class FailingDisk extends FaultInjector {
  failing = false;
  override beforeCommit(): void {
    super.beforeCommit();
    if (this.failing) throw new StorageError('IO', 'injected fault: EIO at commit');
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('background work under storage faults', () => {
  it('counts, reports and retries failed TTL sweeps, splits and backfills, and recovers', async () => {
    const disk = new FailingDisk();
    const reports: string[] = [];
    const clock = { ms: 1_800_000_000_000 };
    const db = dbs.open({ faults: disk, durability: 'relaxed', now: () => clock.ms, ttlSweepIntervalMs: 30, splitCheckIntervalMs: 30, splitThresholdBytes: 3000 });
    // BackgroundJobs reports through console.error by default: keep the lines for the assertions.
    const original = console.error;
    console.error = (m: unknown) => void reports.push(String(m));
    try {
      db.createTable({
        TableName: 'Tee',
        BillingMode: 'PAY_PER_REQUEST',
        PartitionCount: 1,
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      });
      db.updateTimeToLive({ TableName: 'Tee', TimeToLiveSpecification: { Enabled: true, AttributeName: 'exp' } });
      const expired = String(Math.floor(clock.ms / 1000) - 10);
      for (let i = 0; i < 40; i++) db.putItem({ TableName: 'Tee', Item: { pk: { S: `k${i}` }, g: { S: `g${i % 3}` }, body: { S: 'x'.repeat(100) }, ...(i % 2 ? { exp: { N: expired } } : {}) } });

      disk.failing = true;
      expect(() => db.updateTable({
        TableName: 'Tee',
        AttributeDefinitions: [{ AttributeName: 'g', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
      })).toThrow(StorageError);
      disk.failing = false;
      db.updateTable({
        TableName: 'Tee',
        AttributeDefinitions: [{ AttributeName: 'g', AttributeType: 'S' }],
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
      });
      disk.failing = true; // before the backfill's first step (it runs on the next turn)

      await until('every job to fail', () => {
        const s = db.backgroundStatus();
        return !s.healthy && s.jobs.ttlSweep.failures > 0 && s.jobs.split.failures > 0 && s.jobs.backfill.failures > 0;
      });
      const failing = db.backgroundStatus();
      expect(failing.jobs.backfill.lastError).toMatch(/StorageError\[IO\]: injected fault/);
      // Foreground: writes get a clear StorageError, reads keep working.
      expect(() => db.putItem({ TableName: 'Tee', Item: { pk: { S: 'new' } } })).toThrow(StorageError);
      expect(db.getItem({ TableName: 'Tee', Key: { pk: { S: 'k0' } } }).Item).toBeDefined();
      // Back-off: with commits failing, the jobs do not spin.
      const before = db.backgroundStatus().jobs.backfill.failures;
      await new Promise((r) => setTimeout(r, 600));
      expect(db.backgroundStatus().jobs.backfill.failures - before).toBeLessThan(5);

      disk.failing = false;
      await db.whenIndexesActive();
      await until('the expired items to be swept', () => db.scan({ TableName: 'Tee', Select: 'COUNT' }).Count === 20);
      await until('a split', () => (db.describeTable({ TableName: 'Tee' }).Table as { Partitions: unknown[] }).Partitions.length > 1);
      await db.whenSplitsDone();
      await until('every job to be healthy', () => db.backgroundStatus().healthy, 30_000);
      expect(db.verify().Differences).toBe(0);
      expect(reports.some((r) => /background backfill failed, retrying with back-off/.test(r))).toBe(true);
      expect(reports.some((r) => /background backfill recovered/.test(r))).toBe(true);
    } finally {
      console.error = original;
    }
  }, 90_000);
});
