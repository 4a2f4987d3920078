/**
 * Members shared by the parses of TransactWriteItems and TransactGetItems (spec §6.7, §6.8): the
 * TransactItems list (1-100 elements) and the ClientRequestToken (1-36 chars). Coral constraint
 * errors are collected into the caller's ConstraintErrors so every violation is reported in one
 * message, as DynamoDB does.
 */
import { SerializationException } from '../../model/errors.js';
import { MAX_CLIENT_REQUEST_TOKEN_CHARS, MAX_TRANSACT_ITEMS } from '../../model/limits.js';
import { ConstraintErrors, optionalObject } from './request-checks.js';

/** Coral prints a list member with Java's Object.toString: `<class>@<hash>` per element. */
const SHAPE_CLASS = {
  TransactWriteItem: 'com.amazonaws.dynamodb.v20120810.TransactWriteItem',
  TransactGetItem: 'com.amazonaws.dynamodb.v20120810.TransactGetItem',
} as const;

/**
 * The TransactItems list; its length rules are added to `errors`. Elements are returned unchecked.
 * @throws SerializationException when TransactItems is not a list
 */
export function readTransactItems(errors: ConstraintErrors, raw: unknown, element: keyof typeof SHAPE_CLASS): unknown[] {
  if (raw === undefined || raw === null) {
    errors.addNull('transactItems');
    return [];
  }
  if (!Array.isArray(raw)) throw new SerializationException('Unexpected value type for TransactItems: expected a list');
  if (raw.length < 1) errors.add('[]', 'transactItems', 'Member must have length greater than or equal to 1');
  if (raw.length > MAX_TRANSACT_ITEMS) {
    // Java identity hashes cannot be reproduced; the element index stands in for them.
    const shown = raw.map((_, i) => `${SHAPE_CLASS[element]}@${i.toString(16).padStart(8, '0')}`).join(', ');
    errors.add(`[${shown}]`, 'transactItems', `Member must have length less than or equal to ${MAX_TRANSACT_ITEMS}`);
  }
  return raw;
}

/** The ClientRequestToken (undefined when absent); its length rules are added to `errors`. */
export function readClientRequestToken(errors: ConstraintErrors, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new SerializationException('Unexpected value type for ClientRequestToken: expected a string');
  if (raw.length < 1) errors.add(raw, 'clientRequestToken', 'Member must have length greater than or equal to 1');
  if (raw.length > MAX_CLIENT_REQUEST_TOKEN_CHARS) {
    errors.add(raw, 'clientRequestToken', `Member must have length less than or equal to ${MAX_CLIENT_REQUEST_TOKEN_CHARS}`);
  }
  return raw;
}

/** One element of TransactItems as a structure (a non-object is a SerializationException). */
export function transactElement(raw: unknown, shape: string): Record<string, unknown> {
  return optionalObject(raw, shape) ?? {};
}
