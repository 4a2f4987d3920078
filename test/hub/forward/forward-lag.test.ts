/**
 * status().forward's lag: per table and in all, the records not yet forwarded and the age of the
 * oldest of them. It grows while the endpoint holds writes back, and falls to 0 once they pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEndpointClient, type EndpointClient } from '../../../src/hub/forward/endpoint-client.js';
import { startForwarder } from '../../../src/hub/forward/start-forwarder.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../../sync/fixtures.js';
import { startDynalite, TEST_CREDENTIALS } from './dynalite.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('forward lag', () => {
  it('counts the records after the cursor per table and the age of the oldest, and falls to 0 when they are forwarded', async () => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const real = createEndpointClient({ endpoint: dynalite.endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS });
    cleanups.push(() => real.destroy());
    let open = false;
    const gate = async () => {
      while (!open) await new Promise((r) => setTimeout(r, 10));
    };
    const held: EndpointClient = {
      ...real,
      putItem: async (input) => {
        await gate();
        return real.putItem(input);
      },
    };
    const { db } = tempDb(cleanups, 'etb-forward-lag-');
    createReadings(db, 'Readings', 2);
    createReadings(db, 'Other', 1);
    const f = startForwarder(db, { endpoint: dynalite.endpoint, client: held, pollMs: 20, batchSize: 10 });
    cleanups.push(() => {
      open = true;
      return f.stop();
    });
    await until(() => f.status().tables.filter((t) => t.state === 'forwarding').length === 2, 30_000, 'both tables checked');
    const writtenAt = Date.now();
    writeReadings(db, 0, 40);
    writeReadings(db, 0, 5, 'Other');
    await new Promise((r) => setTimeout(r, 300));
    const held1 = f.status();
    expect(held1.lag).toEqual([
      { table: 'Other', records: 5, oldestUnforwardedAgeMs: expect.any(Number) },
      { table: 'Readings', records: 40, oldestUnforwardedAgeMs: expect.any(Number) },
    ].sort((a, b) => a.table.localeCompare(b.table)));
    expect(held1.lagRecords).toBe(45);
    expect(held1.oldestUnforwardedAgeMs).toBeGreaterThanOrEqual(250);
    expect(held1.oldestUnforwardedAgeMs).toBeLessThanOrEqual(Date.now() - writtenAt + 50);
    await new Promise((r) => setTimeout(r, 200));
    expect(f.status().oldestUnforwardedAgeMs).toBeGreaterThanOrEqual(held1.oldestUnforwardedAgeMs + 150);

    open = true;
    await until(() => f.status().lagRecords === 0, 30_000, 'forwarded');
    expect(f.status()).toMatchObject({ lagRecords: 0, oldestUnforwardedAgeMs: 0, forwarded: 45 });
    expect(f.status().lag.every((l) => l.records === 0 && l.oldestUnforwardedAgeMs === 0)).toBe(true);
  }, 60_000);
});
