/**
 * The catalog record of one table: everything DescribeTable reports plus what the engine needs to
 * find the table's partitions and indexes. Stored as JSON in `_catalog` (database-names.ts), one
 * entry per table; `FORMAT_VERSION` is bumped whenever a field changes meaning.
 */
import type { AttributeDefinition, KeySchemaElement, PrimaryKeySchema } from '../model/key-schema.js';
import type { PartitionMap, PartitionRange } from '../partition/partition-map.js';

/**
 * Table formats: 1 stores base items under keys that start with the partition key's hash
 * ('hash-first', codec/item-key.ts); 3 stores the base items of a table with a sort key under its
 * partition key's dense id ('partition-id': codec/item-key.ts placedKey, table/partition-ids.ts).
 * Index entries, expiry entries and sync records name items by their hash-first key in both.
 * CreateTable writes 3 for tables with a sort key and 1 for the others (every item its own
 * partition key: an id would only add a lookup). 2 was never released
 * (docs/decisions/009-partition-id-placement.md). A table keeps the format it was created with.
 */
export const TABLE_FORMAT_VERSION = 3;
export const HASH_FIRST_TABLE_FORMAT = 1;

export type KeyLayout = 'hash-first' | 'partition-id';

/** Where a table's base items are stored by key (see TABLE_FORMAT_VERSION). */
export function keyLayoutOf(def: Pick<TableDefinition, 'formatVersion' | 'TableName'>): KeyLayout {
  if (def.formatVersion === 1) return 'hash-first';
  if (def.formatVersion === 3) return 'partition-id';
  throw new RangeError(`table ${def.TableName} has table format ${def.formatVersion}, which this build of edgetable does not read`);
}

export type BillingMode = 'PROVISIONED' | 'PAY_PER_REQUEST';
export type ProjectionType = 'KEYS_ONLY' | 'INCLUDE' | 'ALL';
export type IndexStatus = 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';
export type StreamViewType = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';

export type Projection = {
  readonly ProjectionType: ProjectionType;
  readonly NonKeyAttributes?: readonly string[];
};

export type ProvisionedThroughput = {
  readonly ReadCapacityUnits: number;
  readonly WriteCapacityUnits: number;
  readonly NumberOfDecreasesToday: number;
  readonly LastIncreaseDateTime?: number;
  readonly LastDecreaseDateTime?: number;
};

export type LocalIndexDefinition = {
  readonly kind: 'local';
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly keySchema: PrimaryKeySchema;
  readonly Projection: Projection;
};

export type GlobalIndexDefinition = {
  readonly kind: 'global';
  readonly IndexName: string;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly keySchema: PrimaryKeySchema;
  readonly Projection: Projection;
  readonly IndexStatus: IndexStatus;
  /** Present only for indexes added by UpdateTable (DynamoDB omits it for CreateTable's). */
  readonly Backfilling?: boolean;
  readonly ProvisionedThroughput?: ProvisionedThroughput;
  readonly partitions: PartitionMap;
  readonly nextPartitionId: number;
  /** Where the backfill of an index added by UpdateTable has got to; absent once it is ACTIVE. */
  readonly backfill?: BackfillCursor;
};

/**
 * Backfill position: base partitions are walked in order; `after` is the last base key processed
 * in partition `partition` (base64), absent at the start of that partition.
 */
export type BackfillCursor = {
  readonly partition: number;
  readonly after?: string;
  readonly itemsProcessed: number;
};

export type SplitInProgress = {
  readonly parent: number;
  readonly left: PartitionRange;
  readonly right: PartitionRange;
};

export type IndexDefinition = LocalIndexDefinition | GlobalIndexDefinition;

export type TableDefinition = {
  readonly formatVersion: number;
  readonly TableName: string;
  readonly TableId: string;
  readonly TableArn: string;
  /** Epoch seconds (fractional), as DescribeTable returns it. */
  readonly CreationDateTime: number;
  readonly KeySchema: readonly KeySchemaElement[];
  readonly AttributeDefinitions: readonly AttributeDefinition[];
  readonly keySchema: PrimaryKeySchema;
  readonly BillingMode: BillingMode;
  readonly LastUpdateToPayPerRequestDateTime?: number;
  readonly ProvisionedThroughput: ProvisionedThroughput;
  readonly partitions: PartitionMap;
  readonly nextPartitionId: number;
  /**
   * Partitions that split (partition-split.ts): their ranges and lineage, kept so the change-log
   * shards they leave behind stay listed with their children (DynamoDB Streams' parent shards).
   */
  readonly retiredPartitions?: PartitionMap;
  /**
   * A split in progress (partition-split.ts): `parent` is still in `partitions` and serves every
   * read and write; writes to it are mirrored into `left`/`right` while its entries are copied.
   * Absent in stores written before bounded splits, and absent when no split runs.
   */
  readonly split?: SplitInProgress;
  readonly LocalSecondaryIndexes: readonly LocalIndexDefinition[];
  readonly GlobalSecondaryIndexes: readonly GlobalIndexDefinition[];
  readonly StreamSpecification?: { readonly StreamEnabled: boolean; readonly StreamViewType?: StreamViewType };
  readonly LatestStreamLabel?: string;
  /**
   * Set when the latest stream was disabled (stream/stream-update.ts): its view type and when it
   * ended, so its records stay readable by its ARN (streams-api/) until trimmed.
   */
  readonly LatestStreamEnd?: { readonly StreamViewType: StreamViewType; readonly disabledAtMs: number };
  readonly TableClass: 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
  readonly DeletionProtectionEnabled: boolean;
  readonly Tags: readonly { readonly Key: string; readonly Value: string }[];
  /** Time to Live (UpdateTimeToLive); absent while disabled. */
  readonly TimeToLive?: TimeToLiveSettings;
};

/**
 * An enabled TTL. `hideExpired` (edgetable extension, default true): reads skip items that have
 * expired but are not yet deleted by the sweeper; DynamoDB returns them.
 */
export type TimeToLiveSettings = {
  readonly AttributeName: string;
  readonly hideExpired: boolean;
  /**
   * The expiry index (ttl/expiry-index.ts) holds every item: set by the sweeper after its first
   * whole pass over the table. Absent after TTL is enabled and in stores written before the index.
   */
  readonly indexed?: boolean;
};

export const REGION = 'ddblocal';
export const ACCOUNT = '000000000000';

export function tableArn(name: string): string {
  return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
}
