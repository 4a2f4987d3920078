/**
 * How Query and Scan combine Select with a projection (spec §6.3): each refused combination gets
 * DynamoDB's message, naming the projection parameter actually given, bare on both (a semantic
 * check, docs/decisions/003).
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
      { AttributeName: 'g', AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [{ IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
  });
  db.putItem({ TableName: 'Tab', Item: { pk: { S: 'p' }, g: { S: 'g' }, v: { S: 'v' } } });
});

const query = { TableName: 'Tab', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } };
const scan = { TableName: 'Tab' };
const PE = { ProjectionExpression: 'v' };
const ATG = { AttributesToGet: ['v'] };

describe('Select with a projection', () => {
  it.each([
    ['Query', query, { Select: 'ALL_ATTRIBUTES', ...PE }, `Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES`],
    ['Scan', scan, { Select: 'ALL_ATTRIBUTES', ...PE }, 'Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES'],
    ['Query', query, { Select: 'COUNT', ...PE }, `Cannot specify the ProjectionExpression when choosing to get only the Count`],
    ['Scan', scan, { Select: 'COUNT', ...PE }, 'Cannot specify the ProjectionExpression when choosing to get only the Count'],
    ['Scan', scan, { Select: 'COUNT', ...ATG }, 'Cannot specify the AttributesToGet when choosing to get only the Count'],
    ['Query (legacy key conditions)', { TableName: 'Tab', KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'p' }] } } }, { Select: 'ALL_ATTRIBUTES', ...ATG }, `Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES`],
    ['Scan on an index', { ...scan, IndexName: 'ByG' }, { Select: 'ALL_PROJECTED_ATTRIBUTES', ...PE }, 'Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES'],
    // Both rules broken: the projection one is reported before the missing IndexName.
    ['Scan without an index', scan, { Select: 'ALL_PROJECTED_ATTRIBUTES', ...PE }, 'Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES'],
    ['Query', query, { Select: 'SPECIFIC_ATTRIBUTES' }, `Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES`],
    ['Scan', scan, { Select: 'SPECIFIC_ATTRIBUTES' }, 'Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES'],
    ['Scan', scan, { Select: 'ALL_PROJECTED_ATTRIBUTES' }, 'ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName'],
  ])('%s %j + %j', (operation, base, extra, message) => {
    const run = () => db.execute(operation.startsWith('Query') ? 'Query' : 'Scan', { ...base, ...extra });
    expectError(run, 'ValidationException', message);
  });

  it.each([
    ['Query', () => db.query({ ...query, Select: 'SPECIFIC_ATTRIBUTES', ...PE })],
    ['Scan', () => db.scan({ ...scan, Select: 'SPECIFIC_ATTRIBUTES', ...ATG })],
  ])('%s accepts SPECIFIC_ATTRIBUTES with a projection', (_, run) => {
    expect((run() as { Items: unknown[] }).Items).toEqual([{ v: { S: 'v' } }]);
  });
});
