/**
 * A table as the engine holds it while the store is open: its catalog definition plus the
 * sub-database handles of its partitions and of its secondary indexes. Immutable; a changed
 * definition gets a new Table.
 *
 * Several processes may share the folder, so a Table resolved before a write txn may be stale by
 * the time the txn holds LMDB's writer lock. `checkCurrent(txn)` is the one guard: it compares the
 * catalog entry stored in the txn with the bytes this Table was built from (one get and a byte
 * compare) and throws CatalogChangedError when they differ. Every write txn that acts on a Table
 * resolved outside it calls it before its first read or write of the table's databases
 * (WriteSession does so on a table's first use; Catalog.replace/remove for catalog changes).
 */
import type { Item } from '../model/attribute-value.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { CatalogChangedError } from './catalog-changed.js';
import { findPartitionIndex, type PartitionRange } from '../partition/partition-map.js';
import { CATALOG_DB, expiryIndexDb, globalIndexDb, localIndexDb, partitionDb, partitionIdsDb, tableMetaDb } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { encodeItemKey, HASH_BYTES, identityFromPlaced, inOverflowRun, partitionKeyEnd, placedKey, placedPrefix, PREFIX_BYTES, readHash, type EncodedKey } from '../codec/item-key.js';
import { writeHash } from '../codec/partition-hash.js';
import { startsWith } from '../codec/key-bytes.js';
import { MAX_STORED_KEY_BYTES } from '../model/limits.js';
import { partitionIdsOf, type PartitionIds } from './partition-ids.js';
import { decodeRecordAttributes } from '../codec/item-record.js';
import { attributeNamesOf, type AttributeNames } from './attribute-names.js';
import type { ChangeFeed } from '../observe/change-feed.js';
import { keyLayoutOf, type GlobalIndexDefinition, type KeyLayout, type LocalIndexDefinition, type TableDefinition } from './table-definition.js';

/** The catalog database's generation record (catalog.ts): bumped by every catalog change. */
export const CATALOG_GENERATION_KEY = new Uint8Array([0]);

export type Partition = {
  readonly range: PartitionRange;
  readonly db: Database;
  /** This partition's LSI databases, by index name. */
  readonly localIndexes: ReadonlyMap<string, Database>;
};

export type GlobalIndex = {
  readonly def: GlobalIndexDefinition;
  readonly partitions: readonly { readonly range: PartitionRange; readonly db: Database }[];
};

/** Per-store settings every table shares. */
export type TableOptions = {
  /** Item collection limit of tables with LSIs (DynamoDB: 10 GB). */
  readonly itemCollectionLimitBytes?: number;
  /** The engine's clock, epoch ms: change records take their time from it. Default Date.now. */
  readonly now?: () => number;
  /** The engine's `db.observe` feed (observe/change-feed.ts): writes to observed tables publish to it. */
  readonly feed?: ChangeFeed;
};

export const DEFAULT_ITEM_COLLECTION_LIMIT_BYTES = 10 * 1024 * 1024 * 1024;

export class Table {
  readonly name: string;
  readonly partitions: readonly Partition[];
  /** The split in progress (partition-split.ts): the children that writes to `parent` mirror into. */
  readonly split: { readonly parent: number; readonly mid: number; readonly left: Partition; readonly right: Partition } | undefined;
  readonly globalIndexes: readonly GlobalIndex[];
  /** Per-table records: partition statistics (partition-stats.ts), the name dictionary. */
  readonly meta: Database;
  /**
   * The attribute-name dictionary of the base items (attribute-names.ts): pass it to every decode
   * of a base record; write sessions encode through it.
   */
  readonly names: AttributeNames;
  readonly hasIndexes: boolean;
  /** Writes must decode the old item: index maintenance or the expiry index need it. */
  readonly needsOldItem: boolean;
  private expiryDb: Database | undefined;
  readonly itemCollectionLimitBytes: number;
  private readonly catalogDb: Database;
  private readonly nameBytes: Uint8Array;
  /** The engine's clock (TableOptions.now). */
  readonly now: () => number;
  /** TableOptions.feed. */
  readonly feed: ChangeFeed | undefined;
  /** How base items are keyed (table-definition.ts TABLE_FORMAT_VERSION). */
  readonly layout: KeyLayout;
  /** The partition-id dictionary of a 'partition-id' table (partition-ids.ts), else undefined. */
  readonly ids: PartitionIds | undefined;
  /** keyNames as a set, for decoding a record's key attributes. */
  readonly keyNameSet: ReadonlySet<string>;

