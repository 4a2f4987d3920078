/**
 * What the plain request recognisers (plain-get.ts, plain-query.ts) share: the members every
 * plain request may carry (TableName, ConsistentRead, ReturnConsumedCapacity), each recognised
 * only in the shape the general checks accept unchanged, and the shape tests of a plain table
 * name and of a plain map member (Key, ExpressionAttributeValues). Recognising is only ever a
 * shortcut: anything else makes the request not plain, and the general path reports it.
 */
import type { ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';

/** The shared members as read so far; a recogniser starts from `{ tableName: undefined, consistent: false, capacityMode: 'NONE' }`. */
export type PlainCommon = {
  tableName: unknown;
  consistent: boolean;
  capacityMode: ReturnConsumedCapacity;
};

/** commonMember's answers. */
export const MEMBER_TAKEN = 1;
export const MEMBER_OTHER = 0;
export const MEMBER_NOT_PLAIN = -1;
export type MemberAnswer = typeof MEMBER_TAKEN | typeof MEMBER_OTHER | typeof MEMBER_NOT_PLAIN;

/**
 * Reads one request member into `into` when it is a shared one: MEMBER_TAKEN; MEMBER_NOT_PLAIN
 * when it is one whose value has another shape; MEMBER_OTHER when `name` is not a shared member
 * (the recogniser decides). TableName is taken as is: isPlainTableName checks it once all are read.
 */
export function commonMember(name: string, value: unknown, into: PlainCommon): MemberAnswer {
  switch (name) {
    case 'TableName':
      into.tableName = value;
      return MEMBER_TAKEN;
    case 'ConsistentRead':
      if (typeof value !== 'boolean') return MEMBER_NOT_PLAIN;
      into.consistent = value;
      return MEMBER_TAKEN;
    case 'ReturnConsumedCapacity':
      if (value !== 'NONE' && value !== 'TOTAL' && value !== 'INDEXES') return MEMBER_NOT_PLAIN;
      into.capacityMode = value;
      return MEMBER_TAKEN;
    default:
      return MEMBER_OTHER;
  }
}

const NAME = /^[a-zA-Z0-9_.-]{3,255}$/;

/**
 * A check that a value is a name (of a table or an index) the general checks accept as is. Each
 * keeps the last name it accepted: requests name the same table or index again and again, and a
 * compare costs less than the pattern.
 */
function plainNameCheck(): (value: unknown) => value is string {
  let last: string | symbol = Symbol('none'); // no request member can equal it
  return (value: unknown): value is string => {
    if (value === last) return true;
    if (typeof value !== 'string' || !NAME.test(value)) return false;
    last = value;
    return true;
  };
}

/** A table name the general checks accept as is. */
export const isPlainTableName = plainNameCheck();

/** An index name the general checks accept as is (whether the table has it is the caller's question). */
export const isPlainIndexName = plainNameCheck();

/** A map member's value (Key, ExpressionAttributeValues) of the shape the general checks take as a map. */
export function isPlainMap(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
