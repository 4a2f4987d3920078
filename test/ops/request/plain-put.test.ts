/**
 * The plain PutItem shortcut (src/ops/request/plain-put.ts): which requests it recognises, and
 * that a request parses the same, value and errors, whether or not it is recognised. The general
 * path's answer is that of the same request with `ReturnValues: 'NONE'` added, which it reads as
 * absent and which makes the request not plain.
 */
import { describe, expect, it } from 'vitest';
import { plainPutItem } from '../../../src/ops/request/plain-put.js';
import { parsePutItemRequest } from '../../../src/ops/request/put-item-request.js';

const Item = { pk: { S: 'a' }, sk: { N: '1.50' }, tags: { SS: ['x', 'y'] }, nested: { M: { n: { NULL: true } } } };

/** The parse without the shortcut, but for the request object it keeps for expressions. */
function general(request: Record<string, unknown>) {
  const { expressionMembers: _, ...parsed } = parsePutItemRequest({ ...request, ReturnValues: 'NONE' });
  return parsed;
}

describe('plainPutItem', () => {
  it('recognises TableName and Item with an optional ReturnConsumedCapacity, and parses them as the general path does', () => {
    for (const request of [{ TableName: 'Items', Item }, { TableName: 'Items', Item, ReturnConsumedCapacity: 'TOTAL' }, { Item, ReturnConsumedCapacity: 'INDEXES', TableName: 'a.b-c_9' }]) {
      const plain = plainPutItem(request);
      expect(plain, JSON.stringify(request)).toBeDefined();
      const { expressionMembers, ...parsed } = plain!;
      expect(parsed).toEqual(general(request));
      expect(expressionMembers).toBe(request);
      expect(Object.isFrozen(plain)).toBe(true);
    }
  });

  it('leaves every other request to the general path', () => {
    for (const request of [
      null,
      'Items',
      [],
      { TableName: 'Items' },
      { Item },
      { TableName: 'Items', Item: [] },
      { TableName: 'Items', Item: null },
      { TableName: 'Items', Item: 'x' },
      { TableName: 'It', Item },
      { TableName: 'arn:aws:dynamodb:us-east-1:1:table/Items', Item },
      { TableName: 'Items', Item, ReturnValues: 'ALL_OLD' },
      { TableName: 'Items', Item, ReturnValues: 'NONE' },
      { TableName: 'Items', Item, ConditionExpression: 'attribute_not_exists(pk)' },
      { TableName: 'Items', Item, Expected: { pk: { Exists: false } } },
      { TableName: 'Items', Item, ReturnItemCollectionMetrics: 'SIZE' },
      { TableName: 'Items', Item, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
      { TableName: 'Items', Item, ConsistentRead: true },
      { TableName: 'Items', Item, ReturnConsumedCapacity: 'total' },
      { TableName: 'Items', Item, ReturnConsumedCapacity: undefined },
      Object.assign(Object.create({ Extra: 1 }), { TableName: 'Items', Item }),
    ]) {
      expect(plainPutItem(request), JSON.stringify(request)).toBeUndefined();
    }
  });

  it('does not recognise an Item its conversion refuses: the general path reports it, in the same words', () => {
    for (const bad of [{ pk: { S: 'a' }, n: { N: 'x' } }, { pk: { S: 'a' }, s: { SS: [] } }, { pk: { S: 'a' }, v: { S: 'a', N: '1' } }, { pk: 'a' }, { pk: { Q: 'a' } }]) {
      const request = { TableName: 'Items', Item: bad };
      expect(plainPutItem(request), JSON.stringify(bad)).toBeUndefined();
      let expected: unknown;
      try {
        general(request);
      } catch (err) {
        expected = err;
      }
      expect(expected, JSON.stringify(bad)).toBeInstanceOf(Error);
      expect(() => parsePutItemRequest(request)).toThrow((expected as Error).message);
    }
  });
});
