/**
 * CreateTable's request rules (spec §3.1, §4.1, §4.2), kept beside the operation as data and small
 * checks. `buildTableDefinition` parses a request once (request/create-table-request.ts: the model
 * constraints), checks the semantic rules on the typed request and returns the catalog record; it
 * touches no storage, so every rule is testable without a store.
 */
import { checkThroughputQuota } from './throughput-limits.js';
import { randomUUID } from 'node:crypto';
import { INVALID_PARAMETERS, SerializationException, ValidationException } from '../../model/errors.js';
import type { AttributeDefinition, KeySchemaElement, PrimaryKeySchema } from '../../model/key-schema.js';
import type { Tag } from '../../api/table-operations.js';
import type { ScalarAttributeType } from '../../model/attribute-value.js';
import {
  MAX_GLOBAL_SECONDARY_INDEXES,
  MAX_LOCAL_SECONDARY_INDEXES,
  MAX_PROJECTED_ATTRIBUTES,
  MAX_TAGS_PER_RESOURCE,
  MAX_TABLE_NAME_CHARS,
  MIN_TABLE_NAME_CHARS,
} from '../../model/limits.js';
import { createPartitionMap, partitionCountForThroughput } from '../../partition/partition-map.js';
import {
  TABLE_FORMAT_VERSION,
  HASH_FIRST_TABLE_FORMAT,
  tableArn,
  type BillingMode,
  type GlobalIndexDefinition,
  type LocalIndexDefinition,
  type Projection,
  type ProvisionedThroughput,
  type TableDefinition,
} from '../../table/table-definition.js';
import { accept, type Converted } from './converted.js';
import { parseCreateTableRequest } from './create-table-request.js';
import type { GlobalIndexInput, LocalIndexInput } from './index-input.js';
import type { StreamSpecificationInput } from './stream-specification-input.js';
import type { ThroughputInput } from './throughput-input.js';

const MAX_PARTITIONS = 1024;

export type CreateTableOptions = { now: number; defaultPartitions?: number };

export function buildTableDefinition(request: unknown, options: CreateTableOptions): TableDefinition {
  const create = parseCreateTableRequest(request);
  const { tableName, keySchema, attributeDefinitions: attributes, billingMode } = create;
  if (tableName.length < MIN_TABLE_NAME_CHARS || tableName.length > MAX_TABLE_NAME_CHARS) {
    throw new ValidationException('TableName must be at least 3 characters long and at most 255 characters long');
  }
  const definitions = attributeMap(attributes);
  const primary = resolveTableKeySchema(keySchema, definitions);

  const throughput = readThroughput(create.provisionedThroughput, billingMode, undefined);

  const lsiInput = create.localSecondaryIndexes === undefined ? undefined : accept(create.localSecondaryIndexes);
  const gsiInput = create.globalSecondaryIndexes === undefined ? undefined : accept(create.globalSecondaryIndexes);
  if (lsiInput?.length === 0) throw invalidParam('List of LocalSecondaryIndexes is empty');
  if (gsiInput?.length === 0) throw invalidParam('List of GlobalSecondaryIndexes is empty');
  if (lsiInput && lsiInput.length > MAX_LOCAL_SECONDARY_INDEXES) {
    throw invalidParam(`Number of LocalSecondaryIndexes exceeds per-table limit of ${MAX_LOCAL_SECONDARY_INDEXES}`);
  }
  if (gsiInput && gsiInput.length > MAX_GLOBAL_SECONDARY_INDEXES) {
    throw invalidParam(`GlobalSecondaryIndex count exceeds the per-table limit of ${MAX_GLOBAL_SECONDARY_INDEXES}`);
  }
  const indexNames = new Set<string>();
  const usedAttributes = new Set(keySchema.map((k) => k.AttributeName));
  const lsis = (lsiInput ?? []).map((input) => readLocalIndex(input, primary, definitions, indexNames, usedAttributes));
  const gsis = (gsiInput ?? []).map((input) => readGlobalIndex(input, definitions, indexNames, usedAttributes, billingMode));
  checkProjectedAttributeCount([...lsis, ...gsis].map((ix) => ix.Projection));

  if (usedAttributes.size !== attributes.length) {
    throw invalidParam('Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions');
  }

  const stream = readStreamSpecification(create.streamSpecification);
  const partitionCount = readPartitionCount(create.partitionCount, billingMode, throughput, options.defaultPartitions);
  const now = options.now / 1000;
  return {
    formatVersion: primary.sortKey ? TABLE_FORMAT_VERSION : HASH_FIRST_TABLE_FORMAT,
    TableName: tableName,
    TableId: randomUUID(),
    TableArn: tableArn(tableName),
    CreationDateTime: now,
    KeySchema: keySchema,
    AttributeDefinitions: attributes,
    keySchema: primary,
    BillingMode: billingMode,
    ...(billingMode === 'PAY_PER_REQUEST' ? { LastUpdateToPayPerRequestDateTime: now } : {}),
    ProvisionedThroughput: throughput,
    partitions: createPartitionMap(partitionCount),
    nextPartitionId: partitionCount,
    LocalSecondaryIndexes: lsis,
    GlobalSecondaryIndexes: gsis,
    ...(stream ? { StreamSpecification: stream, LatestStreamLabel: new Date(options.now).toISOString().replace('Z', '') } : {}),
    TableClass: create.tableClass ?? 'STANDARD',
    DeletionProtectionEnabled: create.deletionProtection === undefined ? false : accept(create.deletionProtection),
    Tags: readTags(create.tags),
  };
}

