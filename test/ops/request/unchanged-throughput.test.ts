/**
 * UpdateTable refuses a provisioned throughput equal to the current one, for the table and for a
 * GSI's Update action, with DynamoDB's bare ValidationException, and changes nothing; a change of
 * either unit, or a first throughput for an on-demand table or index, goes through.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

const units = (read: number, write: number) => ({ ReadCapacityUnits: read, WriteCapacityUnits: write });
const REFER = 'Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.';

/** A PROVISIONED table at 1/1 with a GSI ByG at 2/2 (or both on demand). */
function createTable(billing: 'PROVISIONED' | 'PAY_PER_REQUEST'): void {
  const throughput = billing === 'PROVISIONED' ? { ProvisionedThroughput: units(1, 1) } : {};
  db.createTable({
    ...tableRequest('Tab', ['pk', 'S']),
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }],
    BillingMode: billing,
    ...throughput,
    GlobalSecondaryIndexes: [
      { IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ...(billing === 'PROVISIONED' ? { ProvisionedThroughput: units(2, 2) } : {}) },
    ],
  });
}

const described = () => {
  const table = db.describeTable({ TableName: 'Tab' }).Table;
  const pt = table.ProvisionedThroughput;
  const ix = table.GlobalSecondaryIndexes?.[0]?.ProvisionedThroughput;
  return { table: [pt?.ReadCapacityUnits, pt?.WriteCapacityUnits], index: [ix?.ReadCapacityUnits, ix?.WriteCapacityUnits], decreases: pt?.NumberOfDecreasesToday };
};

beforeEach(() => {
  db = temp.open();
});

describe('the table throughput', () => {
  const message =
    'The provisioned throughput for the table will not change. The requested value equals the current value. ' +
    `Current ReadCapacityUnits provisioned for the table: 1. Requested ReadCapacityUnits: 1. Current WriteCapacityUnits provisioned for the table: 1. Requested WriteCapacityUnits: 1. ${REFER}`;

  it('equal to the current one is refused', () => {
    createTable('PROVISIONED');
    expectError(() => db.updateTable({ TableName: 'Tab', ProvisionedThroughput: units(1, 1) }), 'ValidationException', message);
    expect(described()).toEqual({ table: [1, 1], index: [2, 2], decreases: 0 });
  });

  it('equal to the current one is refused also beside BillingMode PROVISIONED, the mode the table has', () => {
    createTable('PROVISIONED');
    expectError(() => db.updateTable({ TableName: 'Tab', BillingMode: 'PROVISIONED', ProvisionedThroughput: units(1, 1) }), 'ValidationException', message);
    expect(described()).toEqual({ table: [1, 1], index: [2, 2], decreases: 0 });
  });

  it('with one unit changed goes through', () => {
    createTable('PROVISIONED');
    db.updateTable({ TableName: 'Tab', ProvisionedThroughput: units(1, 2) });
    expect(described().table).toEqual([1, 2]);
  });
});

describe("a GSI's throughput", () => {
  const message =
    'The provisioned throughput for the index ByG will not change. The requested value equals the current value. ' +
    `Current ReadCapacityUnits provisioned for index ByG: 2. Requested ReadCapacityUnits: 2. Current WriteCapacityUnits provisioned for index ByG: 2. Requested WriteCapacityUnits: 2. ${REFER}`;

  it('equal to the current one is refused, and the table throughput of the same request is not applied', () => {
    createTable('PROVISIONED');
    expectError(
      () => db.updateTable({ TableName: 'Tab', GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'ByG', ProvisionedThroughput: units(2, 2) } }] }),
      'ValidationException',
      message,
    );
    expectError(
      () => db.updateTable({ TableName: 'Tab', ProvisionedThroughput: units(5, 5), GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'ByG', ProvisionedThroughput: units(2, 2) } }] }),
      'ValidationException',
      message,
    );
    expect(described()).toEqual({ table: [1, 1], index: [2, 2], decreases: 0 });
  });

  it('with one unit changed goes through', () => {
    createTable('PROVISIONED');
    db.updateTable({ TableName: 'Tab', GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'ByG', ProvisionedThroughput: units(3, 2) } }] });
    expect(described().index).toEqual([3, 2]);
  });

  it('given for the first time, by a switch from PAY_PER_REQUEST, goes through', () => {
    createTable('PAY_PER_REQUEST');
    db.updateTable({ TableName: 'Tab', BillingMode: 'PROVISIONED', ProvisionedThroughput: units(1, 1), GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'ByG', ProvisionedThroughput: units(2, 2) } }] });
    expect(described()).toMatchObject({ table: [1, 1], index: [2, 2] });
  });
});
