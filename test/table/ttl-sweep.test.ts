/**
 * Time to Live end to end (spec §6.9): UpdateTimeToLive / DescribeTimeToLive shapes and errors,
 * the sweeper deleting expired items in bounded steps through the write path (index entries too,
 * change records marked as TTL deletes, no write units), reads hiding expired items by default,
 * and the background timer.
 */
import { describe, expect, it } from 'vitest';
import type { Edgetable, OpenOptions } from '../../src/edgetable.js';
import { TtlSweeper } from '../../src/table/ttl-sweep.js';
import { expectError, scanAll, tableRequest, useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;

function openAt(options: Partial<OpenOptions> = {}): { db: Edgetable; clock: { ms: number } } {
  const clock = { ms: NOW_MS };
  return { db: temp.open({ now: () => clock.ms, durability: 'relaxed', ttlSweepIntervalMs: 0, ...options }), clock };
}

function readingsTable(db: Edgetable, extra: Record<string, unknown> = {}): void {
  db.createTable({
    ...tableRequest('Readings', ['sensor', 'S'], ['ts', 'N'], 2),
    AttributeDefinitions: [
      { AttributeName: 'sensor', AttributeType: 'S' },
      { AttributeName: 'ts', AttributeType: 'N' },
      { AttributeName: 'kind', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [{ IndexName: 'byKind', KeySchema: [{ AttributeName: 'kind', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
    ...extra,
  });
}

const reading = (sensor: string, ts: number, expires: number | string | undefined) => ({
  sensor: { S: sensor },
  ts: { N: String(ts) },
  kind: { S: 'temp' },
  ...(expires === undefined ? {} : typeof expires === 'number' ? { expires: { N: String(expires) } } : { expires: { S: expires } }),
});

const enable = (db: Edgetable, extra: Record<string, unknown> = {}) =>
  db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' }, ...extra });

describe('UpdateTimeToLive and DescribeTimeToLive', () => {
  it('have DynamoDB shapes and errors', () => {
    const { db } = openAt();
    readingsTable(db);
    expect(db.describeTimeToLive({ TableName: 'Readings' })).toEqual({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    expect(enable(db)).toEqual({ TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    expect(db.describeTimeToLive({ TableName: 'Readings' })).toEqual({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expires' } });
    expectError(() => enable(db), 'ValidationException', 'TimeToLive is already enabled');
    expectError(
      () => db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: { Enabled: true, AttributeName: 'other' } }),
      'ValidationException',
      'TimeToLive is active on a different AttributeName: current AttributeName is expires',
    );
    expect(db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' } })).toEqual({
      TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' },
    });
    expectError(
      () => db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' } }),
      'ValidationException',
      'TimeToLive is already disabled',
    );
    expectError(
      // @ts-expect-error TimeToLiveSpecification is required
      () => db.updateTimeToLive({ TableName: 'Readings' }),
      'ValidationException',
      "1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null",
    );
    expectError(
      // @ts-expect-error Enabled and AttributeName are required
      () => db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: {} }),
      'ValidationException',
      "2 validation errors detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null; Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null",
    );
    expectError(() => db.describeTimeToLive({ TableName: 'Nope' }), 'ResourceNotFoundException', 'Requested resource not found: Table: Nope not found');
  });

  it('are reachable by operation name (server, SDK)', () => {
    const { db } = openAt();
    readingsTable(db);
    db.execute('UpdateTimeToLive', { TableName: 'Readings', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    expect(db.execute('DescribeTimeToLive', { TableName: 'Readings' })).toEqual({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expires' } });
  });
});

describe('the sweeper', () => {
  it('deletes expired items with their index entries, keeps the rest, and logs TTL removes', () => {
    const { db } = openAt();
    readingsTable(db, { StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } });
    const keep = [reading('a', 1, NOW_S + 3600), reading('a', 2, undefined), reading('a', 3, 'not a number'), reading('b', 1, NOW_S - 10 * 365 * 86400)];
    const expire = [reading('a', 4, NOW_S - 1), reading('b', 2, NOW_S - 3600), reading('c', 1, NOW_S - 86400)];
    for (const item of [...keep, ...expire]) db.putItem({ TableName: 'Readings', Item: item });
    enable(db, { HideExpiredItems: false });
    expect(db.sweepExpired()).toBe(3);
    const sortItems = (items: Record<string, unknown>[]) => items.map((i) => JSON.stringify(i)).sort();
    expect(sortItems(scanAll(db, { TableName: 'Readings' }))).toEqual(sortItems(keep));
    expect(sortItems(scanAll(db, { TableName: 'Readings', IndexName: 'byKind' }))).toEqual(sortItems(keep));
    expect(db.verify('Readings').Differences).toBe(0);
    expect(db.describeTable({ TableName: 'Readings' }).Table).toMatchObject({ ItemCount: keep.length });

    const removes = db
      .listShards('Readings')
      .flatMap((s) => db.readShard('Readings', s.ShardId).Records)
      .filter((r) => r.eventName === 'REMOVE');
    expect(removes).toHaveLength(3);
    for (const r of removes) expect(r.userIdentity).toEqual({ Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' });
    expect(db.sweepExpired()).toBe(0);
  });

  it('consumes no write units', () => {
    const { db } = openAt();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('a', 1, NOW_S - 5) });
    enable(db);
    const before = db.partitionMetrics('Readings').reduce((n, p) => n + p.WriteUnitsLastMinute, 0);
    expect(db.sweepExpired()).toBe(1);
    expect(db.partitionMetrics('Readings').reduce((n, p) => n + p.WriteUnitsLastMinute, 0)).toBe(before);
  });

  it('works in bounded steps: each step scans and deletes at most its limits', () => {
    const { db } = openAt();
    readingsTable(db);
    for (let i = 0; i < 120; i++) db.putItem({ TableName: 'Readings', Item: reading(`s${i % 7}`, i, i % 2 === 0 ? NOW_S - 1 : NOW_S + 100) });
    enable(db);
    const sweeper = new TtlSweeper(db.store, db.context.catalog, db.context.now, { maxScanned: 10, maxDeletes: 4 });
    let steps = 0;
    let deleted = 0;
    for (;;) {
      const r = sweeper.step();
      expect(r.deleted).toBeLessThanOrEqual(4);
      deleted += r.deleted;
      steps++;
      if (r.done) break;
    }
    expect(deleted).toBe(60);
    expect(steps).toBeGreaterThanOrEqual(15);
    expect(scanAll(db, { TableName: 'Readings' })).toHaveLength(60);
  });

  it('items that expire later go in a later sweep', () => {
    const { db, clock } = openAt();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('a', 1, NOW_S + 30) });
    enable(db);
    expect(db.sweepExpired()).toBe(0);
    clock.ms += 31_000;
    expect(db.sweepExpired()).toBe(1);
  });

  it('runs on its own timer, unref-ed, within one interval', async () => {
    const { db } = openAt({ ttlSweepIntervalMs: 20 });
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('a', 1, NOW_S - 1) });
    enable(db);
    const deadline = Date.now() + 5000;
    // Hidden from reads at once; gone from the store (ItemCount) once the sweep ran.
    while ((db.describeTable({ TableName: 'Readings' }).Table as { ItemCount: number }).ItemCount !== 0) {
      if (Date.now() > deadline) throw new Error('the background sweep did not run');
      await new Promise((r) => setTimeout(r, 10));
    }
  });
});

describe('reads of expired items not yet swept', () => {
  it('are hidden by default from GetItem, BatchGetItem, Query, Scan and TransactGetItems', () => {
    const { db } = openAt();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('a', 1, NOW_S - 1) });
    db.putItem({ TableName: 'Readings', Item: reading('a', 2, NOW_S + 100) });
    enable(db);
    const key = { sensor: { S: 'a' }, ts: { N: '1' } };
    expect(db.getItem({ TableName: 'Readings', Key: key })).toEqual({});
    expect(db.batchGetItem({ RequestItems: { Readings: { Keys: [key] } } }).Responses).toEqual({ Readings: [] });
    const q = db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 'a' } } });
    expect({ Count: q.Count, ScannedCount: q.ScannedCount }).toEqual({ Count: 1, ScannedCount: 2 });
    expect(db.scan({ TableName: 'Readings' }).Count).toBe(1);
    expect(db.query({ TableName: 'Readings', IndexName: 'byKind', KeyConditionExpression: 'kind = :k', ExpressionAttributeValues: { ':k': { S: 'temp' } } }).Count).toBe(1);
    expect(db.transactGetItems({ TransactItems: [{ Get: { TableName: 'Readings', Key: key } }] }).Responses).toEqual([{}]);
  });

  it('are returned, as DynamoDB does, with HideExpiredItems false', () => {
    const { db } = openAt();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('a', 1, NOW_S - 1) });
    enable(db, { HideExpiredItems: false });
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 'a' }, ts: { N: '1' } } }).Item).toEqual(reading('a', 1, NOW_S - 1));
    expect(db.scan({ TableName: 'Readings' }).Count).toBe(1);
  });
});
