/**
 * The end of a base read at a device (src/replication/sweep-base.ts) when the hub delivers it again: the
 * device swept and crashed before the hub had its ack, so the hub sends base-done (and maybe a
 * page) once more, to a device whose marks of that base are gone. And the request to re-read a
 * salvaged table (src/replication/rebase-marks.ts), which the completed sweep clears.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import type { Item } from '../../src/model/attribute-value.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { applyDown } from '../../src/replication/apply-down.js';
import type { DownEntry } from '../../src/sync/protocol/down-messages.js';
import { readDeviceBase } from '../../src/replication/down-records.js';
import { markForRebase } from '../../src/replication/rebase-marks.js';
import { createReadings, tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const NOW = Date.now();
const self = { device: 'dev-1', incarnation: 'inc-1' };

function entry(ts: number, v: string): DownEntry {
  const keys: Item = { sensor: { S: 's-1' }, ts: { N: String(ts) } };
  return { remove: false, keys, image: { ...keys, v: { S: v } }, version: { hlc: { ms: NOW - 60_000 + ts, counter: 0 }, device: 'dev-2', incarnation: 'inc-9' } };
}

function device(path: string): Edgetable {
  const db = open({ path });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return db;
}

function context(db: Edgetable) {
  return { store: db.store, syncDb: db.store.database(SYNC_DB), table: db.context.catalog.require('Readings'), nowMs: NOW, maxDriftMs: 3_600_000 };
}

const sweep = (db: Edgetable, baseId: string) => db.replica.sweepBase('Readings', baseId, undefined, self);
const stored = (db: Edgetable) => (db.scan({ TableName: 'Readings' }).Items ?? []).map((i) => i.v?.S).sort();
const marks = (db: Edgetable) => db.store.read((txn) => [...txn.cursor(context(db).syncDb, { start: Uint8Array.of(0x6d), end: Uint8Array.of(0x6e) })].length);

describe('a base read delivered again after the device swept it', () => {
  it('keeps every item the base held: neither its base-done nor a page of it, after a restart, changes anything', async () => {
    const path = tempPath(cleanups, 'etb-sweep-');
    let db = device(path);
    createReadings(db, 'Readings', 1);
    expect(applyDown(context(db), [entry(1, 'a'), entry(2, 'b')], 'base-1').applied).toBe(2);
    expect(await sweep(db, 'base-1')).toBe(0);
    expect(stored(db)).toEqual(['a', 'b']);
    expect(marks(db)).toBe(0);

    db.close(); // the crash: the hub never got the base-done ack
    db = device(path);
    expect(applyDown(context(db), [entry(1, 'a')], 'base-1')).toEqual({ applied: 0, superseded: 1, clockRefused: 0 });
    expect(await sweep(db, 'base-1')).toBe(0);
    expect(stored(db)).toEqual(['a', 'b']);
    expect(marks(db)).toBe(0);
    expect(db.store.read((txn) => readDeviceBase(txn, context(db).syncDb, 'Readings'))).toMatchObject({ id: 'base-1', done: true });
  });

  it('a later base read still sweeps what it did not hold', async () => {
    const db = device(tempPath(cleanups, 'etb-sweep-'));
    createReadings(db, 'Readings', 1);
    applyDown(context(db), [entry(1, 'a'), entry(2, 'b')], 'base-1');
    await sweep(db, 'base-1');
    applyDown(context(db), [entry(1, 'a')], 'base-2');
    expect(await sweep(db, 'base-2')).toBe(1);
    expect(stored(db)).toEqual(['a']);
    expect(db.store.read((txn) => readDeviceBase(txn, context(db).syncDb, 'Readings'))).toMatchObject({ id: 'base-2', done: true });
  });

  it('a base read with no page at all (the hub holds nothing) still empties the subscribed partitions', async () => {
    const db = device(tempPath(cleanups, 'etb-sweep-'));
    createReadings(db, 'Readings', 1);
    applyDown(context(db), [entry(1, 'a')], 'base-1');
    await sweep(db, 'base-1');
    expect(await sweep(db, 'base-2')).toBe(1);
    expect(stored(db)).toEqual([]);
  });

  it('a completed base read clears the request to re-read the table (a salvaged store), in the txn that records it done; a repeat of it has nothing to clear', async () => {
    const db = device(tempPath(cleanups, 'etb-sweep-'));
    createReadings(db, 'Readings', 1);
    markForRebase(db.store, ['Readings'], { reason: 'salvage', atMs: 1 });
    expect(db.replica.rebaseRequested('Readings')).toBe(true);
    applyDown(context(db), [entry(1, 'a')], 'base-1');
    expect(db.replica.rebaseRequested('Readings')).toBe(true);
    await sweep(db, 'base-1');
    expect(db.replica.rebaseRequested('Readings')).toBe(false);
    expect(await sweep(db, 'base-1')).toBe(0);
    expect(stored(db)).toEqual(['a']);
  });
});
