/**
 * The common GetItem request, recognised without the general checks: only TableName (a plain name),
 * Key, and optionally ConsistentRead and ReturnConsumedCapacity, with a Key of plain S or N values.
 * Such a request passes the schema check (schema/check-request.ts), the Key conversion
 * (model/validate-attribute-value.ts) and the key rules (model/key-rules.ts) with nothing to
 * report and nothing changed, so GetItem may skip them. Anything else (another member, a value of
 * another shape, a non-canonical number, a too-long string, an undefined member) is not recognised
 * and takes the general path, which reports it in DynamoDB's order and words: recognising is only
 * ever a shortcut to the same result.
 */
import type { KeyValue } from '../../model/attribute-value.js';
import type { KeyAttribute, PrimaryKeySchema } from '../../model/key-schema.js';
import { MAX_SORT_KEY_BYTES } from '../../model/limits.js';
import { parseNumber } from '../../model/number.js';
import { isWellFormedUtf16 } from '../../model/utf8.js';
import type { ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { commonMember, isPlainMap, isPlainTableName, MEMBER_NOT_PLAIN, MEMBER_TAKEN, type PlainCommon } from './plain-request.js';

export type PlainGet = {
  readonly tableName: string;
  readonly key: object;
  readonly consistent: boolean;
  readonly capacityMode: ReturnConsumedCapacity;
};

/** The request's parts when it is a plain GetItem (see above), else undefined. */
export function plainGet(request: unknown): PlainGet | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const parts: PlainCommon & { key: unknown } = { tableName: undefined, key: undefined, consistent: false, capacityMode: 'NONE' };
  // for-in sees inherited members too, which the general path would also read.
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    const common = commonMember(name, value, parts);
    if (common === MEMBER_TAKEN) continue;
    if (common === MEMBER_NOT_PLAIN || name !== 'Key') return undefined;
    parts.key = value;
  }
  if (!isPlainTableName(parts.tableName) || !isPlainMap(parts.key)) return undefined;
  return parts as PlainGet;
}

/**
 * The key values of a plain Key for `schema`, partition key first, when the Key holds exactly the
 * schema's attributes, each a plain value of the declared type that the key rules accept as is
 * (a non-empty, well-formed string within its byte limit; a number already in canonical form).
 * `out` receives them (no allocation); returns false when the Key is not plain.
 */
export function plainKey(schema: PrimaryKeySchema, key: object, out: KeyValue[]): boolean {
  let count = 0;
  for (const name in key) {
    if ((name !== schema.partitionKey.name && name !== schema.sortKey?.name) || !Object.hasOwn(key, name)) return false;
    count++;
  }
  if (count !== (schema.sortKey === undefined ? 1 : 2)) return false;
  const pk = plainValue((key as Record<string, unknown>)[schema.partitionKey.name], schema.partitionKey);
  if (pk === undefined) return false;
  out[0] = pk;
  if (schema.sortKey === undefined) {
    out.length = 1;
    return true;
  }
  const sk = plainValue((key as Record<string, unknown>)[schema.sortKey.name], schema.sortKey);
  if (sk === undefined) return false;
  out[1] = sk;
  out.length = 2;
  return true;
}

/** `value` when it is a plain value of `attribute`'s type that the key rules accept as is (see plainKey), else undefined. */
export function plainValue(value: unknown, attribute: KeyAttribute): KeyValue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let members = 0;
  for (const _ in value) members++;
  if (members !== 1 || !Object.hasOwn(value, attribute.type)) return undefined;
  const text = (value as Record<string, unknown>)[attribute.type];
  if (typeof text !== 'string') return undefined;
  if (attribute.type === 'S') {
    // Long strings are left to the general path's byte count (3 bytes per unit at most).
    if (text.length === 0 || text.length * 3 > MAX_SORT_KEY_BYTES || !isWellFormedUtf16(text)) return undefined;
    return value as KeyValue;
  }
  if (attribute.type !== 'N') return undefined;
  try {
    return parseNumber(text) === text ? (value as KeyValue) : undefined;
  } catch {
    return undefined;
  }
}
