/**
 * One action of TransactWriteItems, its request already parsed (ops/request/
 * transact-write-items-request.ts: Coral constraints, then the rules the request alone decides),
 * prepared into a TransactWriteAction: `prepareAction` resolves each table and applies the rules
 * that need it (key schema, oversized Put item, index keys, updating a key attribute). A lookup
 * Key of the wrong type is the exception: DynamoDB cancels the transaction with a
 * `ValidationError` reason for it instead (spec §6.7), so it becomes an `Invalid` action.
 * A Put item's key attribute of the wrong type (a scalar of another type, or a list) also
 * cancels, with PutItem's `Type mismatch for key ...` as its reason.
 */
import type { Item } from '../../model/attribute-value.js';
import { INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { itemSize } from '../../model/item-size.js';
import { checkItemKey, checkKey } from '../../model/key-rules.js';
import { MAX_ITEM_BYTES } from '../../model/limits.js';
import { applyUpdate, type Condition, type UpdatePlan } from '../../expr/index.js';
import type { EncodedKey } from '../../codec/item-key.js';
import type { Partition, Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import type { ReturnOnFailure } from '../request/item-request.js';
import type { TransactWriteActionRequest } from '../request/transact-write-items-request.js';
import { checkIndexKeys } from '../../table/check-index-keys.js';

const SCHEMA_MISMATCH = 'The provided key element does not match the schema';
const KEY_UPDATE_MARK = 'This attribute is part of the key';
const KEY_TYPE_MISMATCH = `${INVALID_PARAMETERS}Type mismatch for key `;

/** The item an action targets. */
export type ActionTarget = { readonly partition: Partition; readonly key: EncodedKey; readonly keyItem: Item };

type Common = { readonly requestedName: string; readonly table: Table; readonly returnOnFailure: ReturnOnFailure };

export type TransactWriteAction = Common &
  (
    | { kind: 'Put'; target: ActionTarget; item: Item; size: number; condition?: Condition }
    | { kind: 'Update'; target: ActionTarget; update: UpdatePlan; condition?: Condition }
    | { kind: 'Delete'; target: ActionTarget; condition?: Condition }
    | { kind: 'ConditionCheck'; target: ActionTarget; condition: Condition }
    /** Cancels with a ValidationError reason whatever is stored. */
    | { kind: 'Invalid'; message: string }
  );

/** Resolves the action's table and applies the rules that need it (ResourceNotFound, ValidationException). */
export function prepareAction(ctx: EngineContext, request: TransactWriteActionRequest): TransactWriteAction {
  const { requestedName, returnOnFailure } = request;
  const table = ctx.catalog.require(requestedName);
  const common: Common = { requestedName, table, returnOnFailure };

  if (request.kind === 'Put') {
    const { item, condition } = request;
    const mismatch = itemKeyTypeMismatch(table, item);
    const size = itemSize(item);
    if (size > MAX_ITEM_BYTES) throw new ValidationException('Item size has exceeded the maximum allowed size');
    checkIndexKeys(table, item);
    if (mismatch !== undefined) return { ...common, kind: 'Invalid', message: mismatch };
    return { ...common, kind: 'Put', target: targetOf(table, table.keyOf(item), item), item, size, ...(condition ? { condition } : {}) };
  }

  if (request.kind === 'Update') rejectKeyUpdate(request.update, table);
  const keyItem = checkLookupKey(table, request.key);
  if (typeof keyItem === 'string') return { ...common, kind: 'Invalid', message: keyItem };
  const target = targetOf(table, table.keyOf(keyItem), keyItem);
  switch (request.kind) {
    case 'Update':
      return { ...common, kind: 'Update', target, update: request.update, ...(request.condition ? { condition: request.condition } : {}) };
    case 'Delete':
      return { ...common, kind: 'Delete', target, ...(request.condition ? { condition: request.condition } : {}) };
    case 'ConditionCheck':
      return { ...common, kind: 'ConditionCheck', target, condition: request.condition };
  }
}

/** Bytes the action contributes to the 4 MB aggregate: the Put item, else the key. */
export function actionRequestBytes(action: TransactWriteAction): number {
  if (action.kind === 'Invalid') return 0;
  return action.kind === 'Put' ? action.size : itemSize(action.target.keyItem);
}

function targetOf(table: Table, key: EncodedKey, keyItem: Item): ActionTarget {
  return { partition: table.partitionOf(key.hash), key, keyItem };
}

/**
 * The cancellation message when a Put item's key attribute has the wrong type (a scalar of
 * another type, or a list, map, set...: 2026 captures); throws the item's other key errors
 * (missing, empty, oversized), which are top-level.
 */
function itemKeyTypeMismatch(table: Table, item: Item): string | undefined {
  try {
    checkItemKey(item, table.keySchema);
  } catch (e) {
    if (e instanceof ValidationException && e.message.startsWith(KEY_TYPE_MISMATCH)) return e.message;
    throw e;
  }
  return undefined;
}

/**
 * The lookup Key (already converted) checked against the table, or the cancellation message when
 * its attributes are the table's key attributes but of the wrong type (data-independent, yet
 * DynamoDB reports it as a reason).
 */
function checkLookupKey(table: Table, key: Item): Item | string {
  try {
    checkKey(key, table.keySchema);
  } catch (e) {
    const names = Object.keys(key);
    const sameNames = names.length === table.keyNames.length && names.every((n) => table.keyNames.includes(n));
    if (e instanceof ValidationException && e.message === SCHEMA_MISMATCH && sameNames) return e.message;
    throw e;
  }
  return key;
}

/**
 * Updating a key attribute is knowable from the request: surface it as the top-level error.
 * applyUpdate checks key attributes before anything else, so applying to an absent item raises
 * exactly that error if it applies; any other (data-dependent) error is left to the txn.
 */
function rejectKeyUpdate(update: UpdatePlan, table: Table): void {
  try {
    applyUpdate(update, undefined, table.keyNames);
  } catch (e) {
    if (e instanceof ValidationException && e.message.includes(KEY_UPDATE_MARK)) throw e;
  }
}
