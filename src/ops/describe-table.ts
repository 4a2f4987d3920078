/**
 * DescribeTable, and the TableDescription shape shared by CreateTable, UpdateTable and DeleteTable.
 * edgetable extension: `Partitions` lists each partition's hash range, item count and bytes.
 */
import { ResourceNotFoundException } from '../model/errors.js';
import { HASH_SPACE } from '../partition/partition-map.js';
import type { ReadTxn } from '../storage/txn.js';
import { readPartitionStats } from '../table/partition-stats.js';
import type { Table } from '../table/table.js';
import type { EngineContext } from './engine-context.js';
import { requestObject } from './request-checks.js';
import { readTableName } from './table-name.js';

export type TableStatus = 'CREATING' | 'ACTIVE' | 'UPDATING' | 'DELETING';

export type PartitionDescription = {
  PartitionId: number;
  HashRangeStart: number;
  HashRangeEnd: number;
  ParentPartitionId?: number;
  ItemCount: number;
  SizeBytes: number;
};

export function describeTable(ctx: EngineContext, request: unknown) {
  const name = readTableName(requestObject(request).TableName);
  const table = ctx.catalog.find(name);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${name} not found`);
  return { Table: ctx.store.read((txn) => tableDescription(txn, table, 'ACTIVE')) };
}

export function tableDescription(txn: ReadTxn, table: Table, status: TableStatus) {
  const def = table.def;
  const partitions: PartitionDescription[] = def.partitions.map((p) => {
    const stats = readPartitionStats(txn, table, p.id);
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
  const description: Record<string, unknown> = {
    AttributeDefinitions: def.AttributeDefinitions,
    TableName: def.TableName,
    KeySchema: def.KeySchema,
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
  };
  if (def.LocalSecondaryIndexes.length > 0) {
    description.LocalSecondaryIndexes = def.LocalSecondaryIndexes.map((ix) => ({
      IndexName: ix.IndexName,
      KeySchema: ix.KeySchema,
      Projection: ix.Projection,
      IndexArn: `${def.TableArn}/index/${ix.IndexName}`,
      IndexSizeBytes: 0,
      ItemCount: 0,
    }));
  }
  if (def.GlobalSecondaryIndexes.length > 0) {
    description.GlobalSecondaryIndexes = def.GlobalSecondaryIndexes.map((ix) => ({
      IndexName: ix.IndexName,
      KeySchema: ix.KeySchema,
      Projection: ix.Projection,
      IndexStatus: ix.IndexStatus,
      ...(ix.Backfilling !== undefined ? { Backfilling: ix.Backfilling } : {}),
      ProvisionedThroughput: ix.ProvisionedThroughput ?? { ReadCapacityUnits: 0, WriteCapacityUnits: 0, NumberOfDecreasesToday: 0 },
      IndexArn: `${def.TableArn}/index/${ix.IndexName}`,
      IndexSizeBytes: 0,
      ItemCount: 0,
    }));
  }
  if (def.StreamSpecification) {
    description.StreamSpecification = def.StreamSpecification;
    description.LatestStreamLabel = def.LatestStreamLabel;
    description.LatestStreamArn = `${def.TableArn}/stream/${def.LatestStreamLabel}`;
  }
  return description;
}
