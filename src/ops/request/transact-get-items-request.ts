/**
 * TransactGetItems' request, parsed once (issue 46), in DynamoDB's order: the schema pass
 * (schema/), then the Coral constraints it leaves to this parse (the list's length, each Get's
 * members), aggregated, then what the request alone decides for every Get (its table name, key
 * values, projection), all before any table is looked up (spec §6.8). Checking the key against
 * its table's schema is the operation's.
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { type Projection, compileRequest } from '../../expr/index.js';
import type { Item } from '../../model/attribute-value.js';
import { readItemParam } from './item-request.js';
import { checkEnum, checkName, ConstraintErrors } from './request-checks.js';
import { readTableName } from './table-name.js';
import { readTransactItems, transactElement } from './transact-items-input.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

/** One element of TransactItems: `{ Get: {...} }`, its values converted. */
export type TransactGet = {
  readonly kind: 'Get';
  /** TableName as the request spelt it (a name or an ARN resolved to its name), for ConsumedCapacity. */
  readonly requestedName: string;
  /** The Key's values (checked against the table's key schema by the operation). */
  readonly key: Item;
  readonly projection: Projection | undefined;
};

export type TransactGetItemsRequest = {
  /** In request order, which the responses follow. */
  readonly gets: readonly TransactGet[];
  readonly capacityMode: ReturnConsumedCapacity;
};

export function parseTransactGetItemsRequest(request: unknown): TransactGetItemsRequest {
  const req = checkRequest(REQUEST_SCHEMAS.TransactGetItems, request);
  const errors = new ConstraintErrors();
  const bodies = readTransactItems(errors, req.TransactItems, 'TransactGetItem').map((raw, i) => readGetShape(errors, raw, i));
  checkEnum(errors, req.ReturnConsumedCapacity, 'returnConsumedCapacity', ['INDEXES', 'TOTAL', 'NONE']);
  errors.throwIfAny();
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const gets = bodies.map((body, i): TransactGet => {
    const path = `transactItems.${i + 1}.member.get`;
    const requestedName = readTableName(body.TableName, `${path}.tableName`);
    const key = readItemParam(body.Key, `${path}.key`, 'older');
    const { projection } = compileRequest(body, 'TransactGetItems');
    return Object.freeze({ kind: 'Get', requestedName, key, projection });
  });
  return Object.freeze({ gets: Object.freeze(gets), capacityMode });
}

/** Coral constraints of one `{Get: {...}}` element; returns the Get body. */
function readGetShape(errors: ConstraintErrors, raw: unknown, index: number): Record<string, unknown> {
  const path = `transactItems.${index + 1}.member.get`;
  const element = transactElement(raw, 'TransactGetItem');
  if (element.Get === undefined || element.Get === null) {
    errors.addNull(path);
    return {};
  }
  const body = transactElement(element.Get, 'Get');
  const name = body.TableName;
  if (!(typeof name === 'string' && name.startsWith('arn:'))) checkName(errors, name, `${path}.tableName`);
  if (body.Key === undefined || body.Key === null) errors.addNull(`${path}.key`);
  return body;
}
