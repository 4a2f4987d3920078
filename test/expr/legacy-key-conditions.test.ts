import { describe, expect, it } from 'vitest';
import type { PrimaryKeySchema } from '../../src/model/key-schema.js';
import { analyzeKeyCondition, compileRequest } from '../../src/expr/index.js';

type Wire = Record<string, unknown>;
const SCHEMA: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } };
const S_SORT: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'S' } };
const HASH_ONLY: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' } };

const eq = (v: Wire) => ({ ComparisonOperator: 'EQ', AttributeValueList: [v] });
const cond = (op: string, ...list: Wire[]) => ({ ComparisonOperator: op, AttributeValueList: list });

function range(KeyConditions: Wire, schema = SCHEMA) {
  return analyzeKeyCondition(compileRequest({ KeyConditions }, 'Query').keyCondition!, schema);
}

describe('KeyConditions -> key range', () => {
  it.each([
    [{ pk: eq({ S: 'p' }) }, { partitionValue: { S: 'p' } }],
    [{ pk: eq({ S: 'p' }), sk: cond('EQ', { N: '3' }) }, { partitionValue: { S: 'p' }, sort: { op: '=', value: { N: '3' } } }],
    [{ sk: cond('LT', { N: '3' }), pk: eq({ S: 'p' }) }, { partitionValue: { S: 'p' }, sort: { op: '<', value: { N: '3' } } }],
    [{ pk: eq({ S: 'p' }), sk: cond('LE', { N: '3' }) }, { partitionValue: { S: 'p' }, sort: { op: '<=', value: { N: '3' } } }],
    [{ pk: eq({ S: 'p' }), sk: cond('GT', { N: '3' }) }, { partitionValue: { S: 'p' }, sort: { op: '>', value: { N: '3' } } }],
    [{ pk: eq({ S: 'p' }), sk: cond('GE', { N: '3.0' }) }, { partitionValue: { S: 'p' }, sort: { op: '>=', value: { N: '3' } } }],
    [
      { pk: eq({ S: 'p' }), sk: cond('BETWEEN', { N: '1' }, { N: '5' }) },
      { partitionValue: { S: 'p' }, sort: { op: 'BETWEEN', low: { N: '1' }, high: { N: '5' } } },
    ],
  ])('%j', (kc, expected) => {
    expect(range(kc)).toEqual(expected);
  });

  it('BEGINS_WITH on a string sort key', () => {
    expect(range({ pk: eq({ S: 'p' }), sk: cond('BEGINS_WITH', { S: 'ab' }) }, S_SORT)).toEqual({
      partitionValue: { S: 'p' },
      sort: { op: 'begins_with', prefix: { S: 'ab' } },
    });
  });
});

const INVALID = 'One or more parameter values were invalid: ';
describe('KeyConditions errors', () => {
  it.each([
    [{}, SCHEMA, 'Conditions can be of length 1 or 2 only'],
    [{ pk: eq({ S: 'p' }), sk: eq({ N: '1' }), x: eq({ S: 'x' }) }, SCHEMA, 'Conditions can be of length 1 or 2 only'],
    [{ pk: cond('NE', { S: 'p' }) }, SCHEMA, 'Attempted conditional constraint is not an indexable operation'],
    [{ pk: eq({ S: 'p' }), sk: { ComparisonOperator: 'NULL' } }, SCHEMA, 'Attempted conditional constraint is not an indexable operation'],
    [{ pk: cond('IN', { S: 'p' }) }, SCHEMA, 'Attempted conditional constraint is not an indexable operation'],
    [{ pk: cond('CONTAINS', { S: 'p' }) }, SCHEMA, 'Attempted conditional constraint is not an indexable operation'],
    [{ pk: cond('GT', { S: 'p' }) }, SCHEMA, 'Query key condition not supported'],
    [{ pk: cond('BEGINS_WITH', { S: 'p' }) }, SCHEMA, 'Query key condition not supported'],
    [{ sk: eq({ N: '1' }) }, SCHEMA, 'Query condition missed key schema element: pk'],
    [{ pk: eq({ N: '1' }) }, SCHEMA, `${INVALID}Condition parameter type does not match schema type`],
    [{ pk: eq({ S: 'p' }), sk: eq({ S: '1' }) }, SCHEMA, `${INVALID}Condition parameter type does not match schema type`],
    [{ pk: cond('EQ', { S: 'p' }, { S: 'q' }) }, SCHEMA, `${INVALID}Invalid number of argument(s) for the EQ ComparisonOperator`],
    [{ pk: eq({ S: 'p' }), sk: cond('BETWEEN', { N: '5' }, { N: '1' }) }, SCHEMA, 'The BETWEEN condition was provided a range where the lower bound is greater than the upper bound'],
    [{ pk: eq({ S: 'p' }), x: eq({ S: 'x' }) }, HASH_ONLY, 'Query condition missed key schema element: x'],
  ] as const)('%j', (kc, schema, message) => {
    expect(() => range(kc as Wire, schema)).toThrow(expect.objectContaining({ name: 'ValidationException', message }));
  });

  it('missing ComparisonOperator is a Coral constraint error', () => {
    expect(() => compileRequest({ KeyConditions: { pk: { AttributeValueList: [{ S: 'p' }] } } }, 'Query')).toThrow(
      "1 validation error detected: Value null at 'keyConditions.pk.member.comparisonOperator' failed to satisfy constraint: Member must not be null",
    );
  });

  it('cannot be mixed with KeyConditionExpression, but goes with FilterExpression', () => {
    expect(() =>
      compileRequest({ KeyConditions: { pk: eq({ S: 'p' }) }, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } }, 'Query'),
    ).toThrow('Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}');
    const out = compileRequest(
      { KeyConditions: { pk: eq({ S: 'p' }) }, FilterExpression: 'a = :a', ExpressionAttributeValues: { ':a': { N: '1' } } },
      'Query',
    );
    expect(out.keyCondition).toBeDefined();
    expect(out.filter).toBeDefined();
  });
});
