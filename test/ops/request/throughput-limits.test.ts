/**
 * The account's per-table throughput quota (DescribeLimits' 40,000 units): CreateTable and
 * UpdateTable asking a table or a global secondary index for more are refused with DynamoDB's
 * LimitExceededException and change nothing; exactly the quota is accepted.
 */
import { describe, expect, it } from 'vitest';
import { expectError, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();
const LIMIT = 'LimitExceededException';
const tail = 'for the account in ddblocal. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.';

function table(name: string, read: number, write: number, gsi?: { read: number; write: number }) {
  return {
    TableName: name,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }, { AttributeName: 'g', AttributeType: 'S' as const }],
    ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write },
    ...(gsi
      ? { GlobalSecondaryIndexes: [{ IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' as const }], Projection: { ProjectionType: 'ALL' as const }, ProvisionedThroughput: { ReadCapacityUnits: gsi.read, WriteCapacityUnits: gsi.write } }] }
      : { AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' as const }] }),
  };
}

describe('the per-table throughput quota', () => {
  it('CreateTable above 40,000 read or write units is refused and creates nothing', () => {
    const db = temp.open();
    expectError(() => db.createTable(table('Big', 50_000, 5)), LIMIT, `The requested ReadCapacityUnits, 50000, is above the per table maximum ${tail}`);
    expectError(() => db.createTable(table('Big', 5, 40_001)), LIMIT, `The requested WriteCapacityUnits, 40001, is above the per table maximum ${tail}`);
    expect(db.listTables({}).TableNames).toEqual([]);
  });

  it('a global secondary index has the same quota, named for the index', () => {
    const db = temp.open();
    expectError(
      () => db.createTable(table('Gsi', 5, 5, { read: 40_001, write: 1 })),
      LIMIT,
      'The requested ReadCapacityUnits for index byG, 40001, is above the per index maximum for the account in ddblocal. Per index maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.',
    );
    expect(db.listTables({}).TableNames).toEqual([]);
  });

  it('exactly the quota is accepted; UpdateTable above it is refused and the table keeps its throughput', () => {
    const db = temp.open();
    db.createTable(table('Max', 40_000, 40_000));
    expectError(() => db.updateTable({ TableName: 'Max', ProvisionedThroughput: { ReadCapacityUnits: 45_000, WriteCapacityUnits: 5 } }), LIMIT, `The requested ReadCapacityUnits, 45000, is above the per table maximum ${tail}`);
    expect(db.describeTable({ TableName: 'Max' }).Table!.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 40_000, WriteCapacityUnits: 40_000 });
  });
});
