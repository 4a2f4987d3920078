/**
 * One element of TransactWriteItems' TransactItems, validated into a TransactWriteAction.
 *
 * Three passes, as DynamoDB reports them: `readActionShape` adds the Coral constraint errors
 * (missing members, names, enums) for the whole list; `readActionRequest` then applies, action by
 * action, the rules the request alone decides (attribute values and names, expressions), all
 * before any table is looked up, so a malformed expression on a later action wins over a missing
 * table on an earlier one; `prepareAction` finally resolves each table and applies the rules that
 * need it (key schema, oversized Put item, index keys, updating a key attribute). A lookup Key of
 * the wrong type is the exception: DynamoDB cancels the transaction with a `ValidationError`
 * reason for it instead (spec §6.7), so it becomes an `Invalid` action.
 * A Put item's key attribute of the wrong type (a scalar of another type, or a list) also
 * cancels, with PutItem's `Type mismatch for key ...` as its reason.
 */
import type { Item } from '../../model/attribute-value.js';
import { INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { itemSize } from '../../model/item-size.js';
import { checkItemKey, checkKey } from '../../model/key-rules.js';
import { MAX_ITEM_BYTES } from '../../model/limits.js';
import { validateItem } from '../../model/validate-attribute-value.js';
import { applyUpdate, compileRequest, type CompiledExpressions, type Condition, type UpdatePlan } from '../../expr/index.js';
import type { EncodedKey } from '../../codec/item-key.js';
import type { Partition, Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { readItemParam, type ReturnOnFailure } from '../request/item-request.js';
import { checkEnum, checkName, type ConstraintErrors } from '../request/request-checks.js';
import { readTableName } from '../request/table-name.js';
import { transactElement } from '../request/transact-items-input.js';
import { checkIndexKeys } from '../../table/check-index-keys.js';

export type WriteActionKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/** An element with several actions (older captures; unverified since). */
export const ONE_ACTION_MESSAGE = 'TransactItems can only contain one of Check, Put, Update or Delete';
/**
 * An element with no action: the form of the validation framework (eu-west-2, 2026 captures);
 * other regions still answer `Invalid Request: TransactWriteRequest should contain Delete or Put
 * or Update request`.
 */
export const NO_ACTION_MESSAGE =
  "1 validation error detected: Value '' at 'transactItems' failed to satisfy constraint: TransactWriteRequest should contain Delete or Put or Update or ConditionCheck";
const SCHEMA_MISMATCH = 'The provided key element does not match the schema';
const KEY_UPDATE_MARK = 'This attribute is part of the key';
const KEY_TYPE_MISMATCH = `${INVALID_PARAMETERS}Type mismatch for key `;

/** Request members of each action, with the parameter DynamoDB requires beside the table name. */
const ACTION_RULES: Record<WriteActionKind, { member: string; required: readonly [field: string, member: string][] }> = {
  Put: { member: 'put', required: [['Item', 'item']] },
  Update: { member: 'update', required: [['Key', 'key'], ['UpdateExpression', 'updateExpression']] },
  Delete: { member: 'delete', required: [['Key', 'key']] },
  ConditionCheck: { member: 'conditionCheck', required: [['Key', 'key'], ['ConditionExpression', 'conditionExpression']] },
};
const KINDS = Object.keys(ACTION_RULES) as WriteActionKind[];

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

/** The action's kind and body, or the refusal of an element that does not hold exactly one action. */
export type ActionShape = { kind: WriteActionKind; body: Record<string, unknown>; path: string } | { refusal: string };

/** Pass 1: Coral constraints of element `index` (0-based) go into `errors`. */
export function readActionShape(errors: ConstraintErrors, raw: unknown, index: number): ActionShape {
  const element = transactElement(raw, 'TransactWriteItem');
  const present = KINDS.filter((k) => element[k] !== undefined && element[k] !== null);
  if (present.length !== 1) return { refusal: present.length === 0 ? NO_ACTION_MESSAGE : ONE_ACTION_MESSAGE };
  const kind = present[0]!;
  const rules = ACTION_RULES[kind];
  const path = `transactItems.${index + 1}.member.${rules.member}`;
  const body = transactElement(element[kind], rules.member);
  const name = body.TableName;
  if (!(typeof name === 'string' && name.startsWith('arn:'))) checkName(errors, name, `${path}.tableName`);
  for (const [field, member] of rules.required) {
    if (body[field] === undefined || body[field] === null) errors.addNull(`${path}.${member}`);
  }
  checkEnum(errors, body.ReturnValuesOnConditionCheckFailure, `${path}.returnValuesOnConditionCheckFailure`, ['ALL_OLD', 'NONE']);
  return { kind, body, path };
}

/** An action whose request-only rules passed: its values converted, its expressions compiled. */
export type ActionRequest = {
  readonly kind: WriteActionKind;
  readonly body: Record<string, unknown>;
  readonly requestedName: string;
  readonly compiled: CompiledExpressions;
  /** The Put's Item, or the other kinds' lookup Key (its attributes not yet checked against a table). */
  readonly item: Item;
};

/** Pass 2: the rules the request alone decides; throws the first top-level ValidationException. */
export function readActionRequest(shape: Exclude<ActionShape, { refusal: string }>): ActionRequest {
  const { kind, body, path } = shape;
  const requestedName = readTableName(body.TableName, `${path}.tableName`);
  if (kind === 'Put') {
    const item = readItemParam(body.Item, `${path}.item`, 'older');
    return { kind, body, requestedName, item, compiled: compileRequest(body, 'TransactWriteItems') };
  }
  const compiled = compileRequest(body, 'TransactWriteItems');
  return { kind, body, requestedName, compiled, item: validateItem(body.Key, 'older') };
}

/** Pass 3: resolves the table and applies the rules that need it (ResourceNotFound, ValidationException). */
export function prepareAction(ctx: EngineContext, request: ActionRequest): TransactWriteAction {
  const { kind, body, requestedName, compiled } = request;
  const table = ctx.catalog.require(requestedName);
  const returnOnFailure = (body.ReturnValuesOnConditionCheckFailure ?? 'NONE') as ReturnOnFailure;
  const common: Common = { requestedName, table, returnOnFailure };

  if (kind === 'Put') {
    const item = request.item;
    const mismatch = itemKeyTypeMismatch(table, item);
    const size = itemSize(item);
    if (size > MAX_ITEM_BYTES) throw new ValidationException('Item size has exceeded the maximum allowed size');
    checkIndexKeys(table, item);
    const { condition } = compiled;
    if (mismatch !== undefined) return { ...common, kind: 'Invalid', message: mismatch };
    return { ...common, kind, target: targetOf(table, table.keyOf(item), item), item, size, ...(condition ? { condition } : {}) };
  }

  if (compiled.update) rejectKeyUpdate(compiled.update, table);
  const keyItem = checkLookupKey(table, request.item);
  if (typeof keyItem === 'string') return { ...common, kind: 'Invalid', message: keyItem };
  const target = targetOf(table, table.keyOf(keyItem), keyItem);
  const condition = compiled.condition;
  switch (kind) {
    case 'Update':
      return { ...common, kind, target, update: compiled.update!, ...(condition ? { condition } : {}) };
    case 'Delete':
      return { ...common, kind, target, ...(condition ? { condition } : {}) };
    case 'ConditionCheck':
      return { ...common, kind, target, condition: condition! };
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
