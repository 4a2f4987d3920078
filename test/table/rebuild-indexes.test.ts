/**
 * Rebuilding a table's derived records from its items (table/rebuild-indexes.ts), against an
 * oracle: the same store with the same items deleted through the write path. A store whose items
 * went without their index entries (as a salvage loses them) and whose index entries, collection
 * sizes and expiry entries were damaged on their own, rebuilt, equals the oracle: `verify` finds
 * no difference, every index Query returns exactly the items' projections, and the item collection
 * sizes and the expiry index are the write path's, byte for byte.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordBody } from '../../src/codec/item-record.js';
import { decodeItem } from '../../src/codec/item-value.js';
import { open, type Edgetable } from '../../src/edgetable.js';
import { toWireItem } from '../../src/model/binary.js';
import type { Database } from '../../src/storage/database.js';
import { rebuildTableIndexes } from '../../src/table/rebuild-indexes.js';
import type { Table } from '../../src/table/table.js';
import { ORDERS, PARTS, expectIndexesMatchItems, tableLines, writeIndexedStore } from './fixtures/indexed-store.js';

const COUNT = 600;
let root: string;
let intact: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'edgetable-rebuild-'));
  intact = join(root, 'intact');
  writeIndexedStore(intact, COUNT);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const copy = (name: string): string => {
  const path = join(root, name);
  cpSync(intact, path, { recursive: true });
  return path;
};
const openAt = (path: string): Edgetable => open({ path, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
const tableOf = (db: Edgetable, name: string): Table => db.context.catalog.find(name)!;

/** Every entry of `dbs`, as hex key=value lines (values left out with keysOnly). */
function entries(db: Edgetable, dbs: readonly Database[], keysOnly = false, select: (key: Uint8Array) => boolean = () => true): string[] {
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
  return db.store.read((txn) => dbs.flatMap((d) => [...txn.cursor(d)].filter((e) => select(e.key)).map((e) => (keysOnly ? hex(e.key) : `${hex(e.key)}=${hex(e.value)}`)))).sort();
}

function indexDbs(table: Table): Database[] {
  return [...table.partitions.flatMap((p) => [...p.localIndexes.values()]), ...table.globalIndexes.flatMap((g) => g.partitions.map((p) => p.db))];
}

const isCollection = (key: Uint8Array): boolean => key[0] === 0x63;

/** Deletes every `every`-th entry of `dbs` with no index maintenance; returns the decoded items of base entries (for `table`). */
function dropRaw(db: Edgetable, dbs: readonly Database[], every: number, table?: Table): Record<string, unknown>[] {
  return db.store.write((txn) => {
    const dropped: Record<string, unknown>[] = [];
    for (const d of dbs) {
      const doomed = [...txn.cursor(d)].filter((_, i) => i % every === 0).map((e) => ({ key: Uint8Array.prototype.slice.call(e.key), value: Uint8Array.prototype.slice.call(e.value) }));
      for (const { key, value } of doomed) {
        txn.delete(d, key);
        if (table) dropped.push(toWireItem(decodeItem(recordBody(value), 0, table.names)));
      }
    }
    return dropped;
  });
}

describe('rebuildTableIndexes', () => {
  it('items lost without their entries, entries lost without their items, collection sizes and expiry entries damaged: rebuilt, the store equals the write path\'s', () => {
    const oracle = openAt(copy('oracle'));
    const broken = openAt(copy('broken'));
    try {
      const orders = tableOf(broken, ORDERS);
      const parts = tableOf(broken, PARTS);
      // Items gone as a damaged page loses them: their index entries, collections and expiry entries stay.
      const lostOrders = dropRaw(broken, orders.partitions.map((p) => p.db), 11, orders);
      const lostParts = dropRaw(broken, parts.partitions.map((p) => p.db), 9, parts);
      expect(lostOrders.length).toBeGreaterThan(40);
      for (const item of lostOrders) oracle.deleteItem({ TableName: ORDERS, Key: { pk: item.pk, sk: item.sk } as never });
      for (const item of lostParts) oracle.deleteItem({ TableName: PARTS, Key: { pk: item.pk } as never });
      // Index entries, collection sizes and expiry entries gone on their own pages.
      dropRaw(broken, indexDbs(orders), 7);
      dropRaw(broken, indexDbs(parts), 5);
      broken.store.write((txn) => {
        txn.clear(orders.expiryIndex());
        txn.put(orders.meta, Uint8Array.from([0x63, 1, 2, 3, 4]), new Uint8Array(8).fill(7)); // a collection that has no items
      });
      expect(broken.verify().Differences).toBeGreaterThan(100);

      const rebuilt = [rebuildTableIndexes(broken.store, orders, 64), rebuildTableIndexes(broken.store, parts, 64)];

      expect(broken.verify().Differences).toBe(0);
      expect(oracle.verify().Differences).toBe(0);
      for (const name of [ORDERS, PARTS]) expect(tableLines(broken, name)).toEqual(tableLines(oracle, name));
      expect(expectIndexesMatchItems(broken, COUNT)).toBeGreaterThan(COUNT);
      const want = tableOf(oracle, ORDERS);
      expect(entries(broken, indexDbs(orders), true)).toEqual(entries(oracle, indexDbs(want), true));
      expect(entries(broken, [orders.meta], false, isCollection)).toEqual(entries(oracle, [want.meta], false, isCollection));
      expect(entries(broken, [orders.expiryIndex()])).toEqual(entries(oracle, [want.expiryIndex()]));

      const ordersLeft = COUNT - lostOrders.length;
      expect(rebuilt[0]).toMatchObject({ TableName: ORDERS, Items: ordersLeft, Undecodable: 0, Collections: 40 });
      expect(rebuilt[0]!.ExpiryEntries).toBe(entries(oracle, [want.expiryIndex()]).length);
      expect(rebuilt[0]!.Indexes.map((ix) => ix.IndexName)).toEqual(['by-at', 'by-state', 'by-owner']);
      expect(rebuilt[0]!.Indexes.find((ix) => ix.IndexName === 'by-owner')!.Entries).toBe(ordersLeft);
      expect(rebuilt[1]).toMatchObject({ TableName: PARTS, Items: COUNT - lostParts.length, Indexes: [{ IndexName: 'by-kind', Entries: COUNT - lostParts.length }] });
    } finally {
      oracle.close();
      broken.close();
    }
  });

  it('an intact table is rebuilt to exactly what it held', () => {
    const db = openAt(copy('whole'));
    try {
      const orders = tableOf(db, ORDERS);
      const before = [entries(db, indexDbs(orders), true), entries(db, [orders.meta], false, isCollection), entries(db, [orders.expiryIndex()])];
      rebuildTableIndexes(db.store, orders);
      expect([entries(db, indexDbs(orders), true), entries(db, [orders.meta], false, isCollection), entries(db, [orders.expiryIndex()])]).toEqual(before);
      expect(db.verify().Differences).toBe(0);
    } finally {
      db.close();
    }
  });
});
