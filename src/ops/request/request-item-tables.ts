/**
 * The table names that key BatchGetItem's and BatchWriteItem's RequestItems map (spec §6.5-§6.6,
 * 2026 captures). Coral holds the keys to CreateTable's name rules and reports a bad one as one
 * error on the whole map, shown as the operation shows it: BatchGetItem as JSON, BatchWriteItem
 * as Java's toString of its WriteRequests (javaRequestItems).
 *
 *   Value '{"bad!name":{"Keys":[...]}}' at 'requestItems' failed to satisfy constraint:
 *     Map keys must satisfy constraint: [Member must have length less than or equal to 255,
 *     Member must have length greater than or equal to 3, Member must satisfy regular expression
 *     pattern: [a-zA-Z0-9_.-]+]
 *
 * A table ARN is accepted as a key, as on the rest of the data plane.
 */
import { MAX_TABLE_NAME_CHARS, MIN_TABLE_NAME_CHARS } from '../../model/limits.js';
import { isTableArn } from './table-name.js';

const NAME_PATTERN = /^[a-zA-Z0-9_.-]+$/;

export const MAP_KEYS_CONSTRAINT =
  `Map keys must satisfy constraint: [Member must have length less than or equal to ${MAX_TABLE_NAME_CHARS}, ` +
  `Member must have length greater than or equal to ${MIN_TABLE_NAME_CHARS}, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]`;

/** True when some key of `requestItems` is neither a table ARN nor a name of 3..255 chars of the pattern. */
export function hasBadTableKey(requestItems: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(requestItems).some(
    (name) => !isTableArn(name) && (name.length < MIN_TABLE_NAME_CHARS || name.length > MAX_TABLE_NAME_CHARS || !NAME_PATTERN.test(name)),
  );
}

/**
 * BatchWriteItem's RequestItems as its messages echo them, Java's toString of a map of lists:
 * `{T=[WriteRequest(putRequest=PutRequest(item={pk=AttributeValue(S=x)}), deleteRequest=null)]}`,
 * an empty list `{T=[]}`. The regions differ in how they print a value; only the frame is fixed.
 */
export function javaRequestItems(requestItems: Readonly<Record<string, unknown>>): string {
  const lists = Object.entries(requestItems).map(([name, list]) => `${name}=${Array.isArray(list) ? `[${list.map(javaWriteRequest).join(', ')}]` : javaValue(list)}`);
  return `{${lists.join(', ')}}`;
}

function javaWriteRequest(raw: unknown): string {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const put = r.PutRequest as Record<string, unknown> | undefined;
  const del = r.DeleteRequest as Record<string, unknown> | undefined;
  const putText = put ? `PutRequest(item=${javaItem(put.Item)})` : 'null';
  const deleteText = del ? `DeleteRequest(key=${javaItem(del.Key)})` : 'null';
  return `WriteRequest(putRequest=${putText}, deleteRequest=${deleteText})`;
}

function javaItem(item: unknown): string {
  if (typeof item !== 'object' || item === null) return 'null';
  return `{${Object.entries(item).map(([k, v]) => `${k}=${javaAttributeValue(v)}`).join(', ')}}`;
}

function javaAttributeValue(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const fields = Object.entries(value).map(([type, v]) => {
    if (type === 'M') return `M=${javaItem(v)}`;
    if (type === 'L' && Array.isArray(v)) return `L=[${v.map(javaAttributeValue).join(', ')}]`;
    return `${type}=${javaValue(v)}`;
  });
  return `AttributeValue(${fields.join(', ')})`;
}

function javaValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(javaValue).join(', ')}]`;
  if (v instanceof Uint8Array) return `SdkBytes(bytes=0x${Buffer.from(v).toString('hex')})`;
  return String(v);
}
