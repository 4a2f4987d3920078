/**
 * The hub's batch apply when another process changes the hub table meanwhile (src/hub/start-hub.ts,
 * ops/catalog-retry.ts): a process on the hub's folder splits the table's partition after the hub
 * resolved the table for a batch and before the batch's txn. The txn finds the definition changed
 * and writes nothing; the hub re-resolves the table on the reloaded catalog and applies the batch
 * to the new definition (into the new partitions, none into the retired one), with no apply error
 * and no 'retry' for the device to wait out.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import { partitionDb } from '../../src/partition/database-names.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tableContents, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const splitTable = fileURLToPath(new URL('./fixtures/split-table.ts', import.meta.url));

describe('startHub: a catalog changed by another process during an apply', () => {
  it('re-runs the apply on the fresh definition: the batch lands in the new partitions, with no apply error', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const hubStore = tempDb(cleanups, 'etb-hub-');
    const hub = startHub({ db: hubStore.db, url: broker.url });
    cleanups.push(() => hub.stop());
    const device = tempDb(cleanups, 'etb-dev-');
    createReadings(device.db, 'Readings', 1);
    const sync = await device.db.startSync({ url: broker.url, deviceId: 'd1', tables: ['Readings'] });
    cleanups.push(() => sync.stop());
    await until(() => hub.status().tables.includes('Readings'), 10_000, 'schema');
    writeReadings(device.db, 0, 10);
    await sync.flushed();
    expect(hub.status().batchesApplied).toBeGreaterThan(0);

    // The hub resolves the dead-letter table after the hub table and before the apply txn: the
    // other process changes the hub table right there, once.
    const catalog = hubStore.db.context.catalog;
    const find = catalog.find.bind(catalog);
    let altered = false;
    catalog.find = (name: string) => {
      if (name === DEAD_LETTER_TABLE && !altered) {
        altered = true;
        execFileSync(process.execPath, ['--import', 'tsx', splitTable, hubStore.path, 'Readings'], { stdio: 'pipe', timeout: 60_000 });
      }
      return find(name);
    };
    cleanups.push(() => void (catalog.find = find));

    writeReadings(device.db, 10, 20);
    await sync.flushed();
    expect(altered).toBe(true);
    expect(hub.status()).toMatchObject({ applyErrors: 0 });
    expect(hub.status().catalogRetries).toBeGreaterThanOrEqual(1);
    expect(tableContents(hubStore.db, 'Readings')).toEqual(tableContents(device.db, 'Readings'));
    const table = hubStore.db.context.catalog.require('Readings');
    expect(table.partitions).toHaveLength(2);
    const live = new Set(table.partitions.map((p) => partitionDb('Readings', p.range.id)));
    expect(hubStore.db.store.listDatabases('t/Readings/p/').filter((name) => !live.has(name))).toEqual([]);
    expect(hubStore.db.verify('Readings').Differences).toBe(0);
  }, 90_000);
});
