import { describe, expect, it } from 'vitest';
import { analyzeKeyCondition, compileExpressions, type KeyRange } from '../../src/expr/index.js';
import type { PrimaryKeySchema } from '../../src/model/key-schema.js';

const SCHEMA: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } };
const HASH_ONLY: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' } };
const STR_SORT: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'S' } };
const VALUES = { ':p': { S: 'p1' }, ':a': { N: '1' }, ':b': { N: '9' }, ':s': { S: 'pre' }, ':bin': { B: 'AQ==' }, ':t': { BOOL: true }, ':f': { BOOL: false } };

function analyze(expression: string, schema: PrimaryKeySchema = SCHEMA, names?: Record<string, string>): KeyRange {
  const used = new Set(expression.match(/:[a-z]+/g) ?? []);
  const { keyCondition } = compileExpressions({
    KeyConditionExpression: expression,
    ...(used.size > 0 ? { ExpressionAttributeValues: Object.fromEntries(Object.entries(VALUES).filter(([k]) => used.has(k))) } : {}),
    ...(names ? { ExpressionAttributeNames: names } : {}),
  });
  return analyzeKeyCondition(keyCondition!, schema);
}

const P = { S: 'p1' };
const OK: readonly (readonly [string, KeyRange, PrimaryKeySchema?])[] = [
  ['pk = :p', { partitionValue: P }],
  [':p = pk', { partitionValue: P }],
  ['pk = :p', { partitionValue: P }, HASH_ONLY],
  ['pk = :p AND sk = :a', { partitionValue: P, sort: { op: '=', value: { N: '1' } } }],
  ['pk = :p AND sk < :a', { partitionValue: P, sort: { op: '<', value: { N: '1' } } }],
  ['pk = :p AND sk <= :a', { partitionValue: P, sort: { op: '<=', value: { N: '1' } } }],
  ['pk = :p AND sk > :a', { partitionValue: P, sort: { op: '>', value: { N: '1' } } }],
  ['pk = :p AND sk >= :a', { partitionValue: P, sort: { op: '>=', value: { N: '1' } } }],
  ['pk = :p AND :a <= sk', { partitionValue: P, sort: { op: '>=', value: { N: '1' } } }],
  ['pk = :p AND :a > sk', { partitionValue: P, sort: { op: '<', value: { N: '1' } } }],
  ['sk BETWEEN :a AND :b AND pk = :p', { partitionValue: P, sort: { op: 'BETWEEN', low: { N: '1' }, high: { N: '9' } } }],
  ['(pk = :p) AND (sk = :a)', { partitionValue: P, sort: { op: '=', value: { N: '1' } } }],
  ['(pk = :p AND sk = :a)', { partitionValue: P, sort: { op: '=', value: { N: '1' } } }],
  ['pk = :p and begins_with(sk, :s)', { partitionValue: P, sort: { op: 'begins_with', prefix: { S: 'pre' } } }, STR_SORT],
  ['#k = :p', { partitionValue: P }],
];

const ERRORS: readonly (readonly [string, string, PrimaryKeySchema?])[] = [
  ['sk = :a', 'Query condition missed key schema element: pk'],
  ['pk = :p OR sk = :a', 'Invalid operator used in KeyConditionExpression: OR'],
  ['NOT pk = :p', 'Invalid operator used in KeyConditionExpression: NOT'],
  ['pk IN (:p)', 'Invalid operator used in KeyConditionExpression: IN'],
  ['pk <> :p', 'Invalid operator used in KeyConditionExpression: <>'],
  ['pk = :p AND attribute_exists(sk)', 'Invalid operator used in KeyConditionExpression: attribute_exists'],
  ['pk = :p AND contains(sk, :a)', 'Invalid operator used in KeyConditionExpression: contains'],
  ['pk = :p AND sk = :a AND sk = :b', 'Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key'],
  ['pk = :p AND pk = :p', 'Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key'],
  ['pk = :p AND sk > :a AND other1 = :b', 'The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)'],
  ['pk = :p AND sk < :t', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL'],
  ['pk = :p AND :t >= sk', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: >=, operand type: BOOL'],
  ['pk = :p AND sk BETWEEN :f AND :t', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL'],
  ['pk = :p AND sk = :t', 'One or more parameter values were invalid: Condition parameter type does not match schema type'],
  ['pk = :p AND size(sk) = :a', 'KeyConditionExpressions cannot contain nested operations'],
  ['pk.x = :p', 'Invalid KeyConditionExpression: KeyConditionExpressions cannot have conditions on nested attributes'],
  ['pk = sk', 'Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition'],
  ['pk = :p AND other1 = :a', 'Query condition missed key schema element: sk'],
  ['pk < :p', 'Query key condition not supported'],
  ['begins_with(pk, :p)', 'Query key condition not supported'],
  ['pk BETWEEN :p AND :p', 'Query key condition not supported'],
  ['pk = :a', 'One or more parameter values were invalid: Condition parameter type does not match schema type'],
  ['pk = :p AND sk = :s', 'One or more parameter values were invalid: Condition parameter type does not match schema type'],
  ['pk = :p AND sk BETWEEN :a AND :s', 'Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:pre}'],
  ['pk = :p AND sk BETWEEN :b AND :a', 'Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:9}, upper bound operand: AttributeValue: {N:1}'],
  ['pk = :p AND begins_with(sk, :a)', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N'],
  ['pk = :p AND begins_with(sk, :bin)', 'One or more parameter values were invalid: Condition parameter type does not match schema type', STR_SORT],
  // Clause by clause, in the order written: the first clause's problem wins.
  ['begins_with(sk, :a) AND pk = :missing', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N', STR_SORT],
  ['pk = :missing AND begins_with(sk, :a)', 'Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :missing', STR_SORT],
  ['pk = :p AND begins_with(sk, :a) AND sk = :missing', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N', STR_SORT],
  ['pk = :p AND begins_with(sk, :a) AND sk > :s', 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N', STR_SORT],
];

describe('analyzeKeyCondition', () => {
  for (const [expression, expected, schema] of OK) it(String(expression), () => {
    expect(analyze(expression, schema ?? SCHEMA, expression.includes('#k') ? { '#k': 'pk' } : undefined)).toEqual(expected);
  });
  for (const [expression, message, schema] of ERRORS) it('rejects ' + String(expression), () => {
    expect(() => analyze(expression, schema ?? SCHEMA)).toThrow(message);
    try {
      analyze(expression, schema ?? SCHEMA);
    } catch (e) {
      expect((e as Error).message).toBe(message);
      expect((e as Error).name).toBe('ValidationException');
    }
  });
});
