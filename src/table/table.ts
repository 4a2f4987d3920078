/**
 * A table as the engine holds it while the store is open: its catalog definition plus the
 * sub-database handles of its partitions and of its secondary indexes. Immutable; a changed
 * definition gets a new Table.
 */
import type { Item } from '../model/attribute-value.js';
import { findPartitionIndex, type PartitionRange } from '../partition/partition-map.js';
import { globalIndexDb, localIndexDb, partitionDb, tableMetaDb } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { encodeItemKey, type EncodedKey } from '../codec/item-key.js';
import type { GlobalIndexDefinition, LocalIndexDefinition, TableDefinition } from './table-definition.js';

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
};

export const DEFAULT_ITEM_COLLECTION_LIMIT_BYTES = 10 * 1024 * 1024 * 1024;

export class Table {
  readonly name: string;
  readonly partitions: readonly Partition[];
  readonly globalIndexes: readonly GlobalIndex[];
  /** Per-table records: partition statistics (partition-stats.ts). */
  readonly meta: Database;
  readonly hasIndexes: boolean;
  readonly itemCollectionLimitBytes: number;
  /** The engine's clock (TableOptions.now). */
  readonly now: () => number;

  constructor(
    readonly def: TableDefinition,
    store: Store,
    options: TableOptions = {},
  ) {
    this.itemCollectionLimitBytes = options.itemCollectionLimitBytes ?? DEFAULT_ITEM_COLLECTION_LIMIT_BYTES;
    this.now = options.now ?? Date.now;
    this.name = def.TableName;
    this.partitions = def.partitions.map((range) => ({
      range,
      db: store.database(partitionDb(def.TableName, range.id)),
      localIndexes: new Map(def.LocalSecondaryIndexes.map((ix) => [ix.IndexName, store.database(localIndexDb(def.TableName, range.id, ix.IndexName))])),
    }));
    this.globalIndexes = def.GlobalSecondaryIndexes.map((ix) => ({
      def: ix,
      partitions: ix.partitions.map((range) => ({ range, db: store.database(globalIndexDb(def.TableName, ix.IndexName, range.id)) })),
    }));
    this.meta = store.database(tableMetaDb(def.TableName));
    this.hasIndexes = def.LocalSecondaryIndexes.length + def.GlobalSecondaryIndexes.length > 0;
  }

  get keySchema() {
    return this.def.keySchema;
  }

  partitionOf(hash: number): Partition {
    return this.partitions[findPartitionIndex(this.def.partitions, hash)]!;
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
