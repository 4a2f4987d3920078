/**
 * A forwarding hub SIGKILLed mid-forward and restarted: the endpoint ends equal to the hub, and no
 * item's version at the endpoint went backwards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../../src/edgetable.js';
import { VERSION_ATTRIBUTE } from '../../../src/hub/forward/version-attribute.js';
import { startBroker } from '../../sync/broker.js';
import { kill, spawnScript, type Child } from '../../sync/fixtures/child.js';
import { createReadings, tempPath, until, writeReadings, type Cleanup } from '../../sync/fixtures.js';
import { startDynalite } from './dynalite.js';
import { endpointClient, endpointContents, hubContents, scanEndpoint } from './endpoint-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ITEMS = Number(process.env.FORWARD_CRASH_ITEMS ?? 600);

function hubProcess(path: string, url: string, endpoint: string): Child {
  const child = spawnScript('test/hub/fixtures/forward-hub-process.ts', [path, url, endpoint]);
  cleanups.push(() => kill(child, 'SIGKILL'));
  return child;
}

/** The last `forwarded N lag L errors E` line, parsed. */
function progress(child: Child): { forwarded: number; lag: number; errors: number } | undefined {
  for (let i = child.lines.length - 1; i >= 0; i--) {
    const m = /^forwarded (\d+) lag (\d+) errors (\d+)$/.exec(child.lines[i]!);
    if (m) return { forwarded: Number(m[1]), lag: Number(m[2]), errors: Number(m[3]) };
  }
  return undefined;
}

const keyOf = (item: Record<string, { S?: string; N?: string }>) => `${item['sensor']?.S}/${item['ts']?.N}`;

describe('forwarding across a hub crash', () => {
  it(`SIGKILL mid-forward, more writes, restart: nothing lost, no version regressed (${ITEMS} items)`, async () => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const client = endpointClient(dynalite.endpoint);
    cleanups.push(() => client.destroy());
    const path = tempPath(cleanups, 'etb-forward-crash-');

    let db = open({ path });
    createReadings(db, 'Readings', 4);
    writeReadings(db, 0, ITEMS);
    db.close();

    let hub = hubProcess(path, broker.url, dynalite.endpoint);
    await until(() => (progress(hub)?.forwarded ?? 0) >= ITEMS / 5, 60_000, 'a fifth forwarded');
    await kill(hub, 'SIGKILL');
    expect(progress(hub)!.lag).toBeGreaterThan(0); // killed mid-forward

    const before = new Map<string, string>();
    for (const item of await scanEndpoint(client, 'Readings')) before.set(keyOf(item as never), item[VERSION_ATTRIBUTE]!.S!);
    expect(before.size).toBeGreaterThan(0);
    expect(before.size).toBeLessThan(ITEMS);

    // While the hub is down its store changes: updates (newer versions) and deletes.
    db = open({ path });
    for (let i = 0; i < ITEMS; i += 4) {
      db.updateItem({ TableName: 'Readings', Key: { sensor: { S: `s-${i % 64}` }, ts: { N: String(i) } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'second' } } });
    }
    for (let i = 2; i < ITEMS; i += 10) db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: `s-${i % 64}` }, ts: { N: String(i) } } });
    writeReadings(db, ITEMS, ITEMS + 100);
    db.close();

    hub = hubProcess(path, broker.url, dynalite.endpoint);
    await until(() => progress(hub)?.lag === 0 && progress(hub)!.forwarded > 0, 120_000, 'everything forwarded after the restart');
    expect(progress(hub)!.errors).toBe(0);
    await kill(hub, 'SIGTERM');

    db = open({ path });
    const hubItems = hubContents(db, 'Readings');
    db.close();
    expect(hubItems).toHaveLength(ITEMS + 100 - Math.ceil((ITEMS - 2) / 10));
    expect(await endpointContents(client, 'Readings')).toEqual(hubItems);
    for (const item of await scanEndpoint(client, 'Readings')) {
      const earlier = before.get(keyOf(item as never));
      if (earlier !== undefined) expect(item[VERSION_ATTRIBUTE]!.S! >= earlier).toBe(true);
    }
  }, 240_000);
});
