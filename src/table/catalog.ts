/**
 * The persistent table catalog: `_catalog` maps a table name to its TableDefinition (JSON). The
 * in-memory cache is refreshed from the store after every change this process commits, and when
 * another process (e.g. `edgetable sync` on the same folder) has changed the catalog: a
 * generation counter under GENERATION_KEY is bumped with every change and checked cheaply.
 *
 * Reads check the generation inside their read txn, so they see one consistent catalog. Writes
 * resolve their Table before the write txn; inside it, Table.checkCurrent (table.ts) detects a
 * definition that changed meanwhile, and the operation is re-run (ops/operations.ts). Catalog
 * changes based on a Table read before the txn go through `replace`/`remove`, which run that check.
 */
import { ResourceNotFoundException } from '../model/errors.js';
import { CATALOG_DB } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { CATALOG_GENERATION_KEY, Table, type TableOptions } from './table.js';
import type { TableDefinition } from './table-definition.js';

const GENERATION_KEY = CATALOG_GENERATION_KEY; // the one key: Table.checkCurrent reads it too
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Catalog {
  private readonly db: Database;
  private tables = new Map<string, Table>();
  /**
   * The generation value as loaded, read as a native-order float64 (ReadTxn.getNumber): only ever
   * compared with itself, so the byte order it was written in (big-endian) does not matter, and
   * the check every request makes allocates no Buffer. undefined = no generation stored yet.
   */
  private stamp: number | undefined = Number.NaN;

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

  /**
   * Writes a definition inside the caller's write txn; call `reload()` after the commit. For a
   * definition derived from one read in the same txn (or a new table); else use `replace`.
   */
  save(txn: WriteTxn, def: TableDefinition): void {
    txn.put(this.db, encoder.encode(def.TableName), encoder.encode(JSON.stringify(def)));
    this.bump(txn);
  }

  /** Replaces `base`'s definition with `next`; CatalogChangedError when `base` is no longer current. */
  replace(txn: WriteTxn, base: Table, next: TableDefinition): void {
    base.checkCurrent(txn);
    this.save(txn, next);
  }

  /** Removes `base`'s entry; CatalogChangedError when `base` is no longer current. */
  remove(txn: WriteTxn, base: Table): void {
    base.checkCurrent(txn);
    txn.delete(this.db, encoder.encode(base.name));
    this.bump(txn);
  }

  /** The table as stored in `txn` (the cached Table when its definition is unchanged), or undefined. */
  readTable(txn: ReadTxn, name: string): Table | undefined {
    const raw = txn.get(this.db, encoder.encode(name));
    return raw ? this.tableOf(Uint8Array.from(raw)) : undefined;
  }

  readDefinition(txn: ReadTxn, name: string): TableDefinition | undefined {
    return this.readTable(txn, name)?.def;
  }

  reload(): void {
    const next = new Map<string, Table>();
    this.stamp = this.store.read((txn) => {
      for (const { value } of txn.cursor(this.db, { start: new Uint8Array([1]) })) {
        const table = this.tableOf(Uint8Array.from(value));
        next.set(table.name, table);
      }
      return txn.getNumber(this.db, GENERATION_KEY);
    });
    // Every table was read in the snapshot of that generation (Table.checkCurrent's shortcut).
    for (const table of next.values()) table.currentAt = this.stamp;
    this.tables = next;
  }

  /** Keeps Table objects whose stored definition did not change: callers may hold them. */
  private tableOf(stored: Uint8Array): Table {
    const def = JSON.parse(decoder.decode(stored)) as TableDefinition;
    const current = this.tables.get(def.TableName);
    if (current && Buffer.from(current.stored).equals(Buffer.from(stored))) return current;
    return new Table(def, this.store, this.tableOptions, stored);
  }

  /** Made once: every request checks the generation. */
  private readonly readGeneration = (txn: ReadTxn): number | undefined => txn.getNumber(this.db, GENERATION_KEY);

  private refreshIfChanged(): void {
    // NaN (a generation whose bytes read as NaN) never equals itself: such a store reloads on
    // every check, which is correct, only slower.
    if (this.store.read(this.readGeneration) !== this.stamp) this.reload();
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
