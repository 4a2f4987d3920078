/**
 * Request and response types of the table operations: CreateTable, DescribeTable, ListTables,
 * UpdateTable, DeleteTable, UpdateTimeToLive, DescribeTimeToLive, TagResource, UntagResource,
 * ListTagsOfResource, DescribeLimits. AWS member names; edgetable's extensions are marked.
 */

export type ScalarAttributeType = 'S' | 'N' | 'B';
export type KeyType = 'HASH' | 'RANGE';
export type BillingMode = 'PROVISIONED' | 'PAY_PER_REQUEST';
export type ProjectionType = 'KEYS_ONLY' | 'INCLUDE' | 'ALL';
export type StreamViewType = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';
export type TableClass = 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
export type TableStatus = 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';
export type IndexStatus = 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';

export type AttributeDefinition = { AttributeName: string; AttributeType: ScalarAttributeType };
export type KeySchemaElement = { AttributeName: string; KeyType: KeyType };
export type Projection = { ProjectionType?: ProjectionType; NonKeyAttributes?: readonly string[] };
export type ProvisionedThroughput = { ReadCapacityUnits: number; WriteCapacityUnits: number };
export type StreamSpecification = { StreamEnabled: boolean; StreamViewType?: StreamViewType };
export type Tag = { Key: string; Value: string };

export type LocalSecondaryIndex = {
  IndexName: string;
  KeySchema: readonly KeySchemaElement[];
  Projection: Projection;
};

export type GlobalSecondaryIndex = LocalSecondaryIndex & {
  ProvisionedThroughput?: ProvisionedThroughput;
};

export type CreateTableInput = {
  TableName: string;
  AttributeDefinitions: readonly AttributeDefinition[];
  KeySchema: readonly KeySchemaElement[];
  LocalSecondaryIndexes?: readonly LocalSecondaryIndex[];
  GlobalSecondaryIndexes?: readonly GlobalSecondaryIndex[];
  BillingMode?: BillingMode;
  ProvisionedThroughput?: ProvisionedThroughput;
  StreamSpecification?: StreamSpecification;
  TableClass?: TableClass;
  DeletionProtectionEnabled?: boolean;
  Tags?: readonly Tag[];
  /** edgetable extension: the number of hash partitions (else DynamoDB's throughput formula). */
  PartitionCount?: number;
};

export type ProvisionedThroughputDescription = {
  ReadCapacityUnits: number;
  WriteCapacityUnits: number;
  NumberOfDecreasesToday: number;
  LastIncreaseDateTime?: number;
  LastDecreaseDateTime?: number;
};

/** edgetable extension in TableDescription: one hash partition. */
export type PartitionDescription = {
  PartitionId: number;
  HashRangeStart: number;
  HashRangeEnd: number;
  ParentPartitionId?: number;
  ItemCount: number;
  SizeBytes: number;
};

export type LocalSecondaryIndexDescription = {
  IndexName: string;
  KeySchema: KeySchemaElement[];
  Projection: Projection;
  IndexArn: string;
  IndexSizeBytes: number;
  ItemCount: number;
};

export type GlobalSecondaryIndexDescription = LocalSecondaryIndexDescription & {
  IndexStatus: IndexStatus;
  Backfilling?: boolean;
  /** edgetable extension: how far the backfill of an index added by UpdateTable has got. */
  BackfillProgress?: { ItemsProcessed: number; ItemsTotal: number };
  ProvisionedThroughput: ProvisionedThroughputDescription;
};

export type TableDescription = {
  AttributeDefinitions: AttributeDefinition[];
  TableName: string;
  KeySchema: KeySchemaElement[];
  TableStatus: TableStatus;
  /** Epoch seconds. */
  CreationDateTime: number;
  ProvisionedThroughput: ProvisionedThroughputDescription;
  TableSizeBytes: number;
  ItemCount: number;
  TableArn: string;
  TableId: string;
  BillingModeSummary: { BillingMode: BillingMode; LastUpdateToPayPerRequestDateTime?: number };
  TableClassSummary: { TableClass: TableClass };
  DeletionProtectionEnabled: boolean;
  LocalSecondaryIndexes?: LocalSecondaryIndexDescription[];
  GlobalSecondaryIndexes?: GlobalSecondaryIndexDescription[];
  StreamSpecification?: StreamSpecification;
  LatestStreamLabel?: string;
  LatestStreamArn?: string;
  /** edgetable extension: the table's hash partitions. */
  Partitions: PartitionDescription[];
};

export type CreateTableOutput = { TableDescription: TableDescription };

export type DescribeTableInput = { TableName: string };
export type DescribeTableOutput = { Table: TableDescription };

export type ListTablesInput = { ExclusiveStartTableName?: string; Limit?: number };
export type ListTablesOutput = { TableNames: string[]; LastEvaluatedTableName?: string };

export type DeleteTableInput = { TableName: string };
export type DeleteTableOutput = { TableDescription: TableDescription };

export type GlobalSecondaryIndexUpdate =
  | { Create: GlobalSecondaryIndex; Update?: never; Delete?: never }
  | { Update: { IndexName: string; ProvisionedThroughput: ProvisionedThroughput }; Create?: never; Delete?: never }
  | { Delete: { IndexName: string }; Create?: never; Update?: never };

export type UpdateTableInput = {
  TableName: string;
  AttributeDefinitions?: readonly AttributeDefinition[];
  BillingMode?: BillingMode;
  ProvisionedThroughput?: ProvisionedThroughput;
  GlobalSecondaryIndexUpdates?: readonly GlobalSecondaryIndexUpdate[];
  StreamSpecification?: StreamSpecification;
  TableClass?: TableClass;
  DeletionProtectionEnabled?: boolean;
};
export type UpdateTableOutput = { TableDescription: TableDescription };

export type TimeToLiveSpecification = { Enabled: boolean; AttributeName: string };
export type UpdateTimeToLiveInput = {
  TableName: string;
  TimeToLiveSpecification: TimeToLiveSpecification;
  /** edgetable extension: reads skip expired items not yet deleted (default true). */
  HideExpiredItems?: boolean;
};
export type UpdateTimeToLiveOutput = { TimeToLiveSpecification: TimeToLiveSpecification };

export type DescribeTimeToLiveInput = { TableName: string };
export type DescribeTimeToLiveOutput = {
  TimeToLiveDescription: { TimeToLiveStatus: 'ENABLING' | 'DISABLING' | 'ENABLED' | 'DISABLED'; AttributeName?: string };
};

export type TagResourceInput = { ResourceArn: string; Tags: readonly Tag[] };
export type TagResourceOutput = Record<string, never>;
export type UntagResourceInput = { ResourceArn: string; TagKeys: readonly string[] };
export type UntagResourceOutput = Record<string, never>;
export type ListTagsOfResourceInput = { ResourceArn: string; NextToken?: string };
export type ListTagsOfResourceOutput = { Tags: Tag[]; NextToken?: string };

/** DescribeLimits takes no parameters. */
export type DescribeLimitsInput = Record<string, never>;
/** DescribeEndpoints takes no parameters. */
export type DescribeEndpointsInput = Record<string, never>;
export type DescribeEndpointsOutput = { Endpoints: { Address: string; CachePeriodInMinutes: number }[] };
export type DescribeLimitsOutput = {
  AccountMaxReadCapacityUnits: number;
  AccountMaxWriteCapacityUnits: number;
  TableMaxReadCapacityUnits: number;
  TableMaxWriteCapacityUnits: number;
};
