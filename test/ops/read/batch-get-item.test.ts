/**
 * BatchGetItem request rules that span the whole request (spec §6.2): one table's block using an
 * expression projection and another's using the legacy AttributesToGet is refused, even though each
 * block on its own is consistent.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

beforeEach(() => {
  db = temp.open();
  db.createTable(tableRequest('Tab', ['pk', 'S'], ['sk', 'N']));
  db.createTable(tableRequest('Hash', ['id', 'S']));
  db.putItem({ TableName: 'Tab', Item: { pk: { S: 'p' }, sk: { N: '1' }, v: { S: 'tab' } } });
  db.putItem({ TableName: 'Hash', Item: { id: { S: 'h' }, v: { S: 'hash' } } });
});

const MIXED =
  'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}';
const tabKeys = [{ pk: { S: 'p' }, sk: { N: '1' } }];
const hashKeys = [{ id: { S: 'h' } }];

describe('expression and legacy projections across tables', () => {
  it.each([
    ['expression on the first table, legacy on the second', { Tab: { Keys: tabKeys, ProjectionExpression: 'v' }, Hash: { Keys: hashKeys, AttributesToGet: ['v'] } }],
    ['legacy on the first table, expression on the second', { Tab: { Keys: tabKeys, AttributesToGet: ['v'] }, Hash: { Keys: hashKeys, ProjectionExpression: 'v' } }],
    ['both in one block', { Tab: { Keys: tabKeys, AttributesToGet: ['v'], ProjectionExpression: 'v' } }],
  ])('%s is refused', (_, RequestItems) => {
    expectError(() => db.batchGetItem({ RequestItems }), 'ValidationException', MIXED);
  });

  it.each([
    ['expression projections on both tables', { Tab: { Keys: tabKeys, ProjectionExpression: 'v' }, Hash: { Keys: hashKeys, ProjectionExpression: 'v' } }],
    ['legacy projections on both tables', { Tab: { Keys: tabKeys, AttributesToGet: ['v'] }, Hash: { Keys: hashKeys, AttributesToGet: ['v'] } }],
    ['a projection on one table only', { Tab: { Keys: tabKeys, AttributesToGet: ['v'] }, Hash: { Keys: hashKeys } }],
  ])('%s is accepted', (_, RequestItems) => {
    const out = db.batchGetItem({ RequestItems }) as { Responses: Record<string, unknown[]> };
    expect(out.Responses.Tab).toEqual([{ v: { S: 'tab' } }]);
    expect(out.Responses.Hash).toHaveLength(1);
  });
});
