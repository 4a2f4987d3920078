/**
 * The common Query request, recognised without the general checks: only TableName (a plain name),
 * KeyConditionExpression, ExpressionAttributeValues, and optionally IndexName (a plain name),
 * ScanIndexForward, Limit (a whole number >= 1), ConsistentRead and ReturnConsumedCapacity; an
 * expression with a template (expr/key-condition-template.ts) on the key attributes of the table
 * or of the index it names; and values that are exactly
 * the template's placeholders, each a plain S or N value of its key attribute's type that the key
 * rules accept unchanged (ops/request/plain-get.ts plainValue). Such a request passes the schema check,
 * the expression compile (parse, resolve, unused-value and bound checks) and the key condition
 * analysis with nothing to report, so Query may build its key range directly. Anything else (a
 * filter, a projection, #name references, ExclusiveStartKey, Select, a value of another shape, a
 * BETWEEN whose bounds are reversed, an unknown table or index, ConsistentRead on a global index)
 * is not recognised and takes the
 * general path, which reports it in DynamoDB's order and words: recognising is only ever a shortcut
 * to the same result.
 */
import type { ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { keyConditionTemplate, type KeyConditionTemplate, type KeyRange, type SortKeyCondition } from '../../expr/index.js';
import type { KeyValue } from '../../model/attribute-value.js';
import { compareValues } from '../../model/compare-values.js';
import type { KeyAttribute, PrimaryKeySchema } from '../../model/key-schema.js';
import { plainValue } from './plain-get.js';
import { commonMember, isPlainIndexName, isPlainMap, isPlainTableName, MEMBER_NOT_PLAIN, MEMBER_TAKEN, type PlainCommon } from './plain-request.js';

export type PlainQuery = {
  readonly tableName: string;
  /** The index the Query reads, or undefined for the table. */
  readonly indexName: string | undefined;
  readonly template: KeyConditionTemplate;
  readonly values: object;
  readonly forward: boolean;
  readonly limit: number | undefined;
  readonly consistent: boolean;
  readonly capacityMode: ReturnConsumedCapacity;
};

/** The request's parts when it is a plain Query (see above, the Key aside), else undefined. */
export function plainQuery(request: unknown): PlainQuery | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  const parts: PlainCommon & { indexName: unknown; expression: unknown; values: unknown; forward: boolean; limit: number | undefined } = {
    tableName: undefined,
    indexName: undefined,
    expression: undefined,
    values: undefined,
    forward: true,
    limit: undefined,
    consistent: false,
    capacityMode: 'NONE',
  };
  // for-in sees inherited members too, which the general path would also read.
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    const common = commonMember(name, value, parts);
    if (common === MEMBER_TAKEN) continue;
    if (common === MEMBER_NOT_PLAIN) return undefined;
    switch (name) {
      case 'IndexName':
        parts.indexName = value;
        break;
      case 'KeyConditionExpression':
        parts.expression = value;
        break;
      case 'ExpressionAttributeValues':
        parts.values = value;
        break;
      case 'ScanIndexForward':
        if (typeof value !== 'boolean') return undefined;
        parts.forward = value;
        break;
      case 'Limit':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) return undefined;
        parts.limit = value;
        break;
      default:
        return undefined;
    }
  }
  const { tableName, indexName, expression, values, forward, limit, consistent, capacityMode } = parts;
  if (!isPlainTableName(tableName) || typeof expression !== 'string' || !isPlainMap(values)) return undefined;
  if (indexName !== undefined && !isPlainIndexName(indexName)) return undefined;
  const template = keyConditionTemplate(expression);
  if (template === undefined) return undefined;
  return { tableName, indexName, template, values, forward, limit, consistent, capacityMode };
}

/**
 * The key range of a plain Query's template and values for `schema` (the table's), as the general
 * path's analyzeKeyCondition would return it, or undefined when the request is not plain for this
 * schema: a clause on another attribute or twice on one, no partition key equality, a value that
 * is missing, extra or not plain, begins_with on a number, BETWEEN with its low bound above its high.
 */
export function plainKeyRange(template: KeyConditionTemplate, schema: PrimaryKeySchema, values: object): KeyRange | undefined {
  let count = 0;
  for (const name in values) {
    if (!Object.hasOwn(values, name)) return undefined;
    count++;
  }
  if (count !== template.placeholderCount) return undefined;
  const { partitionKey, sortKey } = schema;
  let partitionValue: KeyValue | undefined;
  let sort: SortKeyCondition | undefined;
  for (const clause of template.clauses) {
    const [first, second] = clause.placeholders;
    if (clause.name === partitionKey.name) {
      if (clause.op !== '=' || partitionValue !== undefined) return undefined;
      if ((partitionValue = valueOf(values, first!, partitionKey)) === undefined) return undefined;
      continue;
    }
    if (sortKey === undefined || clause.name !== sortKey.name || sort !== undefined) return undefined;
    const value = valueOf(values, first!, sortKey);
    if (value === undefined) return undefined;
    if (clause.op === 'BETWEEN') {
      const high = valueOf(values, second!, sortKey);
      if (high === undefined || compareValues(value, high)! > 0) return undefined;
      sort = { op: 'BETWEEN', low: value, high };
    } else if (clause.op === 'begins_with') {
      if (sortKey.type !== 'S') return undefined;
      sort = { op: 'begins_with', prefix: value };
    } else {
      sort = { op: clause.op, value };
    }
  }
  if (partitionValue === undefined) return undefined;
  return sort === undefined ? { partitionValue } : { partitionValue, sort };
}

function valueOf(values: object, placeholder: string, attribute: KeyAttribute): KeyValue | undefined {
  return Object.hasOwn(values, placeholder) ? plainValue((values as Record<string, unknown>)[placeholder], attribute) : undefined;
}
