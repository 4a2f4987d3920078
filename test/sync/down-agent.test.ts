/**
 * The device's down agent (src/sync/down-agent.ts) fed the hub's messages directly: what it
 * applies and acknowledges, across a restart of the device.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import type { Item } from '../../src/model/attribute-value.js';
import { DownAgent } from '../../src/sync/down-agent.js';
import { decodeDownAck, encodeDownMessage, type DownAck, type DownEntry } from '../../src/sync/protocol/down-messages.js';
import { Topics } from '../../src/sync/protocol/topics.js';
import { createReadings, tempPath, type Cleanup } from './fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function device(path: string): Edgetable {
  const db = open({ path });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return db;
}

function agent(db: Edgetable, acks: DownAck[]): DownAgent {
  return new DownAgent(db, {
    deviceId: 'dev-1',
    incarnation: 'inc-1',
    topics: new Topics(),
    tables: new Map([['Readings', { direction: 'down' as const }]]),
    maxClockDriftMs: 3_600_000,
    publish: (topic, payload) => {
      if (topic.endsWith('/ack')) acks.push(decodeDownAck(payload));
      return true;
    },
    enable: () => {},
    onError: () => {},
  });
}

function entry(ts: number, v: string): DownEntry {
  const keys: Item = { sensor: { S: 's-1' }, ts: { N: String(ts) } };
  return { remove: false, keys, image: { ...keys, v: { S: v } }, version: { hlc: { ms: Date.now() - 60_000 + ts, counter: 0 }, device: 'dev-2', incarnation: 'inc-9' } };
}

const stored = (db: Edgetable) => (db.scan({ TableName: 'Readings' }).Items ?? []).map((i) => i.v?.S).sort();

describe('the down agent', () => {
  it('acknowledges a base-done sent again after the device restarted without sweeping: the items the base held stay', async () => {
    const path = tempPath(cleanups, 'etb-down-agent-');
    let db = device(path);
    createReadings(db, 'Readings', 1);
    const acks: DownAck[] = [];
    let a = agent(db, acks);
    await a.onMessage(encodeDownMessage({ kind: 'changes', table: 'Readings', id: 'r.1', baseId: 'base-1', entries: [entry(1, 'a'), entry(2, 'b')] }));
    await a.onMessage(encodeDownMessage({ kind: 'base-done', table: 'Readings', id: 'r.2', baseId: 'base-1' }));
    expect(acks.map((x) => [x.id, x.status])).toEqual([
      ['r.1', 'applied'],
      ['r.2', 'applied'],
    ]);
    expect(a.status()[0]).toMatchObject({ state: 'delta', basesCompleted: 1, itemsSwept: 0 });

    // The device stops before the hub recorded the ack; the hub sends base-done again.
    db.close();
    db = device(path);
    a = agent(db, acks);
    await a.onMessage(encodeDownMessage({ kind: 'base-done', table: 'Readings', id: 'r.3', baseId: 'base-1' }));
    expect(acks.at(-1)).toMatchObject({ id: 'r.3', status: 'applied' });
    expect(a.status()[0]).toMatchObject({ basesCompleted: 0, itemsSwept: 0 });
    expect(stored(db)).toEqual(['a', 'b']);
  });
});
