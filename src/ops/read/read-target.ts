/**
 * What a Query or Scan reads: the table itself, a local secondary index (entries beside each base
 * partition) or a global secondary index (its own partitions), with DynamoDB's rules for reading
 * indexes (spec §4.1, §4.3): unknown index, consistent reads and ALL_ATTRIBUTES on GSIs, GSIs that
 * are still backfilling.
 */
import type { Item } from '../../model/attribute-value.js';
import { EdgetableError, ValidationException } from '../../model/errors.js';
import type { PrimaryKeySchema } from '../../model/key-schema.js';
import { validateItem } from '../../model/validate-attribute-value.js';
import type { ValueLayer } from '../../model/value-layer.js';
import { checkKey } from '../../model/key-rules.js';
import { indexFullKeyBytes, indexKeyBytes, indexKeyNames, isProjected } from '../../indexes/index-entry.js';
import { encodeFullItemKey } from '../../codec/item-key.js';
import type { Database } from '../../storage/database.js';
import type { PartitionMap } from '../../partition/partition-map.js';
import type { LocalIndexDefinition } from '../../table/table-definition.js';
import type { GlobalIndex, Table } from '../../table/table.js';
import type { Select } from './read-page.js';

export type ReadTarget = {
  readonly table: Table;
  /** Key schema the key condition applies to. */
  readonly keySchema: PrimaryKeySchema;
  /** Attributes a LastEvaluatedKey / ExclusiveStartKey carries. */
  readonly keyNames: readonly string[];
  /** The target's partitions in hash order, each with the database to walk. */
  readonly partitions: readonly { readonly start: number; readonly end: number; readonly db: Database }[];
  readonly partitionMap: PartitionMap;
  /** The local index, when base items may have to be fetched for non-projected attributes. */
  readonly local: LocalIndexDefinition | undefined;
  readonly global: GlobalIndex | undefined;
  readonly keyNameSet: ReadonlySet<string>;
  /**
   * Whether a stored key can reach codec/item-key.ts's overflow prefix (495 bytes), so a Query must
   * see keys to re-sort overflow runs. Only string or binary sort keys (the target's or, for an
   * index, the table's) can: a partition key part is at most 129 bytes and a number 22, so keys
   * with number sort keys stay under 310 bytes.
   */
  readonly keysMayOverflow: boolean;
  /** Storage key bytes of an ExclusiveStartKey (validated) in this target's key space. */
  startKeyBytes(key: Item): { hash: number; bytes: Uint8Array };
  /** Full (untruncated, codec/item-key.ts) key bytes of a key or record holding the target's key attributes. */
  fullKeyBytes(key: Item): { hash: number; bytes: Uint8Array };
  /** Whether attribute `name` is stored in this target's records. */
  projects(name: string): boolean;
};

/**
 * Targets built once per Table (a Table is immutable: a changed definition is a new Table), so a
 * request costs a map lookup instead of new arrays and closures. Keyed by index name; '' is the table.
 */
const targets = new WeakMap<Table, Map<string, ReadTarget>>();

export function resolveReadTarget(table: Table, indexName: unknown, consistent: boolean, select: Select | undefined): ReadTarget {
  let perTable = targets.get(table);
  if (perTable === undefined) targets.set(table, (perTable = new Map()));
  if (indexName === undefined) {
    let target = perTable.get('');
    if (target === undefined) perTable.set('', (target = tableTarget(table)));
    return target;
  }
  const cached = typeof indexName === 'string' ? perTable.get(indexName) : undefined;
  if (cached !== undefined) {
    checkIndexRead(cached.global, indexName as string, consistent, select);
    return cached;
  }
  const target = indexTarget(table, indexName, consistent, select);
  perTable.set(indexName as string, target);
  return target;
}

function tableTarget(table: Table): ReadTarget {
  return {
    table,
    keySchema: table.keySchema,
    keyNames: table.keyNames,
    keyNameSet: new Set(table.keyNames),
    keysMayOverflow: longSortKey(table.keySchema),
    partitions: table.partitions.map((p) => ({ start: p.range.start, end: p.range.end, db: p.db })),
    partitionMap: table.def.partitions,
    local: undefined,
    global: undefined,
    startKeyBytes: (key) => table.keyOf(key),
    fullKeyBytes: (key) => encodeFullItemKey(key, table.keySchema),
    projects: () => true,
  };
}

