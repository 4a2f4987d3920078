import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { writeDownState } from '../../src/replication/down-state.js';
import { readVersion, writeVersion } from '../../src/stream/item-versions.js';
import { TOMBSTONE_GC_PREFIX } from '../../src/stream/table-sync-records.js';
import { markForRebase, readRebaseMark } from '../../src/replication/rebase-marks.js';
import { readDeviceBase, readMark, writeDeviceBase, writeMark } from '../../src/replication/down-records.js';
import { createReadings, tempDb, type Cleanup } from '../sync/fixtures.js';
import type { Edgetable } from '../../src/edgetable.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const enc = new TextEncoder();
const dec = new TextDecoder();
const version = { hlc: { ms: 1_800_000_000_000, counter: 0 }, device: 'dev-1', incarnation: 'inc-1' };
const itemKey = (i: number) => Uint8Array.of(0, 0, 0, i & 0xff, 1, i >> 8);
const downState = { fingerprint: 'f', phase: 'delta' as const, cursors: {} };

/** Every kind of record `_sync` keeps under a table name, `versions` item versions among them. */
function writeRecords(db: Edgetable, table: string, versions: number): void {
  const syncDb = db.store.database(SYNC_DB);
  markForRebase(db.store, [table], { reason: 'salvage', atMs: 1 });
  db.store.write((txn) => {
    for (let i = 0; i < versions; i++) writeVersion(txn, syncDb, table, itemKey(i), version);
    writeMark(txn, syncDb, table, itemKey(0), 'base-1');
    writeDeviceBase(txn, syncDb, table, { id: 'base-1', startClock: version.hlc });
    txn.put(syncDb, enc.encode(`${TOMBSTONE_GC_PREFIX}${table}`), enc.encode('{"checkpoints":[]}'));
    writeDownState(txn, syncDb, 'dev-1', 'inc-1', table, downState);
  });
}

function syncKeys(db: Edgetable): string[] {
  const syncDb = db.store.database(SYNC_DB);
  return db.store.read((txn) => [...txn.cursor(syncDb)].map(({ key }) => dec.decode(key)));
}

describe('the sync records kept under a table name', () => {
  it('go with the table on DeleteTable, in thousands as in one, and those of other tables stay, names sharing a prefix included', () => {
    const { db } = tempDb(cleanups, 'etb-table-sync-');
    for (const name of ['Readings', 'Readings2', 'Read']) createReadings(db, name, 1);
    writeRecords(db, 'Readings', 10_000);
    writeRecords(db, 'Readings2', 2);
    writeRecords(db, 'Read', 2);
    const syncDb = db.store.database(SYNC_DB);
    // A device whose id is another table's name, holding a down state of a third table.
    db.store.write((txn) => writeDownState(txn, syncDb, 'Readings', 'inc-1', 'Other', downState));
    const ofReadings = (k: string) => /^[vm]Readings\u0000/.test(k) || ['DReadings', 'EReadings', 'GReadings', 'ddev-1\u0000inc-1\u0000Readings'].includes(k);
    const before = syncKeys(db).filter((k) => !ofReadings(k));
    expect(syncKeys(db).filter(ofReadings)).toHaveLength(10_000 + 5);

    db.deleteTable({ TableName: 'Readings' });

    expect(syncKeys(db)).toEqual(before);
    expect(syncKeys(db).filter((k) => k.startsWith('vRead'))).toHaveLength(4);
    db.store.read((txn) => {
      expect(readVersion(txn, syncDb, 'Readings', itemKey(0))).toBeUndefined();
      expect(readMark(txn, syncDb, 'Readings', itemKey(0))).toBeUndefined();
      expect(readDeviceBase(txn, syncDb, 'Readings')).toBeUndefined();
      expect(readRebaseMark(txn, syncDb, 'Readings')).toBeUndefined();
      expect(readRebaseMark(txn, syncDb, 'Readings2')).toBeDefined();
      expect(readVersion(txn, syncDb, 'Readings2', itemKey(1))).toEqual(version);
      expect(readDeviceBase(txn, syncDb, 'Read')).toEqual({ id: 'base-1', startClock: version.hlc });
    });
    expect(syncKeys(db)).toContain(`dReadings\u0000inc-1\u0000Other`);
    expect(syncKeys(db)).toContain(`ddev-1\u0000inc-1\u0000Readings2`);
    expect(syncKeys(db)).not.toContain(`ddev-1\u0000inc-1\u0000Readings`);
  });

  it('a table re-created under the old name starts without them', () => {
    const { db } = tempDb(cleanups, 'etb-table-sync-');
    createReadings(db, 'Readings', 1);
    writeRecords(db, 'Readings', 3);
    db.deleteTable({ TableName: 'Readings' });
    createReadings(db, 'Readings', 1);
    expect(syncKeys(db).filter((k) => k.includes('Readings'))).toEqual([]);
  });
});
