/**
 * startHub's bounds: the hub log's size cap and the dead letters' count cap. The fill ratio and
 * the near-limit alert (status and /metrics) rise before anything is dropped; past a cap the
 * oldest go, counted: unread hub log records as droppedUnread (and as missed by the forwarder
 * whose cursor they were below), dead letters as dropped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import { createEndpointClient, type EndpointClient } from '../../src/hub/forward/endpoint-client.js';
import { startHub } from '../../src/hub/start-hub.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';
import { parseExposition } from '../metrics/parse-exposition.js';
import { startDynalite, TEST_CREDENTIALS } from './forward/dynalite.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function metric(hub: Parameters<typeof createMetrics>[0]['hub'], name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const { samples } = parseExposition(await createMetrics({ hub }).text());
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

describe('startHub bounds', () => {
  it("caps the hub log: the alert first, then the oldest unread records pruned and counted, and the forwarder says it missed them", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const real = createEndpointClient({ endpoint: dynalite.endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS });
    cleanups.push(() => real.destroy());
    // The endpoint does not answer yet: the forwarder's cursor stays at 0 and holds the log.
    let open = false;
    const held: EndpointClient = {
      ...real,
      describeTable: async (name) => {
        while (!open) await new Promise((r) => setTimeout(r, 10));
        return real.describeTable(name);
      },
    };
    const { db } = tempDb(cleanups, 'etb-hub-bounds-');
    createReadings(db, 'Readings', 1);
    const hub = startHub({ db, url: broker.url, logMaxRecords: 100, logPruneIntervalMs: 50, versionCollectIntervalMs: 0, forward: { endpoint: dynalite.endpoint, client: held, pollMs: 20, batchSize: 10 } });
    cleanups.push(() => {
      open = true;
      return hub.stop();
    });
    writeReadings(db, 0, 85);
    await new Promise((r) => setTimeout(r, 200)); // a few prunes: none may drop anything
    expect(hub.status().bounds!.hubLog).toMatchObject({ maxRecordsPerTable: 100, records: 85, fullestTable: 'Readings', fillRatio: 0.85, nearLimit: true, droppedUnread: 0 });
    expect(await metric(hub, 'edgetable_hub_log_near_limit')).toBe(1);
    expect(await metric(hub, 'edgetable_hub_log_fill_ratio')).toBe(0.85);
    expect(await metric(hub, 'edgetable_forward_lag_records', { table: 'Readings' })).toBe(85);

    writeReadings(db, 85, 125);
    await until(() => hub.status().bounds!.hubLog.droppedUnread > 0, 10_000, 'the cap pruned');
    expect(hub.status().bounds!.hubLog).toMatchObject({ records: 100, droppedUnread: 25, fillRatio: 1 });
    expect(await metric(hub, 'edgetable_hub_log_dropped_unread_total')).toBe(25);

    open = true;
    await until(() => hub.status().forward!.lagRecords === 0, 30_000, 'the rest forwarded');
    expect(hub.status().forward).toMatchObject({ missedRecords: 25, forwarded: 100 });
    expect(await metric(hub, 'edgetable_forward_missed_records_total')).toBe(25);
  }, 60_000);

  it('caps the dead letters: the alert at 80%, then the oldest dropped first and counted', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const { db } = tempDb(cleanups, 'etb-hub-bounds-dl-');
    const hub = startHub({ db, url: broker.url, deadLetterMaxItems: 10, logPruneIntervalMs: 50, versionCollectIntervalMs: 0 });
    cleanups.push(() => hub.stop());
    const now = Date.now();
    const letter = (i: number) => db.putItem({ TableName: DEAD_LETTER_TABLE, Item: { stream: { S: 'van-1/i/Readings/t/0' }, seq: { N: String(i) }, reason: { S: 'test' }, refusedAt: { N: String(now - 1000 + i) } } });
    for (let i = 1; i <= 8; i++) letter(i);
    await new Promise((r) => setTimeout(r, 200));
    expect(hub.status().bounds!.deadLetters).toMatchObject({ maxItems: 10, items: 8, fillRatio: 0.8, nearLimit: true, dropped: 0, expired: 0 });
    expect(await metric(hub, 'edgetable_dead_letters_near_limit')).toBe(1);

    for (let i = 9; i <= 13; i++) letter(i);
    await until(() => hub.status().bounds!.deadLetters.dropped === 3, 10_000, 'the oldest dropped');
    expect(hub.status().bounds!.deadLetters).toMatchObject({ items: 10, fillRatio: 1, dropped: 3 });
    const seqs = (db.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? []).map((i) => Number((i['seq'] as { N: string }).N)).sort((a, b) => a - b);
    expect(seqs).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(await metric(hub, 'edgetable_dead_letters_removed_total', { reason: 'dropped' })).toBe(3);
  }, 30_000);
});
