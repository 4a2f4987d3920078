/**
 * DynamoDB's expiry rule for Time to Live (spec §6.9): an item expires when its TTL attribute is a
 * top-level Number of epoch seconds earlier than now. Values more than five years in the past are
 * ignored (they are most likely milliseconds or garbage), as are other types and absent values.
 */
import type { NameDecoder } from '../codec/attribute-name-codes.js';
import { decodeAttributes } from '../codec/item-value.js';
import type { AttributeValue } from '../model/attribute-value.js';
import { TTL_MAX_PAST_SECONDS } from '../model/limits.js';

/** Whether `value` (the item's TTL attribute) has expired at `nowMs`. */
export function isExpiredValue(value: AttributeValue | undefined, nowMs: number): boolean {
  if (value === undefined || !('N' in value)) return false;
  const seconds = Number(value.N);
  const now = nowMs / 1000;
  return seconds < now && seconds >= now - TTL_MAX_PAST_SECONDS;
}

/**
 * Whether a stored item body (CBOR, codec/item-value.ts) has expired; decodes only the TTL
 * attribute. `names` is the one-element set of the TTL attribute's name.
 */
export function isExpiredBody(body: Uint8Array, names: ReadonlySet<string>, attributeName: string, nowMs: number, codes?: NameDecoder): boolean {
  return isExpiredValue(decodeAttributes(body, names, 0, codes)[attributeName], nowMs);
}

/**
 * An expiry test for stored bodies of a table whose TTL uses `attributeName`; `codes`: the table's
 * name dictionary (the TTL attribute's name may be coded in base records).
 */
export function expiryTest(attributeName: string, nowMs: number, codes?: NameDecoder): (body: Uint8Array) => boolean {
  const names: ReadonlySet<string> = new Set([attributeName]);
  return (body) => isExpiredBody(body, names, attributeName, nowMs, codes);
}

/**
 * The test reads apply to hide expired items not yet swept, or undefined when the table shows
 * them (TTL disabled, or `hideExpired` off): tables without TTL pay nothing.
 */
export function hiddenTest(ttl: { readonly AttributeName: string; readonly hideExpired: boolean } | undefined, nowMs: number, codes?: NameDecoder): ((body: Uint8Array) => boolean) | undefined {
  return ttl?.hideExpired ? expiryTest(ttl.AttributeName, nowMs, codes) : undefined;
}
