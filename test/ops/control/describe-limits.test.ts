/**
 * DescribeLimits (src/ops/control/describe-limits.ts): DynamoDB's default provisioned-capacity quotas,
 * from the synchronous API, db.promises and execute(); a body that is not a JSON object is refused
 * as for every operation, and members the operation does not define are ignored.
 */
import { describe, expect, it } from 'vitest';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();
const DEFAULTS = {
  AccountMaxReadCapacityUnits: 80_000,
  AccountMaxWriteCapacityUnits: 80_000,
  TableMaxReadCapacityUnits: 40_000,
  TableMaxWriteCapacityUnits: 40_000,
};

describe('DescribeLimits', () => {
  it("reports DynamoDB's default quotas: 40,000 units per table, 80,000 per account, each direction", async () => {
    const db = temp.open();
    expect(db.describeLimits()).toEqual(DEFAULTS);
    expect(db.execute('DescribeLimits', {})).toEqual(DEFAULTS);
    expect(await db.promises.describeLimits()).toEqual(DEFAULTS);
  });

  it('answers the same whatever tables exist, and commits nothing', () => {
    const db = temp.open();
    db.createTable({ ...tableRequest('Provisioned', ['id', 'S']), BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } });
    const commits = db.store.stats().commits;
    expect(db.describeLimits()).toEqual(DEFAULTS);
    expect(db.store.stats().commits).toBe(commits);
  });

  it('ignores members it does not define, as DynamoDB does', () => {
    const db = temp.open();
    expect(db.execute('DescribeLimits', { TableName: 'Anything', Limit: 3 })).toEqual(DEFAULTS);
  });

  it.each([[[]], ['limits'], [null]])('refuses a body that is not a JSON object (%j)', (body) => {
    const db = temp.open();
    expectError(() => db.execute('DescribeLimits', body as never), 'SerializationException', 'Request body must be a JSON object');
  });
});
