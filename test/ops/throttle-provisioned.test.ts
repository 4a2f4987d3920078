/**
 * Throttling of provisioned tables with an injected clock (spec §5.6-§5.7): token buckets per
 * table and per GSI refilled at the provisioned rate with up to 300 s of saved units, the
 * per-partition ceiling, batches that hand throttled requests back, live UpdateTable, and
 * on-demand tables that never throttle.
 */
import { join } from 'node:path';
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

/** Calls `request` until it is throttled; returns how many passed (throws past `max`). */
function spend(request: (i: number) => unknown, max = 100_000): number {
  for (let i = 0; i < max; i++) {
    try {
      request(i);
    } catch (e) {
      expect((e as Error).name).toBe(PTEE);
      return i;
    }
  }
  throw new Error(`never throttled in ${max} requests`);
}

/**
 * Spends a provisioned table's saved write burst with 1 KB puts, one a millisecond (a partition
 * serves at most 1,000 WCU a second): the table's bucket ends empty, less than one unit in debt.
 */
function drainWrites(db: Edgetable, clock: { ms: number }, table: string): number {
  return spend((i) => {
    clock.ms += 1;
    db.putItem({ TableName: table, Item: oneKb(`drain${i}`) });
  });
}

describe('what DynamoDB admits: a new 5/5 table as templates create it', () => {
  it('accepts a 400 KB item (391 write units in one request)', () => {
    const { db } = openAt();
    db.createTable(provisioned('Tbl', 5, 5));
    const out = db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'big' }, data: { S: 'x'.repeat(400_000) } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(out.ConsumedCapacity).toEqual({ TableName: 'Tbl', CapacityUnits: 391 });
  });

  it("accepts a tutorial's loop of a thousand puts, a few milliseconds apart: the burst starts available", () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 5, 5));
    for (let i = 0; i < 1000; i++) {
      clock.ms += 2;
      db.putItem({ TableName: 'Tbl', Item: oneKb(i) });
    }
    for (let i = 0; i < 200; i++) db.getItem({ TableName: 'Tbl', Key: { pk: { S: `k${i}` } }, ConsistentRead: true });
  });

  it('accepts transactions of 25 items, repeatedly', () => {
    const { db } = openAt();
    db.createTable(provisioned('Tbl', 5, 5));
    for (let t = 0; t < 10; t++) {
      db.transactWriteItems({ TransactItems: Array.from({ length: 25 }, (_, i) => ({ Put: { TableName: 'Tbl', Item: oneKb(t * 100 + i) } })) });
    }
    expect(db.scan({ TableName: 'Tbl', Select: 'COUNT' }).Count).toBe(250);
  });

  it('a table reopened later has its burst available again (the idle process saved it)', () => {
    const path = join(temp.dir(), 'db');
    const { db, clock } = openAt({ path });
    db.createTable(provisioned('Tbl', 5, 5));
    drainWrites(db, clock, 'Tbl');
    db.close();
    const again = temp.open({ path, durability: 'relaxed', ttlSweepIntervalMs: 0 });
    expect(putUntilThrottled(again, 'Tbl', 0, 100)).toBe(100);
  });
});

describe('what DynamoDB throttles: sustained overload on a table provisioned at 10 WCU', () => {
  it('once the burst is spent, accepts 10 one-KB writes a second for a minute and throttles the 11th of each second', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 5, 10));
    expect(drainWrites(db, clock, 'Tbl')).toBeGreaterThanOrEqual(3000); // 300 s x 10 WCU saved, plus refill
    let n = 0;
    for (let second = 0; second < 60; second++) {
      clock.ms += 1000;
      const accepted = putUntilThrottled(db, 'Tbl', n, 11);
      expect(accepted).toBe(10);
      n += accepted;
    }
  });

  it('throttles with the table message and writes nothing', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 5, 10));
    drainWrites(db, clock, 'Tbl');
    expectError(() => db.putItem({ TableName: 'Tbl', Item: oneKb('late') }), PTEE, TABLE_THROTTLED_MESSAGE);
    expect(db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'klate' } } })).toEqual({});
  });

  it('a large request drives the bucket into debt that refill repays before the next request passes', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    expect(putUntilThrottled(db, 'Tbl', 0, 1000)).toBe(600); // 300 s x 2 WCU saved
    clock.ms += 500; // one unit back
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'big' }, data: { S: 'x'.repeat(9_000) } } }); // 9 WCU: balance -8
    clock.ms += 4000; // 8 units: back to zero, still empty
    expect(putUntilThrottled(db, 'Tbl', 1000, 10)).toBe(0);
    clock.ms += 500;
    expect(putUntilThrottled(db, 'Tbl', 1000, 10)).toBe(1);
  });

  it('idle seconds save units for later, at most 300 seconds of them', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    expect(putUntilThrottled(db, 'Tbl', 0, 1000)).toBe(600);
    clock.ms += 30_000;
    expect(putUntilThrottled(db, 'Tbl', 1000, 1000)).toBe(60);
    clock.ms += 1_000_000;
    expect(putUntilThrottled(db, 'Tbl', 2000, 1000)).toBe(600);
  });
});