  /** `stored`: the catalog entry's bytes `def` was parsed from (the JSON of `def` by default). */
  constructor(
    readonly def: TableDefinition,
    private readonly store: Store,
    options: TableOptions = {},
    readonly stored: Uint8Array = new TextEncoder().encode(JSON.stringify(def)),
  ) {
    this.catalogDb = store.database(CATALOG_DB);
    this.nameBytes = new TextEncoder().encode(def.TableName);
    this.itemCollectionLimitBytes = options.itemCollectionLimitBytes ?? DEFAULT_ITEM_COLLECTION_LIMIT_BYTES;
    this.now = options.now ?? (() => Date.now());
    this.feed = options.feed;
    this.name = def.TableName;
    // Item and index databases hold records only, each a text value (codec/item-record.ts).
    const records = { textValues: true } as const;
    const partitionOf = (range: PartitionRange): Partition => ({
      range,
      db: store.database(partitionDb(def.TableName, range.id), records),
      localIndexes: new Map(def.LocalSecondaryIndexes.map((ix) => [ix.IndexName, store.database(localIndexDb(def.TableName, range.id, ix.IndexName), records)])),
    });
    this.partitions = def.partitions.map(partitionOf);
    this.split = def.split && { parent: def.split.parent, mid: def.split.right.start, left: partitionOf(def.split.left), right: partitionOf(def.split.right) };
    this.globalIndexes = def.GlobalSecondaryIndexes.map((ix) => ({
      def: ix,
      partitions: ix.partitions.map((range) => ({ range, db: store.database(globalIndexDb(def.TableName, ix.IndexName, range.id), records) })),
    }));
    this.meta = store.database(tableMetaDb(def.TableName));
    const { partitionKey, sortKey } = def.keySchema;
    this.names = attributeNamesOf(store, this.meta, def.TableId, sortKey ? [partitionKey.name, sortKey.name] : [partitionKey.name]);
    this.hasIndexes = def.LocalSecondaryIndexes.length + def.GlobalSecondaryIndexes.length > 0;
    this.needsOldItem = this.hasIndexes || def.TimeToLive !== undefined;
    this.layout = keyLayoutOf(def);
    this.keyNameSet = new Set(sortKey ? [partitionKey.name, sortKey.name] : [partitionKey.name]);
    this.ids = this.layout === 'partition-id' ? partitionIdsOf(store.database(partitionIdsDb(def.TableName)), def.TableId) : undefined;
  }

  /**
   * The catalog generation (catalog.ts) of the snapshot in which the catalog last found this
   * Table's definition stored, as read there (ReadTxn.getNumber), or undefined: set by
   * Catalog.reload only. Every catalog change bumps the generation in its own txn, so a txn that
   * still sees this value stores this definition.
   */
  currentAt: number | undefined = undefined;

  /** Throws CatalogChangedError unless `txn` stores exactly this Table's definition (see the header). */
  checkCurrent(txn: ReadTxn): void {
    // One number read instead of copying and comparing the definition when no catalog change came since.
    if (this.currentAt !== undefined && txn.getNumber(this.catalogDb, CATALOG_GENERATION_KEY) === this.currentAt) return;
    const stored = txn.get(this.catalogDb, this.nameBytes);
    if (stored === undefined || !sameBytes(stored, this.stored)) throw new CatalogChangedError(this.name);
  }

  /**
   * The expiry index (ttl/expiry-index.ts) of a table with TTL; opened on first use, which must be
   * inside a write txn when the database may not exist yet (stores from before the index).
   */
  expiryIndex(): Database {
    return (this.expiryDb ??= this.store.database(expiryIndexDb(this.name)));
  }

  get keySchema() {
    return this.def.keySchema;
  }

  partitionOf(hash: number): Partition {
    return this.partitions[findPartitionIndex(this.def.partitions, hash)]!;
  }

  /** The child a write of `hash` to `partition` must be mirrored into while it splits, or undefined. */
  mirrorOf(partition: Partition, hash: number): Partition | undefined {
    const s = this.split;
    if (s === undefined || partition.range.id !== s.parent) return undefined;
    return hash < s.mid ? s.left : s.right;
  }

  /** The GSI partition holding entries whose index partition key hashes to `hash`. */
  globalIndexPartition(index: GlobalIndex, hash: number) {
    return index.partitions[findPartitionIndex(index.def.partitions, hash)]!;
  }

  localIndex(name: string): LocalIndexDefinition | undefined {
    return this.def.LocalSecondaryIndexes.find((ix) => ix.IndexName === name);
  }

  globalIndex(name: string): GlobalIndex | undefined {
    return this.globalIndexes.find((ix) => ix.def.IndexName === name);
  }

  /** Key bytes of an item or a Key whose key attributes were validated. */
  keyOf(item: Item): EncodedKey {
    return encodeItemKey(item, this.def.keySchema);
  }

