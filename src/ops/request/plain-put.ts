/**
 * The common PutItem request, recognised without the schema pass: only TableName (a plain name),
 * Item (an object) and optionally ReturnConsumedCapacity. Such a request passes the schema check
 * (schema/check-request.ts) with nothing to report but what the Item's own conversion reports
 * (checkRequestDeferringItemScans leaves the Item to it), and reads as no ReturnValues, no
 * condition and no item collection metrics, so its parse is the Item's conversion alone. When the
 * conversion throws, the request is not recognised: the general parse runs and reports it in
 * DynamoDB's order and words. Recognising is only ever a shortcut to the same result.
 */
import type { PutItemRequest } from './put-item-request.js';
import { readItemParam } from './item-request.js';
import { commonMember, isPlainMap, isPlainTableName, MEMBER_TAKEN, type PlainCommon } from './plain-request.js';

/** The parsed request when it is a plain PutItem (see above), else undefined. */
export function plainPutItem(request: unknown): PutItemRequest | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const parts: PlainCommon & { item: unknown } = { tableName: undefined, item: undefined, consistent: false, capacityMode: 'NONE' };
  // for-in sees inherited members too, which the general path would also read.
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (name === 'Item') {
      parts.item = value;
      continue;
    }
    // ConsistentRead is a shared member of reads only: a PutItem carrying it is left to the general path.
    if (name === 'ConsistentRead' || commonMember(name, value, parts) !== MEMBER_TAKEN) return undefined;
  }
  if (!isPlainTableName(parts.tableName) || !isPlainMap(parts.item)) return undefined;
  let item;
  try {
    item = readItemParam(parts.item);
  } catch {
    return undefined;
  }
  return Object.freeze({
    requestedName: parts.tableName,
    tableName: parts.tableName,
    returnValues: 'NONE',
    returnOnFailure: 'NONE',
    capacityMode: parts.capacityMode,
    collectionAsked: false,
    item,
    expressionMembers: request as Readonly<Record<string, unknown>>,
  });
}
