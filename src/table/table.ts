/**
 * A table as the engine holds it while the store is open: its catalog definition plus the
 * sub-database handles of its partitions. Immutable; a changed definition gets a new Table.
 */
import type { Item } from '../model/attribute-value.js';
import { findPartitionIndex, type PartitionRange } from '../partition/partition-map.js';
import { partitionDb, tableMetaDb } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { encodeItemKey, type EncodedKey } from '../codec/item-key.js';
import type { TableDefinition } from './table-definition.js';

export type Partition = { readonly range: PartitionRange; readonly db: Database };

export class Table {
  readonly name: string;
  readonly partitions: readonly Partition[];
  /** Per-table records: partition statistics (partition-stats.ts). */
  readonly meta: Database;

  constructor(
    readonly def: TableDefinition,
    store: Store,
  ) {
    this.name = def.TableName;
    this.partitions = def.partitions.map((range) => ({ range, db: store.database(partitionDb(def.TableName, range.id)) }));
    this.meta = store.database(tableMetaDb(def.TableName));
  }

  get keySchema() {
    return this.def.keySchema;
  }

  partitionOf(hash: number): Partition {
    return this.partitions[findPartitionIndex(this.def.partitions, hash)]!;
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
