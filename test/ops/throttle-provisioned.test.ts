/**
 * Throttling of provisioned tables with an injected clock (spec §5.6-§5.7): token buckets per
 * table and per GSI refilled at the provisioned rate with up to 300 s of saved units, the
 * per-partition ceiling, batches that hand throttled requests back, live UpdateTable, and
 * on-demand tables that never throttle.
 */
import { describe, expect, it } from 'vitest';
import { INDEX_THROTTLED_MESSAGE, TABLE_THROTTLED_MESSAGE } from '../../src/capacity/throughput.js';
import type { CreateTableInput } from '../../src/api/table-operations.js';
import type { Edgetable, OpenOptions } from '../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
const PTEE = 'ProvisionedThroughputExceededException';

function provisioned(name: string, read: number, write: number, extra: Partial<CreateTableInput> = {}): CreateTableInput {
  return {
    ...tableRequest(name, ['pk', 'S']),
    BillingMode: 'PROVISIONED',
    ProvisionedThroughput: { ReadCapacityUnits: read, WriteCapacityUnits: write },
    ...extra,
  };
}

/** An engine whose clock only moves when the test says so. */
function openAt(options: Partial<OpenOptions> = {}): { db: Edgetable; clock: { ms: number } } {
  const clock = { ms: 1_800_000_000_000 };
  const db = temp.open({ now: () => clock.ms, durability: 'relaxed', ttlSweepIntervalMs: 0, ...options });
  return { db, clock };
}

/** A 1,008-byte item: one write unit. */
const oneKb = (i: number | string) => ({ pk: { S: `k${i}` }, data: { S: 'x'.repeat(1000) } });

/** Puts until the first throttle; returns how many were accepted (stops at `max`). */
function putUntilThrottled(db: Edgetable, table: string, from: number, max: number): number {
  for (let i = 0; i < max; i++) {
    try {
      db.putItem({ TableName: table, Item: oneKb(from + i) });
    } catch (e) {
      expect((e as Error).name).toBe(PTEE);
      return i;
    }
  }
  return max;
}

describe('a table provisioned at 10 WCU', () => {
  it('accepts 10 one-KB writes a second, sustained for a minute, and throttles the 11th of each second', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 5, 10));
    let n = 0;
    for (let second = 0; second < 60; second++) {
      expect(putUntilThrottled(db, 'Tbl', n, 11)).toBe(10);
      n += 10;
      clock.ms += 1000;
    }
  });

  it('throttles with the table message and writes nothing', () => {
    const { db } = openAt();
    db.createTable(provisioned('Tbl', 5, 10));
    expect(putUntilThrottled(db, 'Tbl', 0, 20)).toBe(10);
    expectError(() => db.putItem({ TableName: 'Tbl', Item: oneKb('late') }), PTEE, TABLE_THROTTLED_MESSAGE);
    expect(db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'klate' } } })).toEqual({});
  });

  it('bursts on saved capacity: 30 idle seconds buy 300 more writes at once', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 5, 10));
    expect(putUntilThrottled(db, 'Tbl', 0, 100)).toBe(10);
    clock.ms += 30_000;
    expect(putUntilThrottled(db, 'Tbl', 100, 1000)).toBe(300);
  });

  it('saves at most 300 seconds of units', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    clock.ms += 1_000_000;
    expect(putUntilThrottled(db, 'Tbl', 0, 1000)).toBe(600);
    clock.ms += 500; // half a second at 2 WCU: one more
    expect(putUntilThrottled(db, 'Tbl', 1000, 10)).toBe(1);
  });

  it('a write larger than the rate is charged in full: a 3 KB put on 2 WCU leaves a debt', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    clock.ms += 1000; // one second held from the start plus one saved: 4 units
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'big' }, data: { S: 'x'.repeat(3000) } } }); // 3 WCU
    expect(putUntilThrottled(db, 'Tbl', 0, 10)).toBe(1); // 4 - 3 = 1 left
    clock.ms += 1000;
    expect(putUntilThrottled(db, 'Tbl', 10, 10)).toBe(2);
  });
});