  /**
   * The LMDB key of the base item `key` (keyOf's layout) names in this table's partition database,
   * as `txn` sees it: `key.bytes` for a hash-first table; for a partition-id table its placed key,
   * or undefined when the partition key has no id yet (then no item has it).
   */
  storedKeyIn(txn: ReadTxn, key: EncodedKey): Uint8Array | undefined {
    const ids = this.ids;
    if (ids === undefined) return key.bytes;
    const pkEnd = partitionKeyEnd(key, this.def.keySchema.partitionKey.type);
    const id = ids.idOf(txn, key.hash, key.bytes, HASH_BYTES, pkEnd);
    if (id === undefined) return undefined;
    // A key as long as an overflow key, without its full bytes (read back from an expiry entry or a
    // sync record), may have lost the end of its sort key: find the item it names.
    if (key.full === undefined && key.bytes.length >= MAX_STORED_KEY_BYTES) return this.findCutKey(txn, id, key, pkEnd);
    return placedKey(id, key, pkEnd);
  }

  /** The stored key of the item whose keyOf-layout key is `key` (cut to an overflow key), searched among the keys sharing its kept bytes. */
  private findCutKey(txn: ReadTxn, id: number, key: EncodedKey, pkEnd: number): Uint8Array | undefined {
    const kept = key.bytes.subarray(pkEnd, PREFIX_BYTES);
    const start = new Uint8Array(HASH_BYTES + kept.length);
    writeHash(id, start, 0);
    start.set(kept, HASH_BYTES);
    for (const { key: stored, value } of txn.cursor(this.partitionOf(key.hash).db, { start })) {
      if (!startsWith(stored, start)) break;
      if (sameBytes(this.keyOf(decodeRecordAttributes(value, this.keyNameSet)).bytes, key.bytes)) return Uint8Array.prototype.slice.call(stored);
    }
    return undefined;
  }

  /** The record of the base item `key` names in `db` (one of this table's partitions), as `txn` sees it. */
  recordIn(txn: ReadTxn, db: Database, key: EncodedKey): Uint8Array | undefined {
    if (this.ids === undefined) return txn.get(db, key.bytes);
    const stored = this.storedKeyIn(txn, key);
    return stored === undefined ? undefined : txn.get(db, stored);
  }

  /** storedKeyIn for a write: a partition key without an id gets the next one, in `txn`. */
  storedKeyFor(txn: WriteTxn, key: EncodedKey): Uint8Array {
    const ids = this.ids;
    if (ids === undefined) return key.bytes;
    const pkEnd = partitionKeyEnd(key, this.def.keySchema.partitionKey.type);
    return placedKey(ids.assign(txn, key.hash, key.bytes, HASH_BYTES, pkEnd), key, pkEnd);
  }

  /**
   * The key prefix shared by the stored keys of every item of the partition key whose keyOf-layout
   * prefix (hash + pkPart, codec/item-key.ts encodePartitionPrefix) is `prefix`: itself for a
   * hash-first table, the id's 4 bytes for a partition-id table, undefined when it has no id.
   */
  storedPrefixIn(txn: ReadTxn, prefix: EncodedKey): Uint8Array | undefined {
    const ids = this.ids;
    if (ids === undefined) return prefix.bytes;
    const id = ids.idOf(txn, prefix.hash, prefix.bytes, HASH_BYTES, prefix.bytes.length);
    return id === undefined ? undefined : placedPrefix(id);
  }

  /** The partition-key hash of the item stored under `stored` in one of this table's partitions. */
  hashOfStored(txn: ReadTxn, stored: Uint8Array): number {
    const ids = this.ids;
    if (ids === undefined) return readHash(stored, 0);
    return this.partitionKeyOfId(txn, readHash(stored, 0)).hash;
  }

  /**
   * The keyOf-layout key of the item stored under `stored` (`record`: its stored value, needed only
   * when `stored` is an overflow key, whose sort key bytes are cut).
   */
  keyOfStored(txn: ReadTxn, stored: Uint8Array, record: Uint8Array): EncodedKey {
    const ids = this.ids;
    if (ids === undefined) return { hash: readHash(stored, 0), bytes: stored };
    if (inOverflowRun(stored)) return this.keyOf(decodeRecordAttributes(record, this.keyNameSet));
    const named = this.partitionKeyOfId(txn, readHash(stored, 0));
    return identityFromPlaced(named.hash, named.pkPart, stored);
  }

  private partitionKeyOfId(txn: ReadTxn, id: number) {
    const named = this.ids!.partitionKeyOf(txn, id);
    if (named === undefined) throw new Error(`table ${this.name}: an item is stored under partition id ${id}, which its dictionary does not define`);
    return named;
  }

  /** Names of the key attributes, table keys first. */
  get keyNames(): readonly string[] {
    const { partitionKey, sortKey } = this.def.keySchema;
    return sortKey ? [partitionKey.name, sortKey.name] : [partitionKey.name];
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}