describe('adaptive capacity: a hot partition spends the whole table\'s units', () => {
  it('one key on a 4-partition 40 WCU table gets all 40 WCU a second, not a quarter', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 5, 40, { PartitionCount: 4 }));
    const hot = (i: number) => db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'hot' }, n: { N: String(i) } } });
    spend((i) => {
      clock.ms += 1;
      hot(i);
    });
    for (let second = 0; second < 5; second++) {
      clock.ms += 1000;
      expect(spend(hot)).toBe(40);
    }
  });
});

describe('throttling turned off (open({ throttling: false }), serve --no-throttling)', () => {
  it('never throttles a provisioned table, and still meters its usage', () => {
    const { db } = openAt({ throttling: false });
    db.createTable(provisioned('Tbl', 1, 1));
    drainWritesNever(db);
    expect(putUntilThrottled(db, 'Tbl', 0, 2000)).toBe(2000);
    const metrics = db.partitionMetrics('Tbl');
    expect(metrics.reduce((n, p) => n + p.WriteUnitsLastMinute, 0)).toBeGreaterThanOrEqual(2000);
    expect(metrics.reduce((n, p) => n + p.ThrottledRequests, 0)).toBe(0);
  });
});

/** 20 puts of 400 KB on a 1 WCU table: 7,820 units, which a throttling engine refuses. */
function drainWritesNever(db: Edgetable): void {
  for (let i = 0; i < 20; i++) db.putItem({ TableName: 'Tbl', Item: { pk: { S: `big${i}` }, data: { S: 'x'.repeat(399_000) } } });
}

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
    expect(spend(get(true))).toBe(600); // the saved burst: 300 s x 2 RCU
    clock.ms += 1000;
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
    expect(drainWrites(db, clock, 'Tbl')).toBeGreaterThanOrEqual(300);
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
    expect(spend((i) => db.putItem({ TableName: 'Tbl', Item: { pk: { S: `a${i}` }, g: { S: 'x' } } }))).toBe(600);
    expectError(() => db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'c' }, g: { S: 'x' } } }), PTEE, INDEX_THROTTLED_MESSAGE);
    // An item outside the sparse index does not touch it.
    db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'd' } } });
    // GSI reads draw on the GSI's read units.
    const q = () => db.query({ TableName: 'Tbl', IndexName: 'byG', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'x' } } });
    expect(spend(q)).toBeGreaterThan(0);
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
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    drainWrites(db, clock, 'Tbl');
    clock.ms += 1000;
    const batch = (from: number) => ({ RequestItems: { Tbl: [0, 1, 2, 3].map((i) => ({ PutRequest: { Item: oneKb(from + i) } })) } });
    const out = db.batchWriteItem(batch(0)) as { UnprocessedItems: Record<string, unknown[]> };
    expect(out.UnprocessedItems).toEqual({ Tbl: [2, 3].map((i) => ({ PutRequest: { Item: oneKb(i) } })) });
    expect(db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'k1' } } }).Item).toBeDefined();
    expect(db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'k2' } } }).Item).toBeUndefined();
    expectError(() => db.batchWriteItem(batch(10)), PTEE, TABLE_THROTTLED_MESSAGE);
  });

  it('BatchGetItem hands throttled keys back in UnprocessedKeys', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 100));
    for (let i = 0; i < 3; i++) db.putItem({ TableName: 'Tbl', Item: oneKb(i) });
    const keys = [0, 1, 2].map((i) => ({ pk: { S: `k${i}` } }));
    expect(spend(() => db.getItem({ TableName: 'Tbl', Key: keys[0]!, ConsistentRead: true }))).toBe(300);
    clock.ms += 1000;
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
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 2));
    drainWrites(db, clock, 'Tbl');
    clock.ms += 1000; // two units: the first transactional put (2 WCU) passes, the second is refused
    const error = expectError(
      () => db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Tbl', Item: oneKb(1) } }, { Put: { TableName: 'Tbl', Item: oneKb(2) } }] }),
      'TransactionCanceledException',
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ProvisionedThroughputExceeded]',
    ) as Error & { CancellationReasons: unknown[] };
    expect(error.CancellationReasons[1]).toEqual({ Code: 'ProvisionedThroughputExceeded', Message: TABLE_THROTTLED_MESSAGE });
    expect(db.getItem({ TableName: 'Tbl', Key: { pk: { S: 'k1' } } })).toEqual({});
  });

  it('a failed condition consumes write units (without ConsumedCapacity in the error)', () => {
    const { db, clock } = openAt();
    db.createTable(provisioned('Tbl', 1, 3));
    drainWrites(db, clock, 'Tbl');
    clock.ms += 1000;
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