describe('throttling details', () => {
  it('on-demand tables meter but never throttle', () => {
    const { db } = openAt();
    db.createTable(tableRequest('OnDemand', ['pk', 'S']));
    expect(putUntilThrottled(db, 'OnDemand', 0, 2000)).toBe(2000);
    const metrics = db.partitionMetrics('OnDemand');
    expect(metrics.reduce((n, p) => n + p.WriteUnitsLastMinute, 0)).toBe(2000);
    expect(metrics.reduce((n, p) => n + p.ThrottledRequests, 0)).toBe(0);
  });

  it('reads: eventually consistent reads cost half a unit, strong reads one', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 2, 100));
    db.putItem({ TableName: 'Tbl', Item: oneKb(1) });
    const get = (consistent: boolean) => () => db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'k1' } }, ConsistentRead: consistent });
    for (let i = 0; i < 4; i++) get(false)();
    expectError(get(false), PTEE, TABLE_THROTTLED_MESSAGE);
    clock.ms += 1000;
    get(true)();
    get(true)();
    expectError(get(true), PTEE, TABLE_THROTTLED_MESSAGE);
    expectError(() => db.query({ TableName: 'Tbl', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'k1' } } }), PTEE, TABLE_THROTTLED_MESSAGE);
  });

  it('UpdateTable changes the rate at once', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 1));
    expect(putUntilThrottled(db, 'Tbl', 0, 10)).toBe(1);
    db.updateTable({ TableName: 'Tbl', ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 50 } });
    clock.ms += 1000;
    expect(putUntilThrottled(db, 'Tbl', 10, 100)).toBe(50);
    db.updateTable({ TableName: 'Tbl', ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 5 } });
    clock.ms += 1000;
    expect(putUntilThrottled(db, 'Tbl', 100, 100)).toBe(5);
  });

  it('an exhausted GSI throttles writes to its table with the GSI message', () => {
    const { db } = openAt();
    db.createTable(
      provisioned('Tbl', 100, 100, {
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'g', AttributeType: 'S' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'byG',
            KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'KEYS_ONLY' },
            ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 2 },
          },
        ],
      }),
    );
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'a' }, g: { S: 'x' } } });
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'b' }, g: { S: 'x' } } });
    expectError(() => db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'c' }, g: { S: 'x' } } }), PTEE, INDEX_THROTTLED_MESSAGE);
    // An item outside the sparse index does not touch it.
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'd' } } });
    // GSI reads draw on the GSI's read units.
    const q = () => db.query({ TableName: 'Tbl', IndexName: 'byG', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'x' } } });
    q();
    q();
    expectError(q, PTEE, INDEX_THROTTLED_MESSAGE);
  });

  it('a partition tops out at the store ceiling whatever the table provisions', () => {
    const { db } = openAt({ partitionWriteUnits: 5 });
    db.createTable(provisioned('Tbl', 100, 100, { PartitionCount: 2 }));
    expect(putUntilThrottled(db, 'Tbl', 0, 100)).toBeGreaterThanOrEqual(5);
    const metrics = db.partitionMetrics('Tbl');
    expect(metrics).toHaveLength(2);
    for (const p of metrics) {
      expect(p.WriteUnitsLastMinute).toBeLessThanOrEqual(5);
    }
    expect(metrics.reduce((n, p) => n + p.ThrottledRequests, 0)).toBe(1);
  });

  it('BatchWriteItem hands throttled requests back and fails only when none was processed', () => {
    const { db } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    const batch = (from: number) => ({ RequestItems: { Tbl: [0, 1, 2, 3].map((i) => ({ PutRequest: { Item: oneKb(from + i) } })) } });
    const out = db.batchWriteItem(batch(0)) as { UnprocessedItems: Record<string, unknown[]> };
    expect(out.UnprocessedItems).toEqual({ Tbl: [2, 3].map((i) => ({ PutRequest: { Item: oneKb(i) } })) });
    expect(db.scan({ TableName: 'Tbl', Select: 'COUNT' }).Count).toBe(2);
    expectError(() => db.batchWriteItem(batch(10)), PTEE, TABLE_THROTTLED_MESSAGE);
  });

  it('BatchGetItem hands throttled keys back in UnprocessedKeys', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 100));
    for (let i = 0; i < 3; i++) db.putItem({ TableName: 'Tbl', Item: oneKb(i) });
    const keys = [0, 1, 2].map((i) => ({ pk: { S: `k${i}` } }));
    const out = db.batchGetItem({ RequestItems: { Tbl: { Keys: keys, ConsistentRead: true } } }) as {
      Responses: Record<string, unknown[]>;
      UnprocessedKeys: Record<string, { Keys: unknown[] }>;
    };
    expect(out.Responses.Tbl).toHaveLength(1);
    expect(out.UnprocessedKeys.Tbl?.Keys).toEqual([keys[1], keys[2]]);
    expectError(() => db.batchGetItem({ RequestItems: { Tbl: { Keys: keys } } }), PTEE, TABLE_THROTTLED_MESSAGE);
    clock.ms += 1000;
    expect((db.batchGetItem({ RequestItems: { Tbl: { Keys: keys } } }) as { Responses: Record<string, unknown[]> }).Responses.Tbl).toHaveLength(2);
  });

  it('a throttled transaction is cancelled with a reason per action', () => {
    const { db } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    const error = expectError(
      () => db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Tbl', Item: oneKb(1) } }, { Put: { TableName: 'Tbl', Item: oneKb(2) } }] }),
      'TransactionCanceledException',
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ProvisionedThroughputExceeded]',
    ) as Error & { CancellationReasons: unknown[] };
    expect(error.CancellationReasons[1]).toEqual({ Code: 'ProvisionedThroughputExceeded', Message: TABLE_THROTTLED_MESSAGE });
    expect(db.scan({ TableName: 'Tbl', Select: 'COUNT' }).Count).toBe(0);
  });

  it('a failed condition consumes write units (without ConsumedCapacity in the error)', () => {
    const { db } = openAt();
    db.createTable(provisioned('Tbl', 1, 3));
    db.putItem({ TableName: 'Tbl', Item: oneKb(1) });
    for (let i = 0; i < 2; i++) {
      expectError(
        () => db.putItem({ TableName: 'Tbl', Item: oneKb(1), ConditionExpression: 'attribute_not_exists(pk)' }),
        'ConditionalCheckFailedException',
        'The conditional request failed',
      );
    }
    expectError(() => db.putItem({ TableName: 'Tbl', Item: oneKb(2) }), PTEE, TABLE_THROTTLED_MESSAGE);
  });
});
