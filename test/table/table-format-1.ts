/**
 * Makes a table as builds before table format 3 created it: its definition rewritten to table
 * format 1 (base items under hash-first keys, codec/item-key.ts) while it is still empty. For
 * fixtures that write records under hash-first keys by hand or stand for older stores, and for
 * the layout's own tests. The store's format marker stays as CreateTable raised it (4).
 */
import type { Edgetable } from '../../src/edgetable.js';
import { Catalog } from '../../src/table/catalog.js';
import { partitionIdsDb } from '../../src/partition/database-names.js';

export function makeTableFormat1(db: Edgetable, name: string): void {
  const catalog = new Catalog(db.store);
  db.store.write((txn) => {
    const table = catalog.readTable(txn, name);
    if (table === undefined) throw new Error(`no table ${name}`);
    if (table.partitions.some((p) => txn.count(p.db) > 0)) throw new Error(`table ${name} is not empty`);
    catalog.replace(txn, table, { ...table.def, formatVersion: 1 });
    db.store.dropDatabase(partitionIdsDb(name)); // format 1 tables have no dictionary
  });
}
