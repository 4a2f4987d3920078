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
import type { ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';

/** The parsed request when it is a plain PutItem (see above), else undefined. */
export function plainPutItem(request: unknown): PutItemRequest | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const parts: { tableName: unknown; item: unknown; capacityMode: ReturnConsumedCapacity } = { tableName: undefined, item: undefined, capacityMode: 'NONE' };
  // for-in sees inherited members too, which the general path would also read.
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (name === 'Item') parts.item = value;
    else if (name === 'TableName') parts.tableName = value;
    else if (name === 'ReturnConsumedCapacity' && (value === 'NONE' || value === 'TOTAL' || value === 'INDEXES')) parts.capacityMode = value;
    else return undefined;
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

const NAME = /^[a-zA-Z0-9_.-]{3,255}$/;
/** The last name accepted: requests name the same table again and again, and a compare costs less than the pattern. */
let lastName: string | symbol = Symbol('none');

/** A table name the schema pass accepts as is (its length and pattern). */
function isPlainTableName(value: unknown): value is string {
  if (value === lastName) return true;
  if (typeof value !== 'string' || !NAME.test(value)) return false;
  lastName = value;
  return true;
}

/** An Item of the shape the schema pass takes as an attribute map (its content is the conversion's to judge). */
function isPlainMap(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
