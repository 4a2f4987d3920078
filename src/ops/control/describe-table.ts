/**
 * DescribeTable, and the TableDescription shape shared by CreateTable, UpdateTable and DeleteTable.
 * edgetable extension: `Partitions` lists each partition's hash range, item count and bytes.
 */
import { ResourceNotFoundException } from '../../model/errors.js';
import { HASH_SPACE } from '../../partition/partition-map.js';
import type { Database } from '../../storage/database.js';
import type { ReadTxn } from '../../storage/txn.js';
import { recordItemSize } from '../../codec/item-record.js';
import { readPartitionStats } from '../../table/partition-stats.js';
import type { Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { readTableName } from '../request/table-name.js';
import type { DescribeTableOutput, TableDescription } from '../../api/table-operations.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export type TableStatus = 'CREATING' | 'ACTIVE' | 'UPDATING' | 'DELETING';

export type PartitionDescription = {
  PartitionId: number;
  HashRangeStart: number;
  HashRangeEnd: number;
  ParentPartitionId?: number;
  ItemCount: number;
  SizeBytes: number;
};

export function describeTable(ctx: EngineContext, request: unknown): DescribeTableOutput {
  const name = readTableName(checkRequest(REQUEST_SCHEMAS.DescribeTable, request).TableName);
  const table = ctx.catalog.find(name);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${name} not found`);
  return { Table: ctx.store.read((txn) => tableDescription(txn, table, 'ACTIVE')) };
}

/**
 * Entries read to size an index. ItemCount is exact (LMDB keeps each tree's entry count), but
 * sizes live only in each record's header, so an index with more entries than this is sized from
 * the mean entry size of the first ones (in key order) times its count: DescribeTable stays O(1) in
 * the index size, like DynamoDB's own figures, which are refreshed only every ~6 hours.
 */
export const INDEX_SIZE_SAMPLE_ENTRIES = 10_000;

/** ItemCount and IndexSizeBytes (entry sizes per spec §4.2, without billing overhead) of one index. */
function indexStats(txn: ReadTxn, dbs: readonly Database[]): { IndexSizeBytes: number; ItemCount: number } {
  let count = 0;
  for (const db of dbs) count += txn.count(db);
  let sampled = 0;
  let bytes = 0;
  for (const db of dbs) {
    for (const entry of txn.cursor(db)) {
      if (sampled >= INDEX_SIZE_SAMPLE_ENTRIES) break;
      bytes += recordItemSize(entry.value);
      sampled++;
    }
  }
  const size = sampled === count ? bytes : sampled === 0 ? 0 : Math.round((bytes / sampled) * count);
  return { IndexSizeBytes: size, ItemCount: count };
}

export function tableDescription(txn: ReadTxn, table: Table, status: TableStatus): TableDescription {
  const def = table.def;
  const partitions: PartitionDescription[] = def.partitions.map((p, i) => {
    const stats = readPartitionStats(txn, table.partitions[i]!.db);
    return {
      PartitionId: p.id,
      HashRangeStart: p.start,
      HashRangeEnd: Math.min(p.end, HASH_SPACE) - 1,
      ...(p.parent !== undefined ? { ParentPartitionId: p.parent } : {}),
      ItemCount: stats.itemCount,
      SizeBytes: stats.itemBytes,
    };
  });
  const itemCount = partitions.reduce((n, p) => n + p.ItemCount, 0);
  const sizeBytes = partitions.reduce((n, p) => n + p.SizeBytes, 0);
  return {
    AttributeDefinitions: [...def.AttributeDefinitions],
    TableName: def.TableName,
    KeySchema: [...def.KeySchema],
    TableStatus: status,
    CreationDateTime: def.CreationDateTime,
    ProvisionedThroughput: def.ProvisionedThroughput,
    TableSizeBytes: sizeBytes,
    ItemCount: itemCount,
    TableArn: def.TableArn,
    TableId: def.TableId,
    BillingModeSummary: {
      BillingMode: def.BillingMode,
      ...(def.LastUpdateToPayPerRequestDateTime !== undefined ? { LastUpdateToPayPerRequestDateTime: def.LastUpdateToPayPerRequestDateTime } : {}),
    },
    TableClassSummary: { TableClass: def.TableClass },
    DeletionProtectionEnabled: def.DeletionProtectionEnabled,
    Partitions: partitions,
    ...(def.LocalSecondaryIndexes.length > 0
      ? {
          LocalSecondaryIndexes: def.LocalSecondaryIndexes.map((ix) => ({
            IndexName: ix.IndexName,
            KeySchema: [...ix.KeySchema],
            Projection: ix.Projection,
            IndexArn: `${def.TableArn}/index/${ix.IndexName}`,
            ...indexStats(txn, table.partitions.map((p) => p.localIndexes.get(ix.IndexName)!)),
          })),
        }
      : {}),
    ...(def.GlobalSecondaryIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map((ix) => ({
            IndexName: ix.IndexName,
            KeySchema: [...ix.KeySchema],
            Projection: ix.Projection,
            IndexStatus: ix.IndexStatus,
            ...(ix.Backfilling !== undefined ? { Backfilling: ix.Backfilling } : {}),
            // edgetable extension: how far an UpdateTable-created index's backfill has got.
            ...(ix.backfill ? { BackfillProgress: { ItemsProcessed: ix.backfill.itemsProcessed, ItemsTotal: itemCount } } : {}),
            ProvisionedThroughput: ix.ProvisionedThroughput ?? { ReadCapacityUnits: 0, WriteCapacityUnits: 0, NumberOfDecreasesToday: 0 },
            IndexArn: `${def.TableArn}/index/${ix.IndexName}`,
            ...indexStats(txn, table.globalIndex(ix.IndexName)?.partitions.map((p) => p.db) ?? []),
          })),
        }
      : {}),
    ...(def.StreamSpecification ? { StreamSpecification: def.StreamSpecification } : {}),
    // Kept after the stream is disabled, as DynamoDB does.
    ...(def.LatestStreamLabel !== undefined ? { LatestStreamLabel: def.LatestStreamLabel, LatestStreamArn: `${def.TableArn}/stream/${def.LatestStreamLabel}` } : {}),
  };
}
