import { describe, expect, it } from 'vitest';
import { compileRequest, projectItem, projectionTopLevelNames } from '../../src/expr/index.js';
import { ITEM } from './fixtures.js';

describe('AttributesToGet -> projection', () => {
  it('keeps the named top-level attributes; missing names are omitted', () => {
    const { projection } = compileRequest({ AttributesToGet: ['n', 'm', 'missing'] }, 'GetItem');
    expect(projectItem(projection!, ITEM)).toEqual({ n: ITEM.n, m: ITEM.m });
    expect([...projectionTopLevelNames(projection!)]).toEqual(['n', 'm', 'missing']);
  });

  it('names are literal, never document paths', () => {
    const item = { 'a.b': { S: 'dotted' }, a: { M: { b: { S: 'nested' } } }, 'l[0]': { N: '1' } };
    const { projection } = compileRequest({ AttributesToGet: ['a.b', 'l[0]'] }, 'BatchGetItem');
    expect(projectItem(projection!, item)).toEqual({ 'a.b': { S: 'dotted' }, 'l[0]': { N: '1' } });
  });

  it('works for Query and Scan', () => {
    const kc = { KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'p1' }] } } };
    expect(projectItem(compileRequest({ ...kc, AttributesToGet: ['s'] }, 'Query').projection!, ITEM)).toEqual({ s: ITEM.s });
    expect(projectItem(compileRequest({ AttributesToGet: ['s'] }, 'Scan').projection!, ITEM)).toEqual({ s: ITEM.s });
  });

  it('rejects duplicates, empty and over-long lists, non-strings', () => {
    expect(() => compileRequest({ AttributesToGet: ['a', 'b', 'a'] }, 'GetItem')).toThrow(
      expect.objectContaining({ name: 'ValidationException', message: 'One or more parameter values were invalid: Duplicate value in attribute name: a' }),
    );
    expect(() => compileRequest({ AttributesToGet: [] }, 'GetItem')).toThrow(
      "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
    const many = Array.from({ length: 256 }, (_, i) => `a${i}`);
    expect(() => compileRequest({ AttributesToGet: many }, 'GetItem')).toThrow('Member must have length less than or equal to 255');
    expect(() => compileRequest({ AttributesToGet: 'a' }, 'GetItem')).toThrow(expect.objectContaining({ name: 'SerializationException' }));
    expect(() => compileRequest({ AttributesToGet: ['a', 1] }, 'GetItem')).toThrow(expect.objectContaining({ name: 'SerializationException' }));
  });

  it('cannot be mixed with ProjectionExpression', () => {
    expect(() => compileRequest({ AttributesToGet: ['a'], ProjectionExpression: 'a' }, 'GetItem')).toThrow(
      'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}',
    );
  });
});
