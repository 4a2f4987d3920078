/**
 * Heat splits (issue 12.4): a partition hot because of one partition key is never split (the key
 * stays whole, so the split cannot help and would repeat), and on-demand tables are split for heat
 * only when the store asks for it.
 */
import { describe, expect, it } from 'vitest';
import { KeyHeat, MAX_TRACKED_KEYS } from '../../src/capacity/key-heat.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();
const NOW = 1_800_000_000_000;

/** A store whose partitions run hot at 2 write units per second, on a frozen clock. */
function openHot(heatSplitsOnDemand?: boolean) {
  const db = dbs.open({ durability: 'relaxed', now: () => NOW, partitionWriteUnits: 2, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0, ...(heatSplitsOnDemand === undefined ? {} : { heatSplitsOnDemand }) });
  db.createTable(tableRequest('Hot', ['pk', 'S'], ['sk', 'N'], 1));
  return db;
}

/** 300 writes in the last minute (5 units/s against a ceiling of 2), spread over `keys` partition keys. */
function heat(db: ReturnType<typeof openHot>, keys: number): void {
  for (let i = 0; i < 300; i++) db.putItem({ TableName: 'Hot', Item: { pk: { S: `k${i % keys}` }, sk: { N: String(i) } } });
}

describe('split policy for heat', () => {
  it('splits a hot on-demand partition when asked and the heat is spread over many keys', () => {
    const db = openHot(true);
    heat(db, 100);
    expect(db.checkPartitionSplits().map((s) => s.parent)).toEqual([0]);
  });

  it('never splits a partition hot because of one partition key', () => {
    const db = openHot(true);
    heat(db, 1);
    expect(db.checkPartitionSplits()).toEqual([]);
    // Mostly one key, a little of others: still that key's heat.
    for (let i = 0; i < 30; i++) db.putItem({ TableName: 'Hot', Item: { pk: { S: `other${i}` }, sk: { N: '0' } } });
    expect(db.checkPartitionSplits()).toEqual([]);
  });

  it('does not split on-demand tables for heat by default', () => {
    const db = openHot();
    heat(db, 100);
    expect(db.checkPartitionSplits()).toEqual([]);
  });
});

describe('KeyHeat', () => {
  it('gives one key its whole share and spreads many even keys thin', () => {
    const one = new KeyHeat();
    for (let i = 0; i < 100; i++) one.add(7, 1, NOW);
    expect(one.topShare(NOW)).toBe(1);
    const many = new KeyHeat();
    for (let i = 0; i < 10_000; i++) many.add(i % 500, 1, NOW);
    expect(many.topShare(NOW)).toBeLessThan(2 / MAX_TRACKED_KEYS);
  });

  it('forgets old heat: a key hot long ago no longer dominates', () => {
    const h = new KeyHeat();
    for (let i = 0; i < 1000; i++) h.add(1, 1, NOW);
    for (let i = 0; i < 1000; i++) h.add(1000 + (i % 300), 1, NOW + 600_000);
    expect(h.topShare(NOW + 600_000)).toBeLessThan(0.5);
  });
});
