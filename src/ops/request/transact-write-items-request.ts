/**
 * TransactWriteItems' request, parsed once (issue 46), in DynamoDB's order (spec §6.7):
 * 1. the schema pass (schema/);
 * 2. the Coral constraints it leaves to this parse, aggregated over the whole request: the list's
 *    length, each action's members (`readActionShape`: table name, required members, enum), the
 *    ClientRequestToken's length, the response options;
 * 3. action by action, an element without exactly one action is refused, then the rules the
 *    request alone decides (attribute values and names, expressions) apply, so a malformed
 *    expression on a later action wins over a missing table on an earlier one.
 * What needs the table (key schema, item size, index keys, updating a key attribute) is the
 * operation's (ops/transact/transact-write-action.ts).
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { compileRequest, type Condition, type UpdatePlan } from '../../expr/index.js';
import type { Item } from '../../model/attribute-value.js';
import { ValidationException } from '../../model/errors.js';
import { validateItem } from '../../model/validate-attribute-value.js';
import { readItemParam, readReturnItemCollectionMetrics, readReturnOnFailure, type ReturnOnFailure } from './item-request.js';
import { checkEnum, checkName, ConstraintErrors } from './request-checks.js';
import { readTableName } from './table-name.js';
import { requestDigest } from './transact-request-digest.js';
import { readClientRequestToken, readTransactItems, transactElement } from './transact-items-input.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

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

/** Request members of each action, with the parameter DynamoDB requires beside the table name. */
const ACTION_RULES: Record<WriteActionKind, { member: string; required: readonly [field: string, member: string][] }> = {
  Put: { member: 'put', required: [['Item', 'item']] },
  Update: { member: 'update', required: [['Key', 'key'], ['UpdateExpression', 'updateExpression']] },
  Delete: { member: 'delete', required: [['Key', 'key']] },
  ConditionCheck: { member: 'conditionCheck', required: [['Key', 'key'], ['ConditionExpression', 'conditionExpression']] },
};
const KINDS = Object.keys(ACTION_RULES) as WriteActionKind[];

type ActionCommon = {
  /** TableName as the request spelt it (an ARN resolved to its name), for ConsumedCapacity. */
  readonly requestedName: string;
  readonly returnOnFailure: ReturnOnFailure;
};

/**
 * One action, its values converted and its expressions compiled. `key` is the lookup Key, its
 * attributes not yet checked against a table.
 */
export type TransactWriteActionRequest = ActionCommon &
  (
    | { readonly kind: 'Put'; readonly item: Item; readonly condition: Condition | undefined }
    | { readonly kind: 'Update'; readonly key: Item; readonly update: UpdatePlan; readonly condition: Condition | undefined }
    | { readonly kind: 'Delete'; readonly key: Item; readonly condition: Condition | undefined }
    | { readonly kind: 'ConditionCheck'; readonly key: Item; readonly condition: Condition }
  );

/** The token and the digest of the request it guards (transact-request-digest.ts). */
export type ClientRequestToken = { readonly token: string; readonly digest: Uint8Array };

export type TransactWriteItemsRequest = {
  /** In request order. */
  readonly actions: readonly TransactWriteActionRequest[];
  readonly clientRequestToken: ClientRequestToken | undefined;
  readonly capacityMode: ReturnConsumedCapacity;
  readonly itemCollectionMetrics: boolean;
};

export function parseTransactWriteItemsRequest(request: unknown): TransactWriteItemsRequest {
  const req = checkRequest(REQUEST_SCHEMAS.TransactWriteItems, request);
  const errors = new ConstraintErrors();
  const shapes = readTransactItems(errors, req.TransactItems, 'TransactWriteItem').map((raw, i) => readActionShape(errors, raw, i));
  // The token's errors come before the enums' (2026 captures).
  const token = readClientRequestToken(errors, req.ClientRequestToken);
  checkEnum(errors, req.ReturnConsumedCapacity, 'returnConsumedCapacity', ['INDEXES', 'TOTAL', 'NONE']);
  checkEnum(errors, req.ReturnItemCollectionMetrics, 'returnItemCollectionMetrics', ['SIZE', 'NONE']);
  errors.throwIfAny();
  const actions = shapes.map((shape) => {
    if ('refusal' in shape) throw new ValidationException(shape.refusal);
    return readAction(shape);
  });
  return Object.freeze({
    actions: Object.freeze(actions),
    clientRequestToken: token === undefined ? undefined : Object.freeze({ token, digest: requestDigest(req) }),
    capacityMode: readReturnConsumedCapacity(req.ReturnConsumedCapacity),
    itemCollectionMetrics: readReturnItemCollectionMetrics(req.ReturnItemCollectionMetrics),
  });
}

/** The action's kind and body, or the refusal of an element that does not hold exactly one action. */
type ActionShape = { kind: WriteActionKind; body: Record<string, unknown>; path: string } | { refusal: string };

/** Coral constraints of element `index` (0-based) go into `errors`. */
function readActionShape(errors: ConstraintErrors, raw: unknown, index: number): ActionShape {
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

/** The rules the request alone decides; throws the first top-level ValidationException. */
function readAction(shape: Exclude<ActionShape, { refusal: string }>): TransactWriteActionRequest {
  const { kind, body, path } = shape;
  const requestedName = readTableName(body.TableName, `${path}.tableName`);
  // The enum was checked with the Coral constraints above.
  const returnOnFailure = readReturnOnFailure(body.ReturnValuesOnConditionCheckFailure);
  const common = { requestedName, returnOnFailure };
  if (kind === 'Put') {
    const item = readItemParam(body.Item, `${path}.item`, 'older');
    return Object.freeze({ ...common, kind, item, condition: compileRequest(body, 'TransactWriteItems').condition });
  }
  const { condition, update } = compileRequest(body, 'TransactWriteItems');
  const key = validateItem(body.Key, 'older');
  switch (kind) {
    case 'Update':
      return Object.freeze({ ...common, kind, key, update: update!, condition }); // UpdateExpression is required: compiled or refused
    case 'Delete':
      return Object.freeze({ ...common, kind, key, condition });
    case 'ConditionCheck':
      return Object.freeze({ ...common, kind, key, condition: condition! }); // ConditionExpression is required: compiled or refused
  }
}