function invalidParam(text: string): ValidationException {
  return new ValidationException(INVALID_PARAMETERS + text);
}

function attributeMap(attributes: readonly AttributeDefinition[]): Map<string, ScalarAttributeType> {
  const map = new Map<string, ScalarAttributeType>();
  for (const a of attributes) {
    if (map.has(a.AttributeName)) throw invalidParam(`Duplicate AttributeName in AttributeDefinitions: ${a.AttributeName}`);
    map.set(a.AttributeName, a.AttributeType);
  }
  return map;
}

/** The table's own key schema: HASH first, RANGE second, names distinct, every name defined. */
/**
 * The table's key schema, with DynamoDB's checks in its order (dynalite's captures): undefined
 * key attributes first (a repeated name on a one-definition table counts as undefined), then the
 * repeated name, then the key types.
 */
function resolveTableKeySchema(keySchema: readonly KeySchemaElement[], defs: Map<string, ScalarAttributeType>): PrimaryKeySchema {
  const names = keySchema.map((k) => k.AttributeName);
  const undefinedKey = names.some((n) => !defs.has(n));
  if (names.length === 2 && (undefinedKey || (names[0] === names[1] && defs.size === 1))) {
    throw new ValidationException('Invalid KeySchema: Some index key attribute have no definition');
  }
  if (names.length === 1 && undefinedKey) {
    throw invalidParam(`Some index key attributes are not defined in AttributeDefinitions. Keys: [${names.join(', ')}], AttributeDefinitions: [${[...defs.keys()].join(', ')}]`);
  }
  const [hash, range] = keySchema;
  if (range && range.AttributeName === hash!.AttributeName) {
    throw new ValidationException('Both the Hash Key and the Range Key element in the KeySchema have the same name');
  }
  if (!hash || hash.KeyType !== 'HASH') throw new ValidationException('Invalid KeySchema: The first KeySchemaElement is not a HASH key type');
  if (range && range.KeyType !== 'RANGE') throw new ValidationException('Invalid KeySchema: The second KeySchemaElement is not a RANGE key type');
  return {
    partitionKey: { name: hash.AttributeName, type: defs.get(hash.AttributeName)! },
    ...(range ? { sortKey: { name: range.AttributeName, type: defs.get(range.AttributeName)! } } : {}),
  };
}

