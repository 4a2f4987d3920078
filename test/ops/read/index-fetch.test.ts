/**
 * Projections on index reads (spec §4.3): a global secondary index returns only what it stores, so
 * a projection naming other attributes is refused; a local index fetches them from the table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, useTempDbs } from '../temp-db.js';

const temp = useTempDbs('file');
let db: Edgetable;

beforeAll(() => {
  db = temp.open();
  db.createTable({
    TableName: 'Tab',
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'g', AttributeType: 'S' },
      { AttributeName: 'l', AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    GlobalSecondaryIndexes: [
      { IndexName: 'Keys', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
      { IndexName: 'Incl', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['inc'] } },
      { IndexName: 'Every', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
    ],
    LocalSecondaryIndexes: [
      { IndexName: 'Local', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'l', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
    ],
  });
  db.putItem({ TableName: 'Tab', Item: { pk: { S: 'p' }, sk: { S: 's' }, g: { S: 'g' }, l: { S: 'l' }, inc: { S: 'i' }, top: { M: { a: { S: 'x' } } } } });
});

const onG = (IndexName: string, extra: Record<string, unknown>) => ({
  TableName: 'Tab', IndexName, KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'g' } }, ...extra,
});

describe('a projection on a global secondary index', () => {
  it.each([
    ['Query', 'Keys', { ProjectionExpression: 'top' }, 'Keys does not project [top]'],
    ['Query', 'Keys', { ProjectionExpression: 'pk, top.a, inc' }, 'Keys does not project [top, inc]'],
    ['Query', 'Incl', { ProjectionExpression: 'inc, top' }, 'Incl does not project [top]'],
    ['Query', 'Keys', { AttributesToGet: ['top'], KeyConditionExpression: undefined, ExpressionAttributeValues: undefined, KeyConditions: { g: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'g' }] } } }, 'Keys does not project [top]'],
    ['Scan', 'Keys', { ProjectionExpression: 'top' }, 'Keys does not project [top]'],
  ])('%s on %s with %j is refused', (op, index, extra, message) => {
    const request = onG(index, extra);
    const run = op === 'Query' ? () => db.query(request) : () => db.scan({ TableName: 'Tab', IndexName: index, ...extra });
    expectError(run, 'ValidationException', `One or more parameter values were invalid: Global secondary index ${message}`);
  });

  it.each([
    ['keys of the table and the index', 'Keys', 'pk, sk, g', { pk: { S: 'p' }, sk: { S: 's' }, g: { S: 'g' } }],
    ['an included attribute', 'Incl', 'inc', { inc: { S: 'i' } }],
    ['anything, on an ALL index', 'Every', 'top.a', { top: { M: { a: { S: 'x' } } } }],
  ])('%s may be projected', (_, index, ProjectionExpression, item) => {
    expect(db.query(onG(index, { ProjectionExpression })).Items).toEqual([item]);
  });

  it('a local index fetches what it does not store', () => {
    const out = db.query({ TableName: 'Tab', IndexName: 'Local', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } }, ProjectionExpression: 'top' });
    expect(out.Items).toEqual([{ top: { M: { a: { S: 'x' } } } }]);
  });
});
