/**
 * The persistent table catalog: `_catalog` maps a table name to its TableDefinition (JSON). The
 * in-memory cache is refreshed from the store after every change this process commits, and when
 * another process (e.g. `edgetable sync` on the same folder) has changed the catalog: a
 * generation counter under GENERATION_KEY is bumped with every change and checked cheaply.
 */
import { ResourceNotFoundException } from '../model/errors.js';
import { CATALOG_DB } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { Table, type TableOptions } from './table.js';
import type { TableDefinition } from './table-definition.js';

const GENERATION_KEY = new Uint8Array([0]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Catalog {
  private readonly db: Database;
  private tables = new Map<string, Table>();
  private generation = -1;

  constructor(
    private readonly store: Store,
    private readonly tableOptions: TableOptions = {},
  ) {
    this.db = store.database(CATALOG_DB);
    this.reload();
  }

  /** The table, or undefined. Picks up changes made by other processes. */
  find(name: string): Table | undefined {
    this.refreshIfChanged();
    return this.tables.get(name);
  }

  /** The table, or DynamoDB's data-plane ResourceNotFoundException. */
  require(name: string): Table {
    const table = this.find(name);
    if (!table) throw new ResourceNotFoundException('Requested resource not found');
    return table;
  }

  /** Table names in ascending byte order. */
  names(): string[] {
    this.refreshIfChanged();
    return [...this.tables.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }

  all(): Table[] {
    return this.names().map((n) => this.tables.get(n)!);
  }

  /** Writes a definition inside the caller's write txn; call `reload()` after the commit. */
  save(txn: WriteTxn, def: TableDefinition): void {
    txn.put(this.db, encoder.encode(def.TableName), encoder.encode(JSON.stringify(def)));
    this.bump(txn);
  }

  remove(txn: WriteTxn, name: string): void {
    txn.delete(this.db, encoder.encode(name));
    this.bump(txn);
  }

  /** The Table for a definition read inside a txn: the cached one when unchanged. */
  tableFor(def: TableDefinition): Table {
    const current = this.tables.get(def.TableName);
    return current && sameDefinition(current.def, def) ? current : new Table(def, this.store, this.tableOptions);
  }

  readDefinition(txn: ReadTxn, name: string): TableDefinition | undefined {
    const raw = txn.get(this.db, encoder.encode(name));
    return raw ? (JSON.parse(decoder.decode(raw)) as TableDefinition) : undefined;
  }

  reload(): void {
    const next = new Map<string, Table>();
    this.generation = this.store.read((txn) => {
      for (const { key, value } of txn.cursor(this.db, { start: new Uint8Array([1]) })) {
        const def = JSON.parse(decoder.decode(value)) as TableDefinition;
        const current = this.tables.get(def.TableName);
        // Keep Table objects whose definition did not change: callers may hold them.
        next.set(def.TableName, current && sameDefinition(current.def, def) ? current : new Table(def, this.store, this.tableOptions));
      }
      return readGeneration(txn, this.db);
    });
    this.tables = next;
  }

  private refreshIfChanged(): void {
    const generation = this.store.read((txn) => readGeneration(txn, this.db));
    if (generation !== this.generation) this.reload();
  }

  private bump(txn: WriteTxn): void {
    const value = new Uint8Array(8);
    new DataView(value.buffer).setFloat64(0, readGeneration(txn, this.db) + 1);
    txn.put(this.db, GENERATION_KEY, value);
  }
}

function readGeneration(txn: ReadTxn, db: Database): number {
  const raw = txn.get(db, GENERATION_KEY);
  return raw ? new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getFloat64(0) : 0;
}

function sameDefinition(a: TableDefinition, b: TableDefinition): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
