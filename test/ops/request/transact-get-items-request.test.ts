/**
 * TransactGetItems' parse: every Get's table name, key values and projection, frozen, in request
 * order; the whole list's constraints are reported together, before any Get's own values.
 */
import { describe, expect, it } from 'vitest';
import { parseTransactGetItemsRequest } from '../../../src/ops/request/transact-get-items-request.js';

const get = (pk: string, more: Record<string, unknown> = {}) => ({ Get: { TableName: 'Tab', Key: { pk: { S: pk } }, ...more } });

describe('parseTransactGetItemsRequest', () => {
  it('reads each Get into its table name, key and projection, in request order, frozen', () => {
    const req = parseTransactGetItemsRequest({ TransactItems: [get('a'), get('b', { ProjectionExpression: 'pk' })], ReturnConsumedCapacity: 'TOTAL' });
    expect(req.gets.map((g) => [g.kind, g.requestedName, g.key])).toEqual([
      ['Get', 'Tab', { pk: { S: 'a' } }],
      ['Get', 'Tab', { pk: { S: 'b' } }],
    ]);
    expect(req.gets[0]!.projection).toBeUndefined();
    expect(req.gets[1]!.projection).toBeDefined();
    expect(req.capacityMode).toBe('TOTAL');
    expect(Object.isFrozen(req) && Object.isFrozen(req.gets) && req.gets.every((g) => Object.isFrozen(g))).toBe(true);
  });

  it('reports the constraints of every Get together, before a later Get value is read', () => {
    const noKey = { Get: { TableName: 'Tab' } };
    const badValue = get('x', { Key: { pk: { N: 'not a number' } } });
    expect(() => parseTransactGetItemsRequest({ TransactItems: [badValue, noKey] })).toThrow(
      "1 validation error detected: Value null at 'transactItems.2.member.get.key' failed to satisfy constraint: Member must not be null",
    );
  });
});
