/**
 * UpdateTable's billing-mode switch carries the table's global secondary indexes with it (spec
 * §3.1, §5.6): on-demand indexes have no throughput (DescribeTable reports 0/0), and a switch to
 * PROVISIONED must give every index its own, in the same request.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CreateTableInput } from '../../src/api/table-operations.js';
import type { Edgetable } from '../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

const withIndex = (billing: 'PROVISIONED' | 'PAY_PER_REQUEST'): CreateTableInput => {
  const throughput = billing === 'PROVISIONED' ? { ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 2 } } : {};
  return {
    ...tableRequest('Tab', ['pk', 'S']),
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }],
    BillingMode: billing,
    ...throughput,
    GlobalSecondaryIndexes: [{ IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ...throughput }],
  };
};

const indexThroughput = () => {
  const t = db.describeTable({ TableName: 'Tab' }).Table.GlobalSecondaryIndexes?.[0]?.ProvisionedThroughput;
  return { read: t?.ReadCapacityUnits, write: t?.WriteCapacityUnits };
};

/** The switch to PROVISIONED with the index's throughput: 3/3 for the table, 4/5 for ByG. */
const toProvisionedWithIndex = () =>
  db.updateTable({
    TableName: 'Tab',
    BillingMode: 'PROVISIONED',
    ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 3 },
    GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'ByG', ProvisionedThroughput: { ReadCapacityUnits: 4, WriteCapacityUnits: 5 } } }],
  });

beforeEach(() => {
  db = temp.open();
});

describe('UpdateTable switching a table with a GSI to PAY_PER_REQUEST', () => {
  it('drops the index throughput with the table throughput', () => {
    db.createTable(withIndex('PROVISIONED'));
    expect(indexThroughput()).toEqual({ read: 2, write: 2 });
    const out = db.updateTable({ TableName: 'Tab', BillingMode: 'PAY_PER_REQUEST' });
    expect(out.TableDescription.GlobalSecondaryIndexes?.[0]?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 0, WriteCapacityUnits: 0 });
    expect(indexThroughput()).toEqual({ read: 0, write: 0 });
    expect(db.describeTable({ TableName: 'Tab' }).Table.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
  });
});

describe('UpdateTable switching a table with a GSI to PROVISIONED', () => {
  beforeEach(() => {
    db.createTable(withIndex('PAY_PER_REQUEST'));
  });

  it('is refused without throughput for the index, and changes nothing', () => {
    expectError(
      () => db.updateTable({ TableName: 'Tab', BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 3 } }),
      'ValidationException',
      'One or more parameter values were invalid: ProvisionedThroughput must be specified for index: ByG',
    );
    const table = db.describeTable({ TableName: 'Tab' }).Table;
    expect(table.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 0, WriteCapacityUnits: 0 });
    expect(indexThroughput()).toEqual({ read: 0, write: 0 });
  });

  it('takes the index throughput from the same request', () => {
    toProvisionedWithIndex();
    expect(db.describeTable({ TableName: 'Tab' }).Table.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 3, WriteCapacityUnits: 3 });
    expect(indexThroughput()).toEqual({ read: 4, write: 5 });
  });

  it('asks for it again after a round trip through PAY_PER_REQUEST', () => {
    toProvisionedWithIndex();
    db.updateTable({ TableName: 'Tab', BillingMode: 'PAY_PER_REQUEST' });
    expectError(
      () => db.updateTable({ TableName: 'Tab', BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 3 } }),
      'ValidationException',
      'One or more parameter values were invalid: ProvisionedThroughput must be specified for index: ByG',
    );
  });
});
