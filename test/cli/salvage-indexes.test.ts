/**
 * `salvage` rebuilds what the tables derive from their items (table/rebuild-indexes.ts) and asks
 * a synced device to re-read them (replication/rebase-marks.ts). Over stores with LSIs, GSIs of
 * each projection and TTL, damaged as a failing card damages them: the salvaged store's `verify`
 * finds no difference, and a Query of every index returns exactly the projections of the items
 * that were salvaged. The copy alone (storage/salvage.ts, as salvage was before) leaves indexes
 * that disagree with their tables: the rebuild is what makes them agree.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { salvageStore } from '../../src/cli/commands/salvage.js';
import { open } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { readRebaseMark } from '../../src/replication/rebase-marks.js';
import { salvageInto } from '../../src/storage/salvage.js';
import { Store } from '../../src/storage/store.js';
import { damages } from '../storage/fixtures/damaged-store.js';
import { ORDERS, PARTS, expectIndexesMatchItems, writeIndexedStore } from '../table/fixtures/indexed-store.js';
import { run } from './run-cli.js';

const COUNT = 1500;
let root: string;
let intact: string;
/** Index differences the copy alone left, per damage. */
const copyOnly = new Map<string, number>();

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'edgetable-salvage-indexes-'));
  intact = join(root, 'intact');
  writeIndexedStore(intact, COUNT);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function damaged(damage: keyof typeof damages): string {
  const path = join(root, `${damage}-damaged`);
  cpSync(intact, path, { recursive: true });
  damages[damage](path);
  return path;
}

describe('salvage rebuilds indexes', () => {
  it.each(Object.keys(damages) as (keyof typeof damages)[])('%s: 0 differences, every index query returns exactly the salvaged items, every table marked for a re-read when something was lost', (damage) => {
    const from = damaged(damage);
    const out = join(root, `${damage}-out`);
    const result = salvageStore(from, out);
    // A cut-off last page may have been a free one: then nothing was lost.
    const lost = result.databases.some((db) => db.lost.length > 0) || result.mainDamaged;
    if (damage !== 'truncated') expect(lost).toBe(true);
    expect(result.indexDifferences).toBe(0);
    expect(result.rebuilt.map((t) => t.TableName)).toEqual([ORDERS, PARTS]);
    expect(result.rebase).toEqual(lost ? [ORDERS, PARTS] : []);

    const db = open({ path: out, readOnly: true });
    try {
      expect(db.verify().Differences).toBe(0);
      expectIndexesMatchItems(db, COUNT);
      const syncDb = db.store.database(SYNC_DB);
      for (const table of [ORDERS, PARTS]) expect(db.store.read((txn) => readRebaseMark(txn, syncDb, table))).toEqual(lost ? { reason: 'salvage', atMs: expect.any(Number) } : undefined);
    } finally {
      db.close();
    }

    const copied = join(root, `${damage}-copy-only`);
    const target = Store.open({ path: copied, checkOnOpen: 'never' });
    salvageInto(from, target);
    target.close();
    const raw = open({ path: copied, readOnly: true });
    copyOnly.set(damage, raw.verify().Differences);
    raw.close();
  });

  it('the copy alone left indexes that disagree with their tables', () => {
    expect(copyOnly.size).toBe(Object.keys(damages).length);
    expect([...copyOnly.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('the report names each index rebuilt; an intact store is copied whole and marked for no re-read', async () => {
    const out = join(root, 'intact-out');
    const r = await run(['salvage', '--path', intact, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`${ORDERS}/by-at: rebuilt, `);
    expect(r.out).toContain(`${ORDERS}/by-owner: rebuilt, ${COUNT} entries from ${COUNT} items\n`);
    expect(r.out).toContain(`${PARTS}/by-kind: rebuilt, ${COUNT} entries from ${COUNT} items\n`);
    expect(r.out).not.toContain('re-reads');
    expect(r.out).toMatch(/every entry copied; 0 index entries differ/);
    const db = open({ path: out, readOnly: true });
    expect(db.store.read((txn) => readRebaseMark(txn, db.store.database(SYNC_DB), ORDERS))).toBeUndefined();
    db.close();
  });
});
