import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTempDbs } from '../ops/temp-db.js';
import type { CreateTableInput } from '../../src/api/table-operations.js';

const dbs = useTempDbs();

const TABLE = {
  TableName: 'Readings',
  KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
  AttributeDefinitions: [
    { AttributeName: 'sensor', AttributeType: 'S' },
    { AttributeName: 'ts', AttributeType: 'N' },
    { AttributeName: 'level', AttributeType: 'N' },
  ],
  BillingMode: 'PAY_PER_REQUEST',
  PartitionCount: 2,
  StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  LocalSecondaryIndexes: [
    { IndexName: 'ByLevel', KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'level', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
  ],
} satisfies CreateTableInput;

function scanKeys(db: ReturnType<typeof dbs.open>): string[] {
  const keys: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = db.execute('Scan', { TableName: 'Readings', Limit: 7, ...(start ? { ExclusiveStartKey: start } : {}) }) as unknown as {
      Items: { sensor: { S: string }; ts: { N: string } }[];
      LastEvaluatedKey?: Record<string, unknown>;
    };
    for (const item of page.Items) keys.push(`${item.sensor.S}/${item.ts.N}`);
    start = page.LastEvaluatedKey;
  } while (start);
  return keys;
}

describe('partition split', () => {
  it('moves a partition into two children in one txn: items, LSI entries, stats and shard lineage', () => {
    const db = dbs.open({ splitCheckIntervalMs: 0 });
    db.createTable(TABLE);
    for (let i = 0; i < 400; i++) {
      db.putItem({ TableName: 'Readings', Item: { sensor: { S: `s${i % 40}` }, ts: { N: String(i) }, level: { N: String(i % 7) } } });
    }
    const before = db.describeTable({ TableName: 'Readings' }).Table as { Partitions: { PartitionId: number; ItemCount: number }[] };
    const result = db.splitPartition('Readings', 0)!;
    expect(result.parent).toBe(0);
    expect(result.children.map((c) => c.id)).toEqual([2, 3]);
    expect(result.itemsMoved).toBe(before.Partitions.find((p) => p.PartitionId === 0)!.ItemCount);

    const after = db.describeTable({ TableName: 'Readings' }).Table as {
      ItemCount: number;
      Partitions: { PartitionId: number; HashRangeStart: number; HashRangeEnd: number; ParentPartitionId?: number; ItemCount: number }[];
    };
    expect(after.ItemCount).toBe(400);
    expect(after.Partitions.map((p) => p.PartitionId)).toEqual([2, 3, 1]);
    expect(after.Partitions[0]!.ParentPartitionId).toBe(0);
    expect(after.Partitions[1]!.HashRangeStart).toBe(after.Partitions[0]!.HashRangeEnd + 1);
    expect(after.Partitions.reduce((n, p) => n + p.ItemCount, 0)).toBe(400);

    expect(new Set(scanKeys(db)).size).toBe(400);
    expect(db.verify().Differences).toBe(0);
    const lsi = db.query({ TableName: 'Readings', IndexName: 'ByLevel', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 's3' } } });
    expect(lsi.Count).toBe(10);
    expect(db.store.listDatabases('t/Readings/p/0')).toEqual([]);

    // New writes land in the children's shards; the parent's shard is closed.
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: 's1' }, ts: { N: '9999' }, level: { N: '1' } } });
    const shards = db.listShards('Readings');
    const parent = shards.find((s) => s.ShardId === 0)!;
    expect(parent.Open).toBe(false);
    const children = shards.filter((s) => s.ParentShardId === 0);
    expect(children.length).toBeGreaterThanOrEqual(1);
    for (const child of children) expect([2, 3]).toContain(child.ShardId);
  });

  it('splits partitions that pass the size threshold', () => {
    const db = dbs.open({ splitCheckIntervalMs: 0, splitThresholdBytes: 4000 });
    db.createTable({ ...TABLE, PartitionCount: 1 });
    for (let i = 0; i < 200; i++) db.putItem({ TableName: 'Readings', Item: { sensor: { S: `s${i}` }, ts: { N: '1' }, body: { S: 'x'.repeat(50) } } });
    let rounds = 0;
    while (db.checkPartitionSplits().length > 0) rounds++;
    const parts = (db.describeTable({ TableName: 'Readings' }).Table as { Partitions: { SizeBytes: number }[] }).Partitions;
    expect(rounds).toBeGreaterThan(0);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) expect(p.SizeBytes).toBeLessThanOrEqual(4000);
    expect(new Set(scanKeys(db)).size).toBe(200);
  });

  it('splits a partition that sustains more than the per-partition write ceiling for a minute (on-demand: when asked)', () => {
    const clock = { ms: 1_700_000_000_000 };
    const db = dbs.open({ splitCheckIntervalMs: 0, now: () => clock.ms, partitionWriteUnits: 5, partitionReadUnits: 5, heatSplitsOnDemand: true });
    db.createTable({ ...TABLE, PartitionCount: 1 });
    // 6 one-unit writes a second for 30 s: 3 units/s over the minute, under the ceiling of 5.
    for (let s = 0; s < 30; s++, clock.ms += 1000) {
      for (let i = 0; i < 6; i++) db.putItem({ TableName: 'Readings', Item: { sensor: { S: `s${s}-${i}` }, ts: { N: '1' } } });
    }
    expect(db.checkPartitionSplits()).toEqual([]);
    // 30 s more at 10 a second: 8 units/s over the minute, above the ceiling.
    for (let s = 0; s < 30; s++, clock.ms += 1000) {
      for (let i = 0; i < 10; i++) db.putItem({ TableName: 'Readings', Item: { sensor: { S: `t${s}-${i}` }, ts: { N: '1' } } });
    }
    const splits = db.checkPartitionSplits();
    expect(splits.map((x) => x.parent)).toEqual([0]);
    expect(new Set(scanKeys(db)).size).toBe(480);
  });

  it('interleaved with writes and reads, every item is seen exactly once (model check)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('put' as const), sensor: fc.integer({ min: 0, max: 30 }), ts: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant('delete' as const), sensor: fc.integer({ min: 0, max: 30 }), ts: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant('split' as const), pick: fc.nat() }),
          ),
          { minLength: 1, maxLength: 120 },
        ),
        (ops) => {
          const db = dbs.open({ splitCheckIntervalMs: 0 });
          db.createTable({ ...TABLE, PartitionCount: 1 });
          const model = new Set<string>();
          for (const o of ops) {
            if (o.op === 'split') {
              const parts = (db.describeTable({ TableName: 'Readings' }).Table as { Partitions: { PartitionId: number }[] }).Partitions;
              db.splitPartition('Readings', parts[o.pick % parts.length]!.PartitionId);
              continue;
            }
            const key = { sensor: { S: `s${o.sensor}` }, ts: { N: String(o.ts) } };
            if (o.op === 'put') {
              db.putItem({ TableName: 'Readings', Item: { ...key, level: { N: String(o.ts % 3) } } });
              model.add(`s${o.sensor}/${o.ts}`);
            } else {
              db.deleteItem({ TableName: 'Readings', Key: key });
              model.delete(`s${o.sensor}/${o.ts}`);
            }
          }
          const seen = scanKeys(db);
          expect(seen.length).toBe(new Set(seen).size);
          expect(new Set(seen)).toEqual(model);
          for (const k of model) {
            const [sensor, ts] = k.split('/') as [string, string];
            expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: sensor }, ts: { N: ts } } }).Item).toBeDefined();
          }
          expect(db.verify().Differences).toBe(0);
          db.close();
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('bounded split', () => {
  it('copies a large partition in bounded steps while requests go on: no request waits long, no write is lost', async () => {
    const db = dbs.open({ splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0, durability: 'relaxed' });
    db.createTable({ ...TABLE, PartitionCount: 1 });
    const ITEMS = 40_000;
    for (let i = 0; i < ITEMS; i += 25) {
      db.batchWriteItem({
        RequestItems: {
          Readings: Array.from({ length: 25 }, (_, k) => ({ PutRequest: { Item: { sensor: { S: `s${(i + k) % 4000}` }, ts: { N: String(i + k) }, level: { N: String((i + k) % 7) }, body: { S: 'x'.repeat(40) } } } })),
        },
      });
    }
    const model = new Set<string>(Array.from({ length: ITEMS }, (_, i) => `s${i % 4000}/${i}`));
    expect(db.startSplit('Readings', 0)).toBe(true);
    let splitting = true;
    const done = db.whenSplitsDone().then(() => (splitting = false));
    const latencies: number[] = [];
    let n = 0;
    while (splitting) {
      const t0 = performance.now();
      await new Promise<void>((r) => setImmediate(r));
      const i = ITEMS + n++;
      db.putItem({ TableName: 'Readings', Item: { sensor: { S: `s${i % 4000}` }, ts: { N: String(i) }, level: { N: '1' } } });
      model.add(`s${i % 4000}/${i}`);
      const victim = n * 7;
      db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: `s${victim % 4000}` }, ts: { N: String(victim) } } });
      model.delete(`s${victim % 4000}/${victim}`);
      db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '1' } } });
      latencies.push(performance.now() - t0);
    }
    await done;
    latencies.sort((a, b) => a - b);
    const max = latencies[latencies.length - 1]!;
    console.log(`split of ${ITEMS} items: ${latencies.length} request rounds during it, latency p50 ${latencies[latencies.length >> 1]!.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    expect(latencies.length).toBeGreaterThan(5);
    expect(max).toBeLessThan(500);

    const parts = (db.describeTable({ TableName: 'Readings' }).Table as { ItemCount: number; Partitions: { PartitionId: number; ParentPartitionId?: number; ItemCount: number }[] });
    expect(parts.Partitions.map((p) => [p.PartitionId, p.ParentPartitionId])).toEqual([[1, 0], [2, 0]]);
    expect(parts.Partitions.reduce((s, p) => s + p.ItemCount, 0)).toBe(model.size);
    expect(new Set(scanKeys(db))).toEqual(model);
    expect(db.verify().Differences).toBe(0);
    expect(db.store.listDatabases('t/Readings/p/0')).toEqual([]);
    expect(db.listShards('Readings').find((s) => s.ShardId === 0)!.Open).toBe(false);
  }, 120_000);
});
