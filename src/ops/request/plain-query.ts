/**
 * The plain Query, a property of its typed request (query-request.ts): a key condition with a
 * template (expr/key-condition-template.ts: `pk = :v [AND sk cond]`, plain names, each value
 * placeholder used once) and nothing else for the checked path to apply: no filter, projection,
 * ExclusiveStartKey or Select. Two steps:
 *
 * - At the parse, `templateKeyCondition` keeps a templated key condition as its template and its
 *   values instead of compiling it, when the compile could report nothing: the request's only
 *   expression member is the key condition, and its values are exactly the template's
 *   placeholders, each a plain S or N value (non-empty, well-formed, within the key limits; a
 *   number in canonical form), a BETWEEN's bounds of one type and in order, a begins_with's
 *   operand a string. Anything else is compiled as always, and reported in its order and words.
 * - Once the table is known, `plainKeyRange` reads the key range from the template and values,
 *   as analyzeKeyCondition would, or answers undefined where the key schema does not fit (another
 *   attribute, a value of the other type, begins_with on a number): the caller then resolves the
 *   condition (resolvedKeyCondition), whose analysis reports it.
 */
import { compareValues } from '../../model/compare-values.js';
import type { KeyValue } from '../../model/attribute-value.js';
import type { KeyAttribute, PrimaryKeySchema } from '../../model/key-schema.js';
import { MAX_PLACEHOLDER_BYTES } from '../../model/limits.js';
import { compileExpressions, keyConditionTemplate, type Condition, type KeyConditionTemplate, type KeyRange, type SortKeyCondition } from '../../expr/index.js';
import { plainScalar } from './plain-get.js';
import type { QueryRequest } from './query-request.js';

/** A Query's key condition, as its typed request holds it. */
export type QueryKeyCondition =
  /** Compiled from its template when needed (resolvedKeyCondition); the compile has nothing to report. */
  | { readonly kind: 'template'; readonly expression: string; readonly template: KeyConditionTemplate; readonly values: Readonly<Record<string, KeyValue>> }
  | { readonly kind: 'resolved'; readonly condition: Condition };

/** Whether a Query's typed request is plain (see above): its key range may come from plainKeyRange alone. */
export function isPlainQuery(req: QueryRequest): req is QueryRequest & { readonly keyCondition: { readonly kind: 'template' } } {
  return (
    req.keyCondition.kind === 'template' &&
    req.compiled.filter === undefined &&
    req.compiled.projection === undefined &&
    (req.exclusiveStartKey === undefined || req.exclusiveStartKey === null) &&
    req.selectAsked === undefined
  );
}

/**
 * The template form of the checked request's key condition (the schema pass has run), or
 * undefined when it must be compiled (see above). Members are visited as the request has them
 * (for-in, inherited ones too, as the compile reads them).
 */
export function templateKeyCondition(req: Readonly<Record<string, unknown>>): QueryKeyCondition | undefined {
  for (const member in req) {
    switch (member) {
      // Members that make the compile do more than a key condition's, or report something.
      case 'FilterExpression':
      case 'ProjectionExpression':
      case 'ExpressionAttributeNames':
      case 'KeyConditions':
      case 'QueryFilter':
      case 'AttributesToGet':
      case 'ConditionalOperator':
        if (req[member] !== undefined) return undefined;
    }
  }
  const expression = req.KeyConditionExpression;
  const values = req.ExpressionAttributeValues;
  if (typeof expression !== 'string' || typeof values !== 'object' || values === null || Array.isArray(values)) return undefined;
  const template = keyConditionTemplate(expression);
  if (template === undefined) return undefined;
  let count = 0;
  for (const name in values) {
    if (!Object.hasOwn(values, name)) return undefined;
    count++;
  }
  if (count !== template.placeholderCount) return undefined;
  for (const clause of template.clauses) {
    const [first, second] = clause.placeholders;
    const value = plainPlaceholder(values, first!);
    if (value === undefined) return undefined;
    if (clause.op === 'begins_with' && !('S' in value)) return undefined;
    if (clause.op === 'BETWEEN') {
      const high = plainPlaceholder(values, second!);
      // compareValues answers undefined for bounds of two types.
      if (high === undefined || !(compareValues(value, high)! <= 0)) return undefined;
    }
  }
  return Object.freeze({ kind: 'template', expression, template, values: values as Readonly<Record<string, KeyValue>> });
}

function plainPlaceholder(values: object, placeholder: string): KeyValue | undefined {
  if (placeholder.length > MAX_PLACEHOLDER_BYTES || !Object.hasOwn(values, placeholder)) return undefined;
  return plainScalar((values as Record<string, unknown>)[placeholder]);
}

/** The key condition resolved: compiled from the template when the request kept one (it has nothing to report). */
export function resolvedKeyCondition(keyCondition: QueryKeyCondition): Condition {
  if (keyCondition.kind === 'resolved') return keyCondition.condition;
  return compileExpressions({ KeyConditionExpression: keyCondition.expression, ExpressionAttributeValues: keyCondition.values }).keyCondition!;
}

/**
 * The key range of a template and its values (plain ones, as templateKeyCondition kept them) for
 * `schema` (the table's or the index's), as analyzeKeyCondition would return it, or undefined when
 * they do not fit this schema: a clause on another attribute or twice on one, no partition key
 * equality, a value of another type than its key attribute's, begins_with on a number.
 */
export function plainKeyRange(template: KeyConditionTemplate, schema: PrimaryKeySchema, values: Readonly<Record<string, KeyValue>>): KeyRange | undefined {
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

/** The value of `placeholder` when it is of `attribute`'s type (templateKeyCondition has checked that it is a plain one). */
function valueOf(values: Readonly<Record<string, KeyValue>>, placeholder: string, attribute: KeyAttribute): KeyValue | undefined {
  const value = Object.hasOwn(values, placeholder) ? values[placeholder] : undefined;
  return value !== undefined && Object.hasOwn(value, attribute.type) ? value : undefined;
}
