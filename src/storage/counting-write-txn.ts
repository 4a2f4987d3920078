import type { Database } from './database.js';
import type { CursorOptions, Entry } from './range-cursor.js';
import type { LmdbWriteTxn, WriteTxn } from './txn.js';

/** A joined write's view of the group txn that counts its changes (see joinGroup in write-txns.ts). */
export class CountingWriteTxn implements WriteTxn {
  constructor(
    private readonly txn: LmdbWriteTxn,
    private readonly onChange: () => void,
  ) {}
  get identity(): object {
    return this.txn;
  }
  get(db: Database, key: Uint8Array): Uint8Array | undefined {
    return this.txn.get(db, key);
  }
  getCopy(db: Database, key: Uint8Array): Uint8Array | undefined {
    return this.txn.getCopy(db, key);
  }
  cursor(db: Database, options?: CursorOptions): IterableIterator<Entry> {
    return this.txn.cursor(db, options);
  }
  each(db: Database, options: CursorOptions, visit: (value: Uint8Array, key: Uint8Array) => boolean): void {
    this.txn.each(db, options, visit);
  }
  eachValue(db: Database, options: CursorOptions, visit: (value: Uint8Array) => boolean): void {
    this.txn.eachValue(db, options, visit);
  }
  getNumber(db: Database, key: Uint8Array): number | undefined {
    return this.txn.getNumber(db, key);
  }
  count(db: Database): number {
    return this.txn.count(db);
  }
  first(db: Database): Entry | undefined {
    return this.txn.first(db);
  }
  last(db: Database): Entry | undefined {
    return this.txn.last(db);
  }
  put(db: Database, key: Uint8Array, value: Uint8Array): void {
    this.onChange();
    this.txn.put(db, key, value);
  }
  delete(db: Database, key: Uint8Array): boolean {
    this.onChange();
    return this.txn.delete(db, key);
  }
  clear(db: Database): void {
    this.onChange();
    this.txn.clear(db);
  }
  afterCommit(fn: () => void): void {
    this.txn.afterCommit(fn);
  }
}
