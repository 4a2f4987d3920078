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
import type { ReadTxn } from '../storage/txn.js';
import { CatalogChangedError } from './catalog-changed.js';
import { findPartitionIndex, type PartitionRange } from '../partition/partition-map.js';
import { CATALOG_DB, expiryIndexDb, globalIndexDb, localIndexDb, partitionDb, tableMetaDb } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { encodeItemKey, type EncodedKey } from '../codec/item-key.js';
import { attributeNamesOf, type AttributeNames } from './attribute-names.js';
import type { ChangeFeed } from '../observe/change-feed.js';
import type { GlobalIndexDefinition, LocalIndexDefinition, TableDefinition } from './table-definition.js';

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

  /** Names of the key attributes, table keys first. */
  get keyNames(): readonly string[] {
    const { partitionKey, sortKey } = this.def.keySchema;
    return sortKey ? [partitionKey.name, sortKey.name] : [partitionKey.name];
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}
