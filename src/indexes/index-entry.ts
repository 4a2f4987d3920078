/**
 * The entry an item contributes to one secondary index (spec §4.2, §4.4), or none (sparse).
 *
 *   LSI key := hash(pk):u32be pkPart(pk) enc(lsiSk) enc(sk)
 *   GSI key := hash(gpk):u32be pkPart(gpk) [enc(gsk)] hash(pk):u32be pkPart(pk) [enc(sk)]
 *   value   := an item record (codec/item-record.ts) of the projected attributes
 *
 * pkPart is codec/item-key.ts's inline-or-digest form, so the index key starts exactly like a base
 * key of the index's own key schema: Query bounds are computed the same way for tables and
 * indexes. The table's key follows to make entries unique and to order ties stably. The LMDB key
 * is storedKey(key) (codec/item-key.ts): a key over 511 bytes becomes a 495-byte prefix and a
 * digest, and ordered readers re-sort runs sharing that prefix by the full key, which every entry
 * can rebuild because every projection carries the table's and the index's key attributes.
 */
import { encodeKeyValue } from '../codec/key-bytes.js';
import type { AttributeValue, Item, KeyValue } from '../model/attribute-value.js';
import { typeOf } from '../model/attribute-value.js';
import { INVALID_PARAMETERS, ValidationException } from '../model/errors.js';
import { itemSize } from '../model/item-size.js';
import type { KeyAttribute, PrimaryKeySchema } from '../model/key-schema.js';
import { MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES } from '../model/limits.js';
import { encodePartitionPrefix, storedKey } from '../codec/item-key.js';
import type { SecondaryIndex as IndexDefinition } from './secondary-index.js';

export type IndexEntry = {
  /** Hash of the index partition key: picks the GSI partition (LSIs live with the base item). */
  readonly hash: number;
  readonly key: Uint8Array;
  readonly item: Item;
  readonly size: number;
};

/** What to do with an item whose index key is malformed: reject the write, or leave it out. */
export type KeyViolation = 'reject' | 'skip';

/**
 * The index entry of `item`, or undefined when the item lacks an index key attribute.
 * With 'reject', a wrong type, an empty value or an oversized value throws DynamoDB's message; with
 * 'skip' (a GSI being backfilled), such an item is left out of the index.
 */
export function indexEntryFor(index: IndexDefinition, table: PrimaryKeySchema, item: Item, onViolation: KeyViolation = 'reject'): IndexEntry | undefined {
  const { partitionKey, sortKey } = index.keySchema;
  const ipk = item[partitionKey.name];
  const isk = sortKey ? item[sortKey.name] : undefined;
  // A present key attribute is checked even when the other one is missing (DynamoDB rejects a
  // wrong-typed index key attribute whether or not the item would enter the index, spec §4.4).
  if (ipk !== undefined && !keyValueOk(index, partitionKey, ipk, true, onViolation)) return undefined;
  if (sortKey && isk !== undefined && !keyValueOk(index, sortKey, isk, false, onViolation)) return undefined;
  if (ipk === undefined || (sortKey && isk === undefined)) return undefined;
  const key = indexKeyBytes(index, table, item);
  return { hash: key.hash, key: key.bytes, ...projectEntry(index, table, item) };
}

/** Storage key bytes of an index entry for an item (or an ExclusiveStartKey) holding all key attributes. */
export function indexKeyBytes(index: IndexDefinition, table: PrimaryKeySchema, item: Item): { hash: number; bytes: Uint8Array } {
  const full = indexFullKeyBytes(index, table, item);
  return { hash: full.hash, bytes: storedKey(full.bytes) };
}

