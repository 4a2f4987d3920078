/**
 * Request pieces shared by the item operations: the Key parameter, ReturnValues, the
 * ReturnValuesOnConditionCheckFailure option, and shaping items for responses.
 */
import type { Item, WireItemOutput } from '../../model/attribute-value.js';
import { toWireItem, toWireValue } from '../../model/binary.js';
import { itemCollectionMetrics } from '../../table/item-collections.js';
import { ConditionalCheckFailedException, SerializationException, ValidationException } from '../../model/errors.js';
import { checkKey } from '../../model/key-rules.js';
import { validateItem } from '../../model/validate-attribute-value.js';
import type { ValueLayer } from '../../model/value-layer.js';
import { projectItem, type Projection } from '../../expr/index.js';
import type { Table } from '../../table/table.js';
import { ConstraintErrors } from './request-checks.js';

export type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
const RETURN_VALUES: readonly ReturnValues[] = ['ALL_NEW', 'UPDATED_OLD', 'ALL_OLD', 'NONE', 'UPDATED_NEW'];

/** A validated `Key` parameter: exactly the table's key attributes with their declared types. */
export function readKey(table: Table, raw: unknown, member = 'key'): Item {
  if (raw === undefined || raw === null) {
    throw new ValidationException(`1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`);
  }
  const key = validateItem(raw);
  checkKey(key, table.keySchema);
  return key;
}

/**
 * A validated `Item` parameter (key rules are checked by the caller's table); `layer`: the value
 * checker the operation runs (model/value-layer.ts).
 */
export function readItemParam(raw: unknown, member = 'item', layer: ValueLayer = 'current'): Item {
  if (raw === undefined || raw === null) {
    throw new ValidationException(`1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`);
  }
  return validateItem(raw, layer);
}

export function readReturnValues(raw: unknown, allowed: readonly ReturnValues[]): ReturnValues {
  if (raw === undefined) return 'NONE';
  if (typeof raw !== 'string' || !RETURN_VALUES.includes(raw as ReturnValues)) {
    const errors = new ConstraintErrors();
    errors.add(raw, 'returnValues', `Member must satisfy enum value set: [${RETURN_VALUES.join(', ')}]`);
    errors.throwIfAny();
  }
  if (!allowed.includes(raw as ReturnValues)) {
    throw new ValidationException(
      allowed.length === 2 ? 'ReturnValues can only be ALL_OLD or NONE' : `ReturnValues can only be ${allowed.join(', ')}`,
    );
  }
  return raw as ReturnValues;
}

export type ReturnOnFailure = 'ALL_OLD' | 'NONE';

export function readReturnOnFailure(raw: unknown): ReturnOnFailure {
  if (raw === undefined) return 'NONE';
  if (raw !== 'ALL_OLD' && raw !== 'NONE') {
    const errors = new ConstraintErrors();
    errors.add(raw, 'returnValuesOnConditionCheckFailure', 'Member must satisfy enum value set: [ALL_OLD, NONE]');
    errors.throwIfAny();
  }
  return raw as ReturnOnFailure;
}

export function conditionFailed(mode: ReturnOnFailure, old: Item | undefined): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException('The conditional request failed', mode === 'ALL_OLD' && old ? toWireItem(old) : undefined);
}

/** The response form of an item, projected when a ProjectionExpression was given. */
export function shapeItem(item: Item, projection: Projection | undefined): WireItemOutput {
  return toWireItem(projection ? projectItem(projection, item) : item);
}

export function readConsistentRead(raw: unknown): boolean {
  if (raw === undefined) return false;
  if (typeof raw !== 'boolean') throw new SerializationException('Unexpected value type for ConsistentRead: expected a boolean');
  return raw;
}

/** ReturnItemCollectionMetrics: SIZE or NONE (default). */
export function readReturnItemCollectionMetrics(raw: unknown): boolean {
  if (raw === undefined || raw === 'NONE') return false;
  if (raw === 'SIZE') return true;
  const errors = new ConstraintErrors();
  errors.add(raw, 'returnItemCollectionMetrics', 'Member must satisfy enum value set: [SIZE, NONE]');
  errors.throwIfAny();
  return false;
}

/** The ItemCollectionMetrics element of a write on a table with LSIs, when asked for. */
export function collectionMetricsOf(asked: boolean, table: Table, key: Item, collectionBytes: number | undefined) {
  if (!asked || collectionBytes === undefined) return {};
  const pkName = table.keySchema.partitionKey.name;
  return { ItemCollectionMetrics: itemCollectionMetrics(pkName, toWireValue(key[pkName]!), collectionBytes) };
}
