/**
 * The txn objects handed to Store.read and Store.write callbacks. They exist only for the duration
 * of the callback; any use after it returns throws StorageError('INVALID').
 *
 * Contract of `get`: the returned bytes are valid until the next storage call made through this
 * txn (get, put, delete, cursor step...) or the end of the txn, whichever comes first; use
 * `getCopy` to keep bytes. From a database read as text (text-values.ts) they are a view of the
 * txn's scratch, which the next text get overwrites; otherwise they are copies (node-lmdb's
 * zero-copy reads wrap every value in an external buffer with a finalizer that must be detached,
 * measured slower than copying for item-sized values: 6.4 µs vs 3.5 µs per renew+get+reset).
 */
import type { Database } from './database.js';
import type { FaultInjector } from './fault-injector.js';
import type { ChangeWriter } from './redo-log-file.js';
import type { LmdbCursor, LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import { openCursor, openHeadCursor } from './lmdb-binding.js';
import { RangeIterator, walkRange, walkValues, type CursorOptions, type Entry } from './range-cursor.js';
import { BINARY_VALUES, type TextValues, type ValueReader } from './text-values.js';
import { MDB_MAP_FULL, MDB_NOTFOUND, StorageError, fromNative, lmdbCode, toStorageError } from './storage-error.js';

export interface ReadTxn {
  /**
   * The LMDB txn this object reads and writes in: the same object for every view of one txn (the
   * writes a write group joins get views of its txn, store.ts), so state kept per txn is kept by it.
   */
  readonly identity: object;
  /** Zero-copy read; see the contract above. undefined when the key is absent. */
  get(db: Database, key: Uint8Array): Uint8Array | undefined;
  /** Like get, but the bytes are a copy the caller owns. */
  getCopy(db: Database, key: Uint8Array): Uint8Array | undefined;
  /** Entries in key order (or reverse) within a range; see range-cursor.ts for bounds and lifetimes. */
  cursor(db: Database, options?: CursorOptions): IterableIterator<Entry>;
  /**
   * The entries of cursor(db, options) without per-entry objects: `visit` gets each value, valid
   * only during the call, and its key (a copy it may keep), and returns false to stop. The cursor
   * is closed when this returns.
   */
  each(db: Database, options: CursorOptions, visit: (value: Uint8Array, key: Uint8Array) => boolean): void;
  /**
   * The values of cursor(db, options), beyond the start's first block reading no keys: about
   * half of each's native cost per entry (range-cursor.ts walkValues). Only for databases whose
   * values are distinct and whose keys are at least 4 bytes long, as item databases are (every
   * record carries its own key). `visit` must not write to `db`.
   */
  eachValue(db: Database, options: CursorOptions, visit: (value: Uint8Array) => boolean): void;
  /**
   * The first 8 bytes of the value at `key` as a float64 in native byte order (for values of at
   * least 8 bytes), or undefined when absent: a change stamp read without allocating a Buffer.
   */
  getNumber(db: Database, key: Uint8Array): number | undefined;
  /** Number of entries, O(1) (LMDB keeps the count in the tree's root). */
  count(db: Database): number;
  /** Smallest entry, as copies, or undefined when empty. */
  first(db: Database): Entry | undefined;
  /** Largest entry, as copies, or undefined when empty. */
  last(db: Database): Entry | undefined;
}

export interface WriteTxn extends ReadTxn {
  /** Inserts or replaces. The value is copied into the map; the caller keeps its buffer. */
  put(db: Database, key: Uint8Array, value: Uint8Array): void;
  /** Removes the key; false when it was absent. */
  delete(db: Database, key: Uint8Array): boolean;
  /** Removes every entry, keeping the database. */
  clear(db: Database): void;
  /**
   * Runs `fn` once this txn has committed (after its flush when the store is durable), never when
   * it aborts, nor for an attempt the store re-runs (map growth, a replay conflict). Callbacks run
   * in the order they were added, on the main thread, in the order of the commits: right after a
   * commit made on this thread, before write() or writeGroup() returns, unless an asynchronous
   * commit (Store.writeAsync) is in flight, whose replay commits first: then after its callbacks;
   * for writeAsync, when its replay committed, before its flushes. They must not throw (an error
   * is swallowed: the commit already happened). A write that joins a group adds to the group's
   * txn: its callbacks run when the group commits.
   */
  afterCommit(fn: () => void): void;
}

/** What a txn needs from its store. */
export interface TxnHost {
  readonly env: LmdbEnv;
  readonly faults: FaultInjector | undefined;
  /** Opens `db`'s native handle inside `txn` (creating the database when txn is writable). */
  openHandle(db: Database, txn: LmdbReadTxn): LmdbDbi;
  /** Whether databases declared textValues are read as text (Store.textReads). */
  readonly textReads: boolean;
  /** Lends a text-value reader (its scratch) until giveTextValues. */
  takeTextValues(): TextValues;
  giveTextValues(reader: TextValues): void;
  /** Called before every put into a database declared textValues (Store: format and shape). */
  beforeTextPut(txn: LmdbWriteTxn, db: Database, value: Uint8Array): void;
}

/**
 * node-lmdb's getNumber loads the value's address as a double, and LMDB puts a value right after
 * its key: at any even address, or an odd one after an odd-length key. x86 and ARMv8 load
 * unaligned doubles; 32-bit ARM (armhf Raspberry Pi OS) compiles the load to a VFP instruction
 * that faults on an unaligned address and that the kernel does not fix up (SIGBUS). There, and on
 * any architecture not known to be safe, the value is copied out and read from aligned memory:
 * the same number, one Buffer more.
 */
export const NATIVE_NUMBER_READS = ['x64', 'arm64', 'ia32', 'ppc64', 's390x'].includes(process.arch);

const numberScratch = new Float64Array(1);
const numberBytes = new Uint8Array(numberScratch.buffer);

/** The first 8 bytes of `value` as a native-order float64, as getNumber reads them (values of 8+ bytes). */
export function numberFromValue(value: Uint8Array): number {
  if (value.length < 8) throw new StorageError('INVALID', `a number read needs a value of 8 bytes or more, not ${value.length}`);
  for (let i = 0; i < 8; i++) numberBytes[i] = value[i]!;
  return numberScratch[0]!;
}

export class LmdbReadTxn implements ReadTxn {
  live = true;
  /** A database handle was opened in this read txn: it must end with commit to keep the handle. */
  openedHandle = false;
  // Created on the first cursor: most read txns (a GetItem) open none, and this object is
  // allocated per read.
  private cursors: Set<RangeIterator> | null = null;
  private forgetCursor: ((iterator: RangeIterator) => void) | null = null;
  /** The scratch of get's text reads: one per txn, lent by the host on the first. */
  private getText: TextValues | null = null;

  constructor(
    protected readonly host: TxnHost,
    readonly native: LmdbTxn,
    readonly writable: boolean,
  ) {}

  get identity(): object {
    return this;
  }

  get(db: Database, key: Uint8Array): Uint8Array | undefined {
    const dbi = this.enter(db);
    if (db.textValues && this.host.textReads) {
      let text: string | null;
      try {
        text = this.native.getString(dbi, key);
      } catch (err) {
        throw toStorageError(err, `get from ${db.name}`);
      }
      if (text === null) return undefined;
      return (this.getText ??= this.host.takeTextValues()).bytes(text);
    }
    let value: Buffer | null;
    try {
      value = this.native.getBinary(dbi, key);
    } catch (err) {
      throw toStorageError(err, `get from ${db.name}`);
    }
    if (value === null) return undefined;
    return value;
  }

  getCopy(db: Database, key: Uint8Array): Uint8Array | undefined {
    const dbi = this.enter(db);
    try {
      return this.native.getBinary(dbi, key) ?? undefined;
    } catch (err) {
      throw toStorageError(err, `get from ${db.name}`);
    }
  }

  cursor(db: Database, options: CursorOptions = {}): IterableIterator<Entry> {
    const dbi = this.enter(db);
    let iterator: RangeIterator;
    try {
      const cursors = (this.cursors ??= new Set());
      this.forgetCursor ??= (it: RangeIterator): void => void cursors.delete(it);
      iterator = new RangeIterator(this.host.env, openCursor(this.native, dbi), options, this.forgetCursor);
    } catch (err) {
      throw toStorageError(err, `cursor on ${db.name}`);
    }
    this.cursors!.add(iterator);
    return iterator;
  }

  each(db: Database, options: CursorOptions, visit: (value: Uint8Array, key: Uint8Array) => boolean): void {
    const dbi = this.enter(db);
    let cursor: LmdbCursor;
    try {
      cursor = openCursor(this.native, dbi);
    } catch (err) {
      throw toStorageError(err, `cursor on ${db.name}`);
    }
    const text = this.textReader(db);
    try {
      walkRange(cursor, (text ?? BINARY_VALUES) as ValueReader<unknown>, options, visit);
    } catch (err) {
      throw fromNative(err, `cursor on ${db.name}`); // visit's own errors pass unchanged
    } finally {
      cursor.close();
      if (text !== null) this.host.giveTextValues(text);
    }
  }

  eachValue(db: Database, options: CursorOptions, visit: (value: Uint8Array) => boolean): void {
    const dbi = this.enter(db);
    let keyed: LmdbCursor;
    let heads: LmdbCursor<number> | null = null;
    try {
      keyed = openCursor(this.native, dbi);
    } catch (err) {
      throw toStorageError(err, `cursor on ${db.name}`);
    }
    const openHeads = (): LmdbCursor<number> => {
      try {
        return (heads = openHeadCursor(this.native, dbi));
      } catch (err) {
        throw toStorageError(err, `cursor on ${db.name}`);
      }
    };
    const text = this.textReader(db);
    try {
      walkValues(keyed, openHeads, (text ?? BINARY_VALUES) as ValueReader<unknown>, options, visit);
    } catch (err) {
      throw fromNative(err, `cursor on ${db.name}`);
    } finally {
      keyed.close();
      (heads as LmdbCursor<number> | null)?.close();
      if (text !== null) this.host.giveTextValues(text);
    }
  }

  getNumber(db: Database, key: Uint8Array): number | undefined {
    const dbi = this.enter(db);
    let value: number | null;
    try {
      if (NATIVE_NUMBER_READS) value = this.native.getNumber(dbi, key);
      else {
        const bytes = this.native.getBinary(dbi, key);
        value = bytes === null ? null : numberFromValue(bytes);
      }
    } catch (err) {
      throw toStorageError(err, `get from ${db.name}`);
    }
    return value ?? undefined;
  }

  count(db: Database): number {
    const dbi = this.enter(db);
    try {
      return dbi.stat(this.native).entryCount;
    } catch (err) {
      throw toStorageError(err, `count ${db.name}`);
    }
  }

  first(db: Database): Entry | undefined {
    return this.edge(db, false);
  }

  last(db: Database): Entry | undefined {
    return this.edge(db, true);
  }

  /** Closes abandoned cursors; the native txn is ended by the store. */
  end(): void {
    if (this.cursors) for (const iterator of this.cursors) iterator.close();
    if (this.getText !== null) {
      this.host.giveTextValues(this.getText);
      this.getText = null;
    }
    this.live = false;
  }

  /** A walk's own text reader (so a walk inside another's visit keeps the outer value), or null to read Buffers. */
  private textReader(db: Database): TextValues | null {
    return db.textValues && this.host.textReads ? this.host.takeTextValues() : null;
  }

  /** Every storage call starts here: txn still open, handle ready. */
  protected enter(db: Database): LmdbDbi {
    if (!this.live) throw new StorageError('INVALID', 'txn used after its read() or write() callback returned');
    return db.handle ?? this.host.openHandle(db, this);
  }

  private edge(db: Database, reverse: boolean): Entry | undefined {
    for (const entry of this.cursor(db, { reverse, limit: 1 })) {
      return { key: entry.key, value: Uint8Array.prototype.slice.call(entry.value) };
    }
    return undefined;
  }
}

/**
 * One change a recording write txn made (Store.writeAsync): a put (value set) or a delete, with
 * key and value copied, in the order they happened, so replaying them on the same snapshot
 * yields the same state.
 */
export type RecordedChange = { readonly db: Database; readonly key: Uint8Array; readonly value: Uint8Array | undefined };

export class LmdbWriteTxn extends LmdbReadTxn implements WriteTxn {
  /** LMDB reported MAP_FULL: this txn is dead and the store must grow the map and re-run fn. */
  mapFull = false;
  /** The txn changed the store (a put, a delete that found its key, a clear, a handle opened or created, a drop). */
  changed = false;
  /**
   * Non-null while the store records this txn's changes for an asynchronous commit (it will be
   * aborted and its changes replayed by env.batchWrite). `unreplayable` says why a change cannot
   * be replayed that way (clear, drop): the store then commits the txn's work synchronously.
   */
  recorded: RecordedChange[] | null = null;
  /** Non-null in a store with durability 'log': every change of the txn, as its redo log record (redo-log-file.ts). */
  log: ChangeWriter | null = null;
  unreplayable: string | null = null;
  /** The first LMDB failure of this txn: LMDB refuses to commit after one, even if fn caught it. */
  broken: StorageError | null = null;
  /** Databases whose handles were opened here; LMDB closes them if this txn aborts. */
  readonly openedDatabases: Database[] = [];
  /** afterCommit callbacks, run by the store once the commit succeeded. */
  readonly committed: (() => void)[] = [];

  afterCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  put(db: Database, key: Uint8Array, value: Uint8Array): void {
    const dbi = this.enter(db);
    this.host.faults?.beforePut();
    if (db.textValues) this.host.beforeTextPut(this, db, value);
    try {
      this.native.putBinary(dbi, key, value);
    } catch (err) {
      throw this.failed(err, `put into ${db.name}`);
    }
    this.changed = true;
    this.log?.put(db.logName, key, value);
    this.recorded?.push({ db, key: Uint8Array.prototype.slice.call(key), value: Uint8Array.prototype.slice.call(value) });
  }

  delete(db: Database, key: Uint8Array): boolean {
    const dbi = this.enter(db);
    try {
      this.native.del(dbi, key);
    } catch (err) {
      if (lmdbCode(err) === MDB_NOTFOUND) return false;
      throw this.failed(err, `delete from ${db.name}`);
    }
    this.changed = true;
    this.log?.delete(db.logName, key);
    this.recorded?.push({ db, key: Uint8Array.prototype.slice.call(key), value: undefined });
    return true;
  }

  clear(db: Database): void {
    const dbi = this.enter(db);
    try {
      dbi.drop({ txn: this.native, justFreePages: true });
    } catch (err) {
      throw this.failed(err, `clear ${db.name}`);
    }
    this.changed = true;
    this.log?.whole('clear', db.logName);
    this.unreplayable ??= `clear ${db.name}`;
  }

  /** Maps an LMDB failure, remembering MAP_FULL even if fn swallows the error. */
  failed(err: unknown, context: string): StorageError {
    if (lmdbCode(err) === MDB_MAP_FULL) this.mapFull = true;
    const error = toStorageError(err, context);
    this.broken ??= error;
    return error;
  }
}