function indexTarget(table: Table, indexName: unknown, consistent: boolean, select: Select | undefined): ReadTarget {
  if (typeof indexName !== 'string' || indexName.length < 3 || indexName.length > 255 || !/^[a-zA-Z0-9_.-]+$/.test(indexName)) {
    throw new ValidationException(
      `1 validation error detected: Value '${String(indexName)}' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+`,
    );
  }
  const local = table.localIndex(indexName);
  const global = table.globalIndex(indexName);
  const index = local ?? global?.def;
  if (!index) throw new ValidationException(`The table does not have the specified index: ${indexName}`);
  checkIndexRead(global, indexName, consistent, select);
  const keyNames = indexKeyNames(index, table.keySchema);
  const partitions = local
    ? table.partitions.map((p) => ({ start: p.range.start, end: p.range.end, db: p.localIndexes.get(indexName)! }))
    : global!.partitions.map((p) => ({ start: p.range.start, end: p.range.end, db: p.db }));
  return {
    table,
    keySchema: index.keySchema,
    keyNames,
    keyNameSet: new Set(keyNames),
    keysMayOverflow: longSortKey(index.keySchema) || longSortKey(table.keySchema),
    partitions,
    partitionMap: local ? table.def.partitions : global!.def.partitions,
    local,
    global,
    startKeyBytes: (key) => indexKeyBytes(index, table.keySchema, key),
    fullKeyBytes: (key) => indexFullKeyBytes(index, table.keySchema, key),
    projects: (name) => isProjected(index, table.keySchema, name),
  };
}

function longSortKey(schema: PrimaryKeySchema): boolean {
  return schema.sortKey !== undefined && schema.sortKey.type !== 'N';
}

/** DynamoDB's rules for reading a global secondary index; nothing to check on a local one. */
function checkIndexRead(global: GlobalIndex | undefined, indexName: string, consistent: boolean, select: Select | undefined): void {
  if (!global) return;
  if (consistent) throw new ValidationException('Consistent reads are not supported on global secondary indexes');
  if (global.def.IndexStatus !== 'ACTIVE') throw new ValidationException(`Cannot read from backfilling global secondary index: ${indexName}`);
  if (select === 'ALL_ATTRIBUTES' && global.def.Projection.ProjectionType !== 'ALL') {
    throw new ValidationException(
      `One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index ${indexName} because its projection type is not ALL`,
    );
  }
}

/**
 * A validated ExclusiveStartKey: exactly the target's key attributes with their declared types
 * (table keys for a table; table and index keys for an index). A value the operation's checker
 * (`layer`) refuses is reported as it is, like any other value; only a key that does not fit
 * the target is `The provided starting key is invalid: ...` (2026-10 captures, Query).
 */
export function readStartKey(target: ReadTarget, raw: unknown, layer: ValueLayer = 'current'): Item | undefined {
  if (raw === undefined) return undefined;
  const key = validateItem(raw, layer);
  try {
    const names = Object.keys(key);
    if (names.length !== target.keyNames.length || !target.keyNames.every((n) => key[n] !== undefined)) {
      throw new ValidationException('The provided key element does not match the schema');
    }
    checkKey(pick(key, target.table.keySchema), target.table.keySchema);
    if (target.keySchema !== target.table.keySchema) checkKey(pick(key, target.keySchema), target.keySchema);
    return key;
  } catch (e) {
    if (e instanceof EdgetableError) throw new ValidationException(`The provided starting key is invalid: ${e.message}`);
    throw e;
  }
}

function pick(key: Item, schema: PrimaryKeySchema): Item {
  const out: Record<string, Item[string]> = { [schema.partitionKey.name]: key[schema.partitionKey.name]! };
  if (schema.sortKey) out[schema.sortKey.name] = key[schema.sortKey.name]!;
  return out;
}
