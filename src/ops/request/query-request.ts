/**
 * Query's request, parsed once (issue 46): the schema pass (schema/) checks the model constraints,
 * then the members Query uses are read, in their fixed order, and its expressions compiled (they
 * are request rules: DynamoDB reports them before it looks the table up), into a frozen, typed
 * request. Query reads nothing else of the raw request; whether it is plain (plain-query.ts) is a
 * property of this typed request.
 */
import { readReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { compileRequest, type CompiledExpressions } from '../../expr/index.js';
import type { WireItem } from '../../model/attribute-value.js';
import { SerializationException, ValidationException } from '../../model/errors.js';
import { readConsistentRead } from './item-request.js';
import type { Select } from '../read/read-page.js';
import { readLimitAndSelect } from './limit-and-select.js';
import { templateKeyCondition, type QueryKeyCondition } from './plain-query.js';
import type { PageReadRequest } from './page-read-request.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type QueryRequest = PageReadRequest & {
  readonly forward: boolean;
  /** The key condition: its template and values, or compiled (plain-query.ts). */
  readonly keyCondition: QueryKeyCondition;
  /** The filter and the projection, when asked. */
  readonly compiled: CompiledExpressions;
  /** How a filter on a key attribute is reported: the parameter the request used. */
  readonly filterParameter: 'QueryFilter' | 'Filter Expression';
};

const NO_EXPRESSIONS: CompiledExpressions = Object.freeze({});

/**
 * Query reports an unknown ConditionalOperator alone, bare and in a newer enum wording, instead of
 * joining it to the other constraint errors (2026 captures, two regions, beside an unknown Select).
 */
const QUERY_CONDITIONAL_OPERATOR = 'Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]';

export function parseQueryRequest(request: unknown): QueryRequest {
  const req = checkQueryRequest(request);
  const tableName = readTableName(req.TableName);
  const { limit, select } = readLimitAndSelect(req);
  const consistent = readConsistentRead(req.ConsistentRead);
  const forward = readForward(req.ScanIndexForward);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  if (req.KeyConditionExpression === undefined && req.KeyConditions === undefined) {
    throw new ValidationException('Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.');
  }
  // A templated key condition whose compile could report nothing stays a template: a plain
  // Query reads its key range from it (plain-query.ts) without resolving it.
  const template = templateKeyCondition(req);
  const compiled = template === undefined ? compileRequest(req, 'Query') : NO_EXPRESSIONS;
  const keyCondition = template ?? Object.freeze({ kind: 'resolved' as const, condition: compiled.keyCondition! });
  // The schema pass has checked each of these members' JSON type and constraints.
  return Object.freeze({
    requestedName: req.TableName as string,
    tableName,
    indexName: req.IndexName as string | null | undefined,
    limit,
    select,
    selectAsked: req.Select as Select | undefined,
    consistent,
    forward,
    capacityMode,
    keyCondition,
    compiled,
    filterParameter: req.QueryFilter !== undefined ? 'QueryFilter' : 'Filter Expression',
    exclusiveStartKey: req.ExclusiveStartKey as WireItem | null | undefined,
  });
}

function checkQueryRequest(request: unknown): Record<string, unknown> {
  try {
    return checkRequest(REQUEST_SCHEMAS.Query, request);
  } catch (e) {
    if (e instanceof ValidationException && e.message.includes(" at 'conditionalOperator' ")) throw new ValidationException(QUERY_CONDITIONAL_OPERATOR);
    throw e;
  }
}

function readForward(raw: unknown): boolean {
  if (raw === undefined) return true;
  if (typeof raw !== 'boolean') throw new SerializationException('Unexpected value type for ScanIndexForward: expected a boolean');
  return raw;
}