/** The full (untruncated) index key, whose memcmp order is the index's order within a partition key. */
export function indexFullKeyBytes(index: IndexDefinition, table: PrimaryKeySchema, item: Item): { hash: number; bytes: Uint8Array } {
  const { partitionKey, sortKey } = index.keySchema;
  const prefix = encodePartitionPrefix(item[partitionKey.name] as KeyValue);
  const parts: Uint8Array[] = [prefix.bytes];
  if (sortKey) parts.push(encodeKeyValue(item[sortKey.name] as KeyValue));
  if (index.kind === 'global') parts.push(encodePartitionPrefix(item[table.partitionKey.name] as KeyValue).bytes);
  if (table.sortKey) parts.push(encodeKeyValue(item[table.sortKey.name] as KeyValue));
  let length = 0;
  for (const p of parts) length += p.length;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { hash: prefix.hash, bytes };
}

/** Names of every key attribute an index entry carries: table keys then index keys. */
export function indexKeyNames(index: IndexDefinition, table: PrimaryKeySchema): string[] {
  const names = [table.partitionKey.name];
  if (table.sortKey) names.push(table.sortKey.name);
  for (const k of [index.keySchema.partitionKey, index.keySchema.sortKey]) {
    if (k && !names.includes(k.name)) names.push(k.name);
  }
  return names;
}

/** Whether `name` is stored in the index's entries. */
export function isProjected(index: IndexDefinition, table: PrimaryKeySchema, name: string): boolean {
  const p = index.Projection;
  if (p.ProjectionType === 'ALL') return true;
  if (indexKeyNames(index, table).includes(name)) return true;
  return p.ProjectionType === 'INCLUDE' && (p.NonKeyAttributes ?? []).includes(name);
}

function projectEntry(index: IndexDefinition, table: PrimaryKeySchema, item: Item): { item: Item; size: number } {
  if (index.Projection.ProjectionType === 'ALL') return { item, size: itemSize(item) };
  const out: Record<string, AttributeValue> = {};
  for (const name of indexKeyNames(index, table)) out[name] = item[name]!;
  if (index.Projection.ProjectionType === 'INCLUDE') {
    for (const name of index.Projection.NonKeyAttributes ?? []) {
      const v = item[name];
      if (v !== undefined) out[name] = v;
    }
  }
  return { item: out, size: itemSize(out) };
}

/** What makes a value unfit to be an index key attribute's (spec §4.4), if anything. */
export type IndexKeyProblem = 'type' | 'empty' | 'size';

export function indexKeyProblem(attr: KeyAttribute, value: AttributeValue, isPartition: boolean): IndexKeyProblem | undefined {
  if (typeOf(value) !== attr.type) return 'type';
  const bytes = attr.type === 'S' ? Buffer.byteLength((value as { S: string }).S) : attr.type === 'B' ? (value as { B: Uint8Array }).B.length : -1;
  if (bytes === 0) return 'empty';
  if (bytes > (isPartition ? MAX_PARTITION_KEY_BYTES : MAX_SORT_KEY_BYTES)) return 'size';
  return undefined;
}

/** The put form of each problem's message; an update expression gets its own (check-index-keys.ts). */
function keyValueOk(index: IndexDefinition, attr: KeyAttribute, value: AttributeValue, isPartition: boolean, onViolation: KeyViolation): boolean {
  const found = indexKeyProblem(attr, value, isPartition);
  if (found === undefined) return true;
  if (onViolation === 'skip') return false;
  switch (found) {
    case 'type':
      throw new ValidationException(`${INVALID_PARAMETERS}Type mismatch for Index Key ${attr.name} Expected: ${attr.type} Actual: ${typeOf(value)} IndexName: ${index.IndexName}`);
    case 'empty':
      throw new ValidationException(
        `One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty ${attr.type === 'S' ? 'string' : 'binary'} value. IndexName: ${index.IndexName}, IndexKey: ${attr.name}`,
      );
    case 'size':
      throw new ValidationException(
        isPartition
          ? `${INVALID_PARAMETERS}Size of hashkey has exceeded the maximum size limit of2048 bytes`
          : `${INVALID_PARAMETERS}Aggregated size of all range keys has exceeded the size limit of 1024 bytes`,
      );
  }
}
