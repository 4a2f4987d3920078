/**
 * A table's partition-id dictionary (table format 3, codec/item-key.ts placedKey): each partition
 * key gets a dense number, in the order partition keys are first written, and its items are stored
 * under that number instead of the partition key's hash, so partition keys written together are
 * neighbours on disk. Kept in the table's `ids` database (database-names.ts):
 *
 *   count key   := 0x00                     -> count:u32be    ; ids 0..count-1 exist
 *   forward key := 0x01 pkPart              -> id:u32be       ; pkPart as in codec/item-key.ts
 *   reverse key := 0x02 id:u32be            -> hash:u32be pkPart
 *
 * Crash safety: an id is written in the same write txn as the first item stored under it, so no
 * committed item carries an id its store does not define. Ids never change or disappear while the
 * table exists (a partition key whose items are all deleted keeps its id; DeleteTable drops the
 * database with the items), so keys computed from them stay valid.
 *
 * Several processes share a folder, and a txn that assigned an id may abort (so does the recording
 * txn of an asynchronous commit, storage/store.ts writeAsync), so this process's memory holds only
 * ids it read as committed: everything a read txn sees, and what a write txn sees below the count
 * it found before its first assignment. An id this txn assigned is learnt after it commits, by the
 * next read that misses (one get). The memory is a bounded cache; a miss reads the store.
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { readHash, writeHash } from '../codec/partition-hash.js';

const COUNT_KEY = new Uint8Array([0x00]);
const FORWARD_TAG = 0x01;
const REVERSE_TAG = 0x02;
/**
 * Entries kept in memory per table before the cache starts over (~200 bytes each, so ~3 MB at
 * most); a miss costs one get in the txn at hand.
 */
export const MAX_CACHED_IDS = 16_384;

type Named = { readonly hash: number; readonly pkPart: Uint8Array };
type Cached = Named & { readonly id: number; readonly next: Cached | undefined };

export class PartitionIds {
  /** Committed ids by partition-key hash (a chain for equal hashes). */
  private byHash = new Map<number, Cached>();
  /** Committed partition keys by id. */
  private byId = new Map<number, Named>();
  /**
   * Per write txn (ReadTxn.identity: a write group's joined writes are views of one txn) that
   * assigned ids: the count before its first assignment (ids from it on are tentative).
   */
  private readonly tentativeFrom = new WeakMap<object, number>();

  /** `tableId`: the table incarnation (TableId) whose dictionary this is. */
  constructor(
    readonly db: Database,
    readonly tableId: string,
  ) {}

  /** Entries this process holds in memory (for tests and metrics). */
  get size(): number {
    return this.byId.size;
  }

  /** The id of the partition key (`hash`, `bytes[start, end)`) as `txn` sees the table, or undefined (it has no items). */
  idOf(txn: ReadTxn, hash: number, bytes: Uint8Array, start: number, end: number): number | undefined {
    for (let c = this.byHash.get(hash); c !== undefined; c = c.next) if (samePart(c.pkPart, bytes, start, end)) return c.id;
    const raw = txn.get(this.db, forwardKey(bytes, start, end));
    if (raw === undefined) return undefined;
    const id = readHash(raw, 0);
    if (this.committed(txn, id)) this.learn(id, hash, Uint8Array.prototype.slice.call(bytes, start, end));
    return id;
  }

  /** idOf, assigning the next id in `txn` when the partition key has none. */
  assign(txn: WriteTxn, hash: number, bytes: Uint8Array, start: number, end: number): number {
    const known = this.idOf(txn, hash, bytes, start, end);
    if (known !== undefined) return known;
    const count = readCount(txn, this.db);
    if (count >= 0xffff_ffff) throw new RangeError('the table has used every partition id (2^32 - 1 partition keys)');
    if (!this.tentativeFrom.has(txn.identity)) this.tentativeFrom.set(txn.identity, count);
    const id = count;
    const countValue = new Uint8Array(4);
    writeHash(count + 1, countValue, 0);
    txn.put(this.db, COUNT_KEY, countValue);
    const idValue = new Uint8Array(4);
    writeHash(id, idValue, 0);
    txn.put(this.db, forwardKey(bytes, start, end), idValue);
    const named = new Uint8Array(4 + end - start);
    writeHash(hash, named, 0);
    named.set(bytes.subarray(start, end), 4);
    txn.put(this.db, reverseKey(id), named);
    return id;
  }

  /** The partition key of `id` (its hash and key part) as `txn` sees the table, or undefined. */
  partitionKeyOf(txn: ReadTxn, id: number): Named | undefined {
    const known = this.byId.get(id);
    if (known !== undefined) return known;
    const raw = txn.get(this.db, reverseKey(id));
    if (raw === undefined) return undefined;
    const hash = readHash(raw, 0);
    // A copy: `raw` is LMDB's memory (and Buffer.slice would not copy).
    const pkPart = Uint8Array.prototype.slice.call(raw, 4);
    if (this.committed(txn, id)) this.learn(id, hash, pkPart);
    return { hash, pkPart };
  }

  /**
   * Visits the partition keys of ids `from` on, in id order, as `txn` sees them, until `visit`
   * returns false (a scan of the dictionary: one entry per partition key).
   */
  eachPartitionKey(txn: ReadTxn, from: number, visit: (id: number, hash: number) => boolean): void {
    const end = new Uint8Array([REVERSE_TAG + 1]);
    txn.each(this.db, { start: reverseKey(from), end }, (value, key) => visit(readHash(key, 1), readHash(value, 0)));
  }

  /** Ids `txn` has handed out (the next id's number). */
  count(txn: ReadTxn): number {
    return readCount(txn, this.db);
  }

  private committed(txn: ReadTxn, id: number): boolean {
    const from = this.tentativeFrom.get(txn.identity);
    return from === undefined || id < from;
  }

  private learn(id: number, hash: number, pkPart: Uint8Array): void {
    if (this.byId.has(id)) return;
    if (this.byId.size >= MAX_CACHED_IDS) {
      this.byId.clear();
      this.byHash.clear();
    }
    this.byId.set(id, { hash, pkPart });
    this.byHash.set(hash, { hash, pkPart, id, next: this.byHash.get(hash) });
  }
}

/**
 * The dictionary of the table whose ids database is `db`: one per table incarnation (TableId) per
 * open store, kept across the Table objects a catalog reload makes.
 */
const dictionaries = new WeakMap<Database, PartitionIds>();

export function partitionIdsOf(db: Database, tableId: string): PartitionIds {
  const existing = dictionaries.get(db);
  if (existing && existing.tableId === tableId) return existing;
  const created = new PartitionIds(db, tableId);
  dictionaries.set(db, created);
  return created;
}

function readCount(txn: ReadTxn, db: Database): number {
  const raw = txn.get(db, COUNT_KEY);
  return raw === undefined ? 0 : readHash(raw, 0);
}

function forwardKey(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const key = new Uint8Array(1 + end - start);
  key[0] = FORWARD_TAG;
  key.set(bytes.subarray(start, end), 1);
  return key;
}

function reverseKey(id: number): Uint8Array {
  const key = new Uint8Array(5);
  key[0] = REVERSE_TAG;
  writeHash(id, key, 1);
  return key;
}

function samePart(part: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean {
  if (part.length !== end - start) return false;
  for (let i = 0; i < part.length; i++) if (part[i] !== bytes[start + i]) return false;
  return true;
}
