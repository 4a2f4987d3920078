/**
 * The one attribute the forwarder adds to every item it writes at the endpoint:
 *
 *   _et_hlc = S "<ms:15 digits>.<counter:10 digits>"   e.g. "001764566400000.0000000003"
 *
 * the hybrid logical clock (stream/hlc.ts) of the hub change record the item came from, zero
 * padded so DynamoDB's string order (bytewise) is the clock's order. Writes are conditional on
 * it (`attribute_not_exists(_et_hlc) OR _et_hlc < :v`), so an older version never replaces a
 * newer one. The name is reserved: an item that carries its own `_et_hlc` has it overwritten.
 */
import type { Hlc } from '../../replication/replica-types.js';

export const VERSION_ATTRIBUTE = '_et_hlc';

export function encodeVersion(hlc: Hlc): string {
  return `${String(hlc.ms).padStart(15, '0')}.${String(hlc.counter).padStart(10, '0')}`;
}

/** `attribute_not_exists(#v) OR #v < :v`, with its names and values. */
export function newerThanCondition(version: string) {
  return {
    ConditionExpression: 'attribute_not_exists(#v) OR #v < :v',
    ExpressionAttributeNames: { '#v': VERSION_ATTRIBUTE },
    ExpressionAttributeValues: { ':v': { S: version } },
  };
}