function resolveIndexKeySchema(
  indexName: string,
  keySchema: readonly KeySchemaElement[],
  defs: Map<string, ScalarAttributeType>,
): PrimaryKeySchema {
  const [hash, range] = keySchema;
  if (!hash || hash.KeyType !== 'HASH') throw new ValidationException('Invalid KeySchema: The first KeySchemaElement is not a HASH key type');
  if (range && range.KeyType !== 'RANGE') throw new ValidationException('Invalid KeySchema: The second KeySchemaElement is not a RANGE key type');
  if (range && range.AttributeName === hash.AttributeName) {
    throw new ValidationException('Both the Hash Key and the Range Key element in the KeySchema have the same name');
  }
  const names = keySchema.map((k) => k.AttributeName);
  const missing = names.filter((n) => !defs.has(n));
  if (missing.length > 0) {
    const all = [...defs.keys()];
    throw invalidParam(`Some index key attributes are not defined in AttributeDefinitions. Keys: [${names.join(', ')}], AttributeDefinitions: [${all.join(', ')}]`);
  }
  void indexName;
  return {
    partitionKey: { name: hash.AttributeName, type: defs.get(hash.AttributeName)! },
    ...(range ? { sortKey: { name: range.AttributeName, type: defs.get(range.AttributeName)! } } : {}),
  };
}

/** An index's name, unless another index of the table has it. */
function claimIndexName(name: string, indexNames: Set<string>): void {
  if (indexNames.has(name)) throw invalidParam(`Duplicate index name: ${name}`);
  indexNames.add(name);
}

function readLocalIndex(
  input: Converted<LocalIndexInput>,
  table: PrimaryKeySchema,
  defs: Map<string, ScalarAttributeType>,
  indexNames: Set<string>,
  used: Set<string>,
): LocalIndexDefinition {
  const { indexName: name, keySchema, throughputGiven, projection } = accept(input);
  claimIndexName(name, indexNames);
  if (!table.sortKey) throw invalidParam('Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex');
  const resolved = resolveIndexKeySchema(name, keySchema, defs);
  if (resolved.partitionKey.name !== table.partitionKey.name) {
    throw invalidParam(`Index KeySchema does not have the same leading hash key as table KeySchema for index: ${name}. index hash key: ${resolved.partitionKey.name}, table hash key: ${table.partitionKey.name}`);
  }
  if (!resolved.sortKey) throw invalidParam(`Index KeySchema does not have a range key for index: ${name}`);
  if (resolved.sortKey.name === table.sortKey.name) {
    throw invalidParam('Index KeySchema: The index KeySchema must not be the same as the table KeySchema');
  }
  if (accept(throughputGiven)) throw invalidParam(`Local secondary indexes do not support ProvisionedThroughput: ${name}`);
  for (const k of keySchema) used.add(k.AttributeName);
  return { kind: 'local', IndexName: name, KeySchema: keySchema, keySchema: resolved, Projection: accept(projection) };
}

/** A GSI of CreateTable or of UpdateTable's Create action; `indexNames` are the table's other indexes. */
export function readGlobalIndex(
  input: Converted<GlobalIndexInput>,
  defs: Map<string, ScalarAttributeType>,
  indexNames: Set<string>,
  used: Set<string>,
  billingMode: BillingMode,
  status: { IndexStatus: 'ACTIVE' | 'CREATING'; Backfilling?: boolean } = { IndexStatus: 'ACTIVE' },
): GlobalIndexDefinition {
  const { indexName: name, keySchema, projection, provisionedThroughput } = accept(input);
  claimIndexName(name, indexNames);
  const resolved = resolveIndexKeySchema(name, keySchema, defs);
  const accepted = accept(projection);
  const throughput = readThroughput(provisionedThroughput, billingMode, name);
  for (const k of keySchema) used.add(k.AttributeName);
  return {
    kind: 'global',
    IndexName: name,
    KeySchema: keySchema,
    keySchema: resolved,
    Projection: accepted,
    ...status,
    ...(billingMode === 'PROVISIONED' ? { ProvisionedThroughput: throughput } : {}),
    partitions: createPartitionMap(1),
    nextPartitionId: 1,
  };
}

