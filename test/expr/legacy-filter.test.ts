import { describe, expect, it } from 'vitest';
import { compileRequest, conditionAttributeNames, evaluateCondition } from '../../src/expr/index.js';
import { ITEM } from './fixtures.js';

const n4 = { ComparisonOperator: 'EQ', AttributeValueList: [{ N: '4' }] };
const hello = { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'hello' }] };
const pk = { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'p1' }] } } };

describe('ScanFilter / QueryFilter -> filter', () => {
  it('joins entries with ConditionalOperator (default AND)', () => {
    const run = (req: Record<string, unknown>, op: 'Scan' | 'Query') => evaluateCondition(compileRequest(req, op).filter!, ITEM);
    expect(run({ ScanFilter: { n: n4, s: hello } }, 'Scan')).toBe(false);
    expect(run({ ScanFilter: { n: n4, s: hello }, ConditionalOperator: 'AND' }, 'Scan')).toBe(false);
    expect(run({ ScanFilter: { n: n4, s: hello }, ConditionalOperator: 'OR' }, 'Scan')).toBe(true);
    expect(run({ ...pk, QueryFilter: { n: n4, s: hello }, ConditionalOperator: 'OR' }, 'Query')).toBe(true);
    expect(run({ ...pk, QueryFilter: { s: hello } }, 'Query')).toBe(true);
  });

  it('names only the filtered attributes (the Query key check reads them)', () => {
    const { filter } = compileRequest({ ...pk, QueryFilter: { n: n4, s: hello } }, 'Query');
    expect([...conditionAttributeNames(filter!)].sort()).toEqual(['n', 's']);
  });

  it('an empty filter map is no filter', () => {
    expect(compileRequest({ ScanFilter: {} }, 'Scan').filter).toBeUndefined();
  });

  it('errors name the parameter', () => {
    expect(() => compileRequest({ ...pk, QueryFilter: { n: { ComparisonOperator: 'BAD' } } }, 'Query')).toThrow(
      "Value 'BAD' at 'queryFilter.n.member.comparisonOperator'",
    );
    expect(() => compileRequest({ ScanFilter: { n: n4 }, ConditionalOperator: 'OR' }, 'Scan')).toThrow(
      'ConditionalOperator can only be used when Filter or Expected has two or more elements',
    );
    expect(() => compileRequest({ ...pk, ConditionalOperator: 'OR' }, 'Query')).toThrow('ConditionalOperator cannot be used without Filter or Expected');
  });

  it('cannot be mixed with expressions; the message lists parameters in DynamoDB order', () => {
    expect(() => compileRequest({ ScanFilter: { n: n4 }, AttributesToGet: ['a'], ProjectionExpression: 'a', FilterExpression: 'attribute_exists(b)' }, 'Scan')).toThrow(
      'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, ScanFilter} Expression parameters: {ProjectionExpression, FilterExpression}',
    );
    expect(() =>
      compileRequest({ ...pk, QueryFilter: { n: n4, s: hello }, ConditionalOperator: 'OR', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } }, 'Query'),
    ).toThrow('Non-expression parameters: {QueryFilter, ConditionalOperator, KeyConditions} Expression parameters: {KeyConditionExpression}');
  });
});
