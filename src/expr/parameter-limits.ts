/**
 * The size limits on ExpressionAttributeNames and ExpressionAttributeValues (spec §1.3, §6.1):
 * each placeholder at most 255 bytes including its sigil, and both maps of one request together
 * at most 2 MB. Both are expression-parameter misuse (wrapped on PutItem/UpdateItem, §8.4).
 */
import type { AttributeValue } from '../model/attribute-value.js';
import { invalid } from '../model/errors.js';
import { attributeValueSize } from '../model/item-size.js';
import { MAX_EXPRESSION_PARAMETERS_BYTES, MAX_PLACEHOLDER_BYTES } from '../model/limits.js';
import { utf8ByteLength } from '../model/utf8.js';

export type ParameterMap = 'ExpressionAttributeNames' | 'ExpressionAttributeValues';

/** Refuses a placeholder key over 255 bytes; run after the key's syntax check. */
export function checkPlaceholderLength(parameter: ParameterMap, key: string): void {
  // Keys passed the syntax check: [#:][A-Za-z0-9_]+, one byte per character.
  if (key.length <= MAX_PLACEHOLDER_BYTES) return;
  throw invalid(
    `${parameter} contains invalid key: The expression attribute map contains a key that is too long; size of key: ${utf8ByteLength(key)}`);
}

/**
 * Refuses names and values that together exceed 2 MB, counting each entry as its key's UTF-8
 * bytes plus its name's UTF-8 bytes or its value's size as an item attribute (model/item-size.ts).
 * The service's exact counting and wording are unverified; this text is edgetable's.
 */
export function checkParameterMapsSize(names: Readonly<Record<string, string>> | undefined, values: ReadonlyMap<string, AttributeValue>): void {
  let bytes = 0;
  if (names !== undefined) for (const key of Object.keys(names)) bytes += key.length + utf8ByteLength(names[key]!);
  for (const [key, value] of values) bytes += key.length + attributeValueSize(value);
  if (bytes <= MAX_EXPRESSION_PARAMETERS_BYTES) return;
  throw invalid(
    `ExpressionAttributeNames and ExpressionAttributeValues together exceed the maximum allowed size of ${MAX_EXPRESSION_PARAMETERS_BYTES} bytes; size: ${bytes}`);
}
