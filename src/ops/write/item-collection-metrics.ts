/**
 * ItemCollectionMetrics of multi-item writes (BatchWriteItem, TransactWriteItems): per table, one
 * element per item collection the request touched, with its size after the write (spec §4.6).
 * Only tables with LSIs have item collections.
 */
import type { Item, WireValueOutput } from '../../model/attribute-value.js';
import { toWireValue } from '../../model/binary.js';
import { itemCollectionMetrics } from '../../table/item-collections.js';
import type { Table } from '../../table/table.js';

type Metrics = ReturnType<typeof itemCollectionMetrics<WireValueOutput>>;

export class ItemCollectionMetricsCollector {
  private readonly perTable = new Map<string, Map<string, Metrics>>();

  constructor(private readonly asked: boolean) {}

  /** Records the collection holding `keyOrItem` (which carries the partition key). */
  add(requestedName: string, table: Table, keyOrItem: Item, collectionBytes: number | undefined): void {
    if (!this.asked || collectionBytes === undefined) return;
    const pkName = table.keySchema.partitionKey.name;
    const pk = toWireValue(keyOrItem[pkName]!);
    let collections = this.perTable.get(requestedName);
    if (!collections) this.perTable.set(requestedName, (collections = new Map()));
    collections.set(JSON.stringify(pk), itemCollectionMetrics(pkName, pk, collectionBytes));
  }

  response(): { ItemCollectionMetrics?: Record<string, Metrics[]> } {
    if (this.perTable.size === 0) return {};
    return { ItemCollectionMetrics: Object.fromEntries([...this.perTable].map(([name, m]) => [name, [...m.values()]])) };
  }
}
