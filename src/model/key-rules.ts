/**
 * Key attribute rules for written items and for `Key` parameters
 * (../shared/spec/DYNAMODB.md §1.6, §3.2, §8.4). Checks run per key attribute, partition key
 * first: presence, type, non-empty, byte size.
 */
import { typeOf } from './attribute-value.js';
import type { AttributeValue, Item } from './attribute-value.js';
import { INVALID_PARAMETERS, invalid } from './errors.js';
import type { KeyAttribute, PrimaryKeySchema } from './key-schema.js';
import { MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES } from './limits.js';
import { setOwn } from './set-own.js';
import { utf8ByteLength } from './utf8.js';

const SCHEMA_MISMATCH = 'The provided key element does not match the schema';
const HASH_KEY_TOO_LARGE = `${INVALID_PARAMETERS}Size of hashkey has exceeded the maximum size limit of2048 bytes`;
const RANGE_KEY_TOO_LARGE = `${INVALID_PARAMETERS}Aggregated size of all range keys has exceeded the size limit of 1024 bytes`;

/**
 * Rules for an item about to be written (PutItem, BatchWriteItem put, the result of UpdateItem):
 * every key attribute present with its declared type, non-empty, within its byte limit.
 * @throws ValidationException
 */
export function checkItemKey(item: Item, schema: PrimaryKeySchema): void {
  checkItemKeyAttribute(item, schema.partitionKey, true);
  if (schema.sortKey !== undefined) checkItemKeyAttribute(item, schema.sortKey, false);
}

/**
 * Rules for a `Key` parameter (GetItem, DeleteItem, UpdateItem, ConditionCheck, BatchGet):
 * exactly the key attributes with their declared types, then the empty-value and size rules.
 * @throws ValidationException
 */
export function checkKey(key: Item, schema: PrimaryKeySchema): void {
  let count = 0;
  for (const name in key) {
    if (name !== schema.partitionKey.name && name !== schema.sortKey?.name) throw invalid(SCHEMA_MISMATCH);
    count++;
  }
  if (count !== (schema.sortKey === undefined ? 1 : 2)) throw invalid(SCHEMA_MISMATCH);
  const pk = key[schema.partitionKey.name] as AttributeValue;
  if (!(schema.partitionKey.type in pk)) throw invalid(SCHEMA_MISMATCH);
  if (schema.sortKey !== undefined && !(schema.sortKey.type in (key[schema.sortKey.name] as AttributeValue))) {
    throw invalid(SCHEMA_MISMATCH);
  }
  checkKeyValue(pk, schema.partitionKey.name, true);
  if (schema.sortKey !== undefined) checkKeyValue(key[schema.sortKey.name] as AttributeValue, schema.sortKey.name, false);
}

/** The key attributes of `item` (those present), sharing the values by reference. */
export function extractKey(item: Item, schema: PrimaryKeySchema): Item {
  const key: { [name: string]: AttributeValue } = {};
  const pk = item[schema.partitionKey.name];
  if (pk !== undefined) setOwn(key, schema.partitionKey.name, pk);
  if (schema.sortKey !== undefined) {
    const sk = item[schema.sortKey.name];
    if (sk !== undefined) setOwn(key, schema.sortKey.name, sk);
  }
  return key;
}

function checkItemKeyAttribute(item: Item, attribute: KeyAttribute, isPartitionKey: boolean): void {
  const value = Object.hasOwn(item, attribute.name) ? item[attribute.name] : undefined;
  if (value === undefined) throw invalid(`${INVALID_PARAMETERS}Missing the key ${attribute.name} in the item`);
  if (!(attribute.type in value)) {
    throw invalid(
      `${INVALID_PARAMETERS}Type mismatch for key ${attribute.name} expected: ${attribute.type} actual: ${typeOf(value)}`,
    );
  }
  checkKeyValue(value, attribute.name, isPartitionKey);
}

/** Empty and size rules for a key value already known to have its declared scalar type. */
function checkKeyValue(value: AttributeValue, name: string, isPartitionKey: boolean): void {
  let bytes: number;
  if ('S' in value) {
    if (value.S.length === 0) {
      throw invalid(
        `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: ${name}`,
      );
    }
    // Each UTF-16 unit is at most 3 bytes: short strings cannot exceed the limits.
    bytes = value.S.length * 3 <= MAX_SORT_KEY_BYTES ? 0 : utf8ByteLength(value.S);
  } else if ('B' in value) {
    if (value.B.byteLength === 0) {
      throw invalid(
        `One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: ${name}`,
      );
    }
    bytes = value.B.byteLength;
  } else {
    return; // N: only the number rules, already applied by parseNumber.
  }
  if (isPartitionKey) {
    if (bytes > MAX_PARTITION_KEY_BYTES) throw invalid(HASH_KEY_TOO_LARGE);
  } else if (bytes > MAX_SORT_KEY_BYTES) {
    throw invalid(RANGE_KEY_TOO_LARGE);
  }
}
