/**
 * Table.checkCurrent (src/table/table.ts): a write txn acts on a Table resolved before it only while
 * the store still holds that Table's definition. A Table the catalog loaded knows the catalog
 * generation it was read at and skips the definition compare while the txn sees that generation;
 * any catalog change moves the generation, and the compare then decides. "Another process" is a
 * second Catalog over the same store: it meets the first one only through the store.
 */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/table/catalog.js';
import { CatalogChangedError } from '../../src/table/catalog-changed.js';
import { Table } from '../../src/table/table.js';
import type { Edgetable } from '../../src/edgetable.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();

function twoTables(db: Edgetable): void {
  db.createTable(tableRequest('Readings', ['sensor', 'S'], ['ts', 'N']));
  db.createTable(tableRequest('Other', ['id', 'S']));
}

const check = (db: Edgetable, table: { checkCurrent(txn: never): void }) => db.store.read((txn) => table.checkCurrent(txn as never));

describe('Table.checkCurrent', () => {
  it('passes for a table read at the generation the txn sees', () => {
    const db = dbs.open();
    twoTables(db);
    const table = new Catalog(db.store).require('Readings');
    expect(table.currentAt).not.toBeUndefined();
    expect(() => check(db, table)).not.toThrow();
  });

  it('throws CatalogChangedError once another catalog changed the definition', () => {
    const db = dbs.open();
    twoTables(db);
    const table = new Catalog(db.store).require('Readings');
    const other = new Catalog(db.store);
    const base = other.require('Readings');
    db.store.write((txn) => other.replace(txn, base, { ...base.def, ProvisionedThroughput: { ...base.def.ProvisionedThroughput, ReadCapacityUnits: 7 } }));
    expect(() => check(db, table)).toThrow(CatalogChangedError);
  });

  it('throws once another catalog removed the table, and for a re-created one', () => {
    const db = dbs.open();
    twoTables(db);
    const table = new Catalog(db.store).require('Readings');
    const other = new Catalog(db.store);
    db.store.write((txn) => other.remove(txn, other.require('Readings')));
    expect(() => check(db, table)).toThrow(CatalogChangedError);
    db.createTable(tableRequest('Readings', ['sensor', 'S'], ['ts', 'N']));
    expect(() => check(db, table)).toThrow(CatalogChangedError);
  });

  it('still passes when the generation moved for another table only (the definition compare decides)', () => {
    const db = dbs.open();
    twoTables(db);
    const table = new Catalog(db.store).require('Readings');
    const other = new Catalog(db.store);
    db.store.write((txn) => other.remove(txn, other.require('Other')));
    expect(() => check(db, table)).not.toThrow();
  });

  it('a table not read by a reload (no generation) compares the definition', () => {
    const db = dbs.open();
    twoTables(db);
    const unloaded = new Table(new Catalog(db.store).require('Readings').def, db.store);
    expect(unloaded.currentAt).toBeUndefined();
    expect(() => check(db, unloaded)).not.toThrow();
    const other = new Catalog(db.store);
    db.store.write((txn) => other.remove(txn, other.require('Readings')));
    expect(() => check(db, unloaded)).toThrow(CatalogChangedError);
  });
});
