/**
 * The plain GetItem, a property of its typed request (get-item-request.ts): no projection and no
 * expression member, so the item is returned whole. Its Key, still in wire form, is plain for a
 * table when it holds exactly the table's key attributes, each a plain S or N value that the key
 * rules accept unchanged (plainKey): such a Key passes the conversion
 * (model/validate-attribute-value.ts) and the key rules (model/key-rules.ts) with nothing to
 * report and nothing changed, so GetItem may encode it directly. Any other Key takes the general
 * conversion, which reports it in DynamoDB's order and words: plain is only ever a shortcut to the
 * same result.
 */
import type { KeyValue } from '../../model/attribute-value.js';
import type { KeyAttribute, PrimaryKeySchema } from '../../model/key-schema.js';
import { MAX_SORT_KEY_BYTES } from '../../model/limits.js';
import { parseNumber } from '../../model/number.js';
import { isWellFormedUtf16 } from '../../model/utf8.js';
import type { GetItemRequest } from './get-item-request.js';

/** Whether a GetItem's typed request is plain (see above). */
export function isPlainGet(req: GetItemRequest): boolean {
  return !req.hasExpressionMembers;
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
  const scalar = plainScalar(value);
  return scalar !== undefined && Object.hasOwn(scalar, attribute.type) ? scalar : undefined;
}

/**
 * `value` when it is a plain S or N value that the key rules accept as is, whichever key attribute
 * it is for (a non-empty, well-formed string within the sort key's byte limit; a number already in
 * canonical form), else undefined.
 */
export function plainScalar(value: unknown): KeyValue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  let type: string | undefined;
  for (const name in value) {
    if (type !== undefined) return undefined;
    type = name;
  }
  if ((type !== 'S' && type !== 'N') || !Object.hasOwn(value, type)) return undefined;
  const text = (value as Record<string, unknown>)[type];
  if (typeof text !== 'string') return undefined;
  if (type === 'S') {
    // Long strings are left to the general path's byte count (3 bytes per unit at most).
    if (text.length === 0 || text.length * 3 > MAX_SORT_KEY_BYTES || !isWellFormedUtf16(text)) return undefined;
    return value as KeyValue;
  }
  try {
    return parseNumber(text) === text ? (value as KeyValue) : undefined;
  } catch {
    return undefined;
  }
}
