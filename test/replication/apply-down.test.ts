/**
 * Last-writer-wins at a device (src/replication/apply-down.ts) when the version record outlived
 * its item, as on a salvaged store (a damaged page lost the item, the version's page survived):
 * a put of that same version puts the item back; a put the device's version supersedes, a put of
 * the same version while the item is there, and a delete of the same version change nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import type { Item } from '../../src/model/attribute-value.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { applyDown } from '../../src/replication/apply-down.js';
import { readVersion } from '../../src/stream/item-versions.js';
import type { DownEntry } from '../../src/sync/protocol/down-messages.js';
import { createReadings, tempDb, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const NOW = Date.now();
const keys: Item = { sensor: { S: 's-1' }, ts: { N: '1' } };
const put = (v: string, ms: number): DownEntry => ({ remove: false, keys, image: { ...keys, v: { S: v } }, version: { hlc: { ms: NOW - 60_000 + ms, counter: 0 }, device: 'dev-2', incarnation: 'inc-9' } });
const remove = (ms: number): DownEntry => ({ remove: true, keys, version: { hlc: { ms: NOW - 60_000 + ms, counter: 0 }, device: 'dev-2', incarnation: 'inc-9' } });

function context(db: Edgetable) {
  return { store: db.store, syncDb: db.store.database(SYNC_DB), table: db.context.catalog.require('Readings'), nowMs: NOW, maxDriftMs: 3_600_000 };
}

const stored = (db: Edgetable): string | undefined => db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's-1' }, ts: { N: '1' } } }).Item?.v?.S;

/** Deletes the item's record only, as a damaged page loses it: its index entries and version record stay. */
function loseItem(db: Edgetable): void {
  const { table } = context(db);
  const key = table.keyOf(keys);
  db.store.write((txn) => txn.delete(table.partitionOf(key.hash).db, table.storedKeyIn(txn, key)!));
}

describe('applyDown, a version record without its item', () => {
  it('a put of the recorded version puts the item back; one of an older version does not', () => {
    const { db } = tempDb(cleanups, 'etb-apply-down-');
    createReadings(db, 'Readings', 1);
    expect(applyDown(context(db), [put('a', 2)]).applied).toBe(1);
    loseItem(db);
    expect(stored(db)).toBeUndefined();

    expect(applyDown(context(db), [put('older', 1)])).toEqual({ applied: 0, superseded: 1, clockRefused: 0 });
    expect(stored(db)).toBeUndefined();
    expect(applyDown(context(db), [put('a', 2)])).toEqual({ applied: 1, superseded: 0, clockRefused: 0 });
    expect(stored(db)).toBe('a');
    expect(db.verify().Differences).toBe(0);
    expect(db.store.read((txn) => readVersion(txn, context(db).syncDb, 'Readings', context(db).table.keyOf(keys).bytes))).toEqual(put('a', 2).version);

    // The item is there: the same version again is a redelivery.
    expect(applyDown(context(db), [put('a', 2)])).toEqual({ applied: 0, superseded: 1, clockRefused: 0 });
  });

  it('a tombstone stays one: a delete of its own version changes nothing, an older put does not bring the item back', () => {
    const { db } = tempDb(cleanups, 'etb-apply-down-');
    createReadings(db, 'Readings', 1);
    applyDown(context(db), [put('a', 2), remove(3)]);
    expect(stored(db)).toBeUndefined();
    expect(applyDown(context(db), [remove(3), put('a', 2)])).toEqual({ applied: 0, superseded: 2, clockRefused: 0 });
    expect(stored(db)).toBeUndefined();
  });
});