/**
 * The table's or an index's ProvisionedThroughput under `billingMode`: none under
 * PAY_PER_REQUEST, required under PROVISIONED. `indexName`: the GSI's, or undefined for the table.
 */
export function readThroughput(input: Converted<ThroughputInput> | undefined, billingMode: BillingMode, indexName: string | undefined): ProvisionedThroughput {
  const p = input === undefined ? undefined : accept(input);
  if (billingMode === 'PAY_PER_REQUEST') {
    if (p) {
      throw invalidParam(indexName === undefined
        ? 'Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST'
        : `ProvisionedThroughput should not be specified for index: ${indexName} when BillingMode is PAY_PER_REQUEST`);
    }
    return { ReadCapacityUnits: 0, WriteCapacityUnits: 0, NumberOfDecreasesToday: 0 };
  }
  if (!p) {
    throw invalidParam(indexName === undefined
      ? 'ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED'
      : `ProvisionedThroughput must be specified for index: ${indexName}`);
  }
  // The schema pass has checked that each is at least 1; only the embedded API can pass these.
  if (!Number.isFinite(p.ReadCapacityUnits)) throw new SerializationException('Unexpected value type for ReadCapacityUnits: expected an integer');
  if (!Number.isFinite(p.WriteCapacityUnits)) throw new SerializationException('Unexpected value type for WriteCapacityUnits: expected an integer');
  checkThroughputQuota(p.ReadCapacityUnits, p.WriteCapacityUnits, indexName);
  return { ReadCapacityUnits: p.ReadCapacityUnits, WriteCapacityUnits: p.WriteCapacityUnits, NumberOfDecreasesToday: 0 };
}

function checkProjectedAttributeCount(projections: readonly Projection[]): void {
  let total = 0;
  for (const p of projections) total += p.NonKeyAttributes?.length ?? 0;
  if (total > MAX_PROJECTED_ATTRIBUTES) {
    throw invalidParam(`The number of attributes in key schemas and projections exceeds the limit of ${MAX_PROJECTED_ATTRIBUTES}: ${total}`);
  }
}

function readStreamSpecification(input: Converted<StreamSpecificationInput> | undefined): TableDefinition['StreamSpecification'] {
  if (input === undefined) return undefined;
  const s = accept(input);
  if (!s.StreamEnabled) {
    if (s.StreamViewType !== undefined) throw invalidParam('Table is being created with a stream disabled, UpdateViewType should not be specified');
    return undefined;
  }
  if (s.StreamViewType === undefined) throw invalidParam('You must specify a StreamViewType when enabling a stream');
  return { StreamEnabled: true, StreamViewType: s.StreamViewType };
}

/** The limit on their number first, then each tag's own refusal (the parse step read them). */
function readTags(input: Converted<readonly Converted<Tag>[]> | undefined): Tag[] {
  if (input === undefined) return [];
  const tags = accept(input);
  if (tags.length > MAX_TAGS_PER_RESOURCE) throw invalidParam(`The number of tags exceeds the limit of ${MAX_TAGS_PER_RESOURCE}`);
  return tags.map((tag) => accept(tag));
}

/** edgetable extension: `PartitionCount` on CreateTable; otherwise DynamoDB's throughput formula. */
function readPartitionCount(input: Converted<number> | undefined, billing: BillingMode, throughput: ProvisionedThroughput, fallback: number | undefined): number {
  const explicit = input === undefined ? undefined : accept(input);
  if (explicit !== undefined) {
    if (explicit < 1 || explicit > MAX_PARTITIONS) throw invalidParam(`PartitionCount must be between 1 and ${MAX_PARTITIONS}`);
    return explicit;
  }
  if (fallback !== undefined) return fallback;
  if (billing === 'PAY_PER_REQUEST') return 1;
  return Math.min(MAX_PARTITIONS, partitionCountForThroughput(throughput.ReadCapacityUnits, throughput.WriteCapacityUnits));
}
