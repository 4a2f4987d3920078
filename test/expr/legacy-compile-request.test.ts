import { describe, expect, it } from 'vitest';
import { compileRequest, evaluateCondition, type RequestOperation } from '../../src/expr/index.js';
import { ITEM } from './fixtures.js';

const serialization = expect.objectContaining({ name: 'SerializationException' });

describe('compileRequest: expression parameters', () => {
  it('compiles each operation’s expressions with its value-expression list', () => {
    const values = { ':v': { N: '5' } };
    const put = compileRequest({ ConditionExpression: 'n = :v', ExpressionAttributeValues: values }, 'PutItem');
    expect(evaluateCondition(put.condition!, ITEM)).toBe(true);
    const upd = compileRequest({ UpdateExpression: 'SET a = :v', ConditionExpression: 'n = :v', ExpressionAttributeValues: values }, 'UpdateItem');
    expect(Object.keys(upd).sort()).toEqual(['condition', 'update']);
    const tx = compileRequest({ UpdateExpression: 'SET a = :v', ExpressionAttributeValues: values }, 'TransactWriteItems');
    expect(tx.update).toBeDefined();
  });

  it('ExpressionAttributeValues without a value expression: one message on every operation, no "... is null" tail (2026 captures)', () => {
    const values = { ExpressionAttributeValues: { ':v': { N: '1' } } };
    const cases: [RequestOperation, Record<string, unknown>][] = [
      ['PutItem', {}],
      ['DeleteItem', {}],
      ['UpdateItem', {}],
      ['Scan', {}],
      ['Query', { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'p' }] } } }],
      ['TransactWriteItems', {}],
    ];
    for (const [op, extra] of cases) {
      expect(() => compileRequest({ ...values, ...extra }, op)).toThrow(/^ExpressionAttributeValues can only be specified when using expressions$/);
    }
  });

  it('read operations have no ExpressionAttributeValues member: it is ignored', () => {
    for (const op of ['GetItem', 'BatchGetItem', 'TransactGetItems'] as const) {
      const out = compileRequest({ ProjectionExpression: 'n', ExpressionAttributeValues: { ':v': { N: '1' } } }, op);
      expect(out.projection).toBeDefined();
    }
  });

  it('parameters an operation does not have are ignored', () => {
    expect(compileRequest({ Expected: { a: {} }, ConditionExpression: 'x' }, 'GetItem')).toEqual({});
    expect(compileRequest({ AttributeUpdates: { a: {} } }, 'PutItem')).toEqual({});
    expect(compileRequest({ ScanFilter: { a: {} } }, 'Query')).toEqual({});
  });

  it('wrong JSON types are SerializationExceptions', () => {
    expect(() => compileRequest({ ConditionExpression: 5 }, 'PutItem')).toThrow(serialization);
    expect(() => compileRequest({ FilterExpression: ['a'] }, 'Scan')).toThrow(serialization);
    expect(() => compileRequest({ ProjectionExpression: 'a', ExpressionAttributeNames: [] }, 'GetItem')).toThrow(serialization);
    expect(() => compileRequest({ ProjectionExpression: '#a', ExpressionAttributeNames: { '#a': 1 } }, 'GetItem')).toThrow(serialization);
    expect(() => compileRequest({ ConditionExpression: 'a = :v', ExpressionAttributeValues: 'x' }, 'PutItem')).toThrow(serialization);
    expect(() => compileRequest({ Expected: [] }, 'PutItem')).toThrow(serialization);
    expect(() => compileRequest({ Expected: { a: { Exists: 'false' } } }, 'PutItem')).toThrow(serialization);
    expect(() => compileRequest({ AttributeUpdates: { a: 'PUT' } }, 'UpdateItem')).toThrow(serialization);
  });

  it('JSON null members are absent', () => {
    expect(compileRequest({ ConditionExpression: null, Expected: null, ConditionalOperator: null }, 'PutItem')).toEqual({});
  });
});

describe('compileRequest: error order', () => {
  it('member constraints come before mixing, mixing before request rules', () => {
    expect(() =>
      compileRequest({ Expected: { a: { ComparisonOperator: 'BAD' } }, ConditionExpression: 'attribute_exists(a)' }, 'PutItem'),
    ).toThrow("Value 'BAD' at 'expected.a.member.comparisonOperator'");
    expect(() => compileRequest({ Expected: { a: {} }, ConditionExpression: 'attribute_exists(a)' }, 'PutItem')).toThrow(
      'Can not use both expression and non-expression parameters',
    );
  });

  it('Expected is checked before the expressions', () => {
    expect(() => compileRequest({ Expected: { a: {} }, ExpressionAttributeNames: { '#a': 'a' } }, 'PutItem')).toThrow(
      'Value must be provided when Exists is null for Attribute: a',
    );
  });

  it('Query: QueryFilter, AttributesToGet, expressions, then KeyConditions', () => {
    const badKey = { KeyConditions: {} };
    const badFilter = { QueryFilter: { a: { ComparisonOperator: 'EQ' } } };
    const dup = { AttributesToGet: ['a', 'a'] };
    expect(() => compileRequest({ ...badKey, ...badFilter, ...dup }, 'Query')).toThrow('Invalid number of argument(s) for the EQ');
    expect(() => compileRequest({ ...badKey, ...dup }, 'Query')).toThrow('Duplicate value in attribute name: a');
    expect(() => compileRequest({ ...badKey, FilterExpression: 'a = :nope' }, 'Query')).toThrow('attribute value: :nope');
    expect(() => compileRequest(badKey, 'Query')).toThrow('Conditions can be of length 1 or 2 only');
  });

  it('Scan: AttributesToGet before ScanFilter', () => {
    expect(() => compileRequest({ ScanFilter: { a: { ComparisonOperator: 'EQ' } }, AttributesToGet: ['a', 'a'] }, 'Scan')).toThrow(
      'Duplicate value in attribute name: a',
    );
  });
});
