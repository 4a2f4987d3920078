/**
 * A process killed in the middle of a partition split (issue 12.4) leaves a consistent store: the
 * parent still serves every item, and the next open resumes the split to its end, with every
 * acknowledged write present, indexes equal to their recomputation, item counts right, and the
 * change log's shard lineage (the parent closed, the children naming it) in place.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CreateTableInput } from '../../src/api/table-operations.js';
import { open } from '../../src/edgetable.js';
import { forkWorker } from './harness/bundle-worker.js';
import { scanAll, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();
const worker = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'split-crash-worker.ts');

const TABLE = {
  TableName: 'Readings',
  KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
  AttributeDefinitions: [
    { AttributeName: 'sensor', AttributeType: 'S' },
    { AttributeName: 'ts', AttributeType: 'N' },
    { AttributeName: 'level', AttributeType: 'N' },
  ],
  BillingMode: 'PAY_PER_REQUEST',
  PartitionCount: 1,
  StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  LocalSecondaryIndexes: [
    { IndexName: 'ByLevel', KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'level', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
  ],
} satisfies CreateTableInput;

const keysOf = (items: Record<string, unknown>[]) => new Set(items.map((i) => `${(i.sensor as { S: string }).S}/${(i.ts as { N: string }).N}`));

describe('a crash in the middle of a split', () => {
  it('leaves the parent serving, and the next open resumes the split to a consistent end', async () => {
    const path = join(dbs.dir(), 'db');
    const setup = open({ path, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0, durability: 'relaxed' });
    setup.createTable(TABLE);
    const expected = new Set<string>();
    for (let i = 0; i < 6000; i += 25) {
      const items = Array.from({ length: 25 }, (_, k) => ({ sensor: { S: `s${(i + k) % 300}` }, ts: { N: String(i + k) }, level: { N: String((i + k) % 5) } }));
      setup.batchWriteItem({ RequestItems: { Readings: items.map((Item) => ({ PutRequest: { Item } })) } });
      for (const it of items) expected.add(`${it.sensor.S}/${it.ts.N}`);
    }
    setup.close();

    const child = forkWorker(worker, [path]);
    await new Promise<void>((resolve, reject) => {
      child.proc.on('message', (m: { t: string; key?: string }) => {
        if (m.t === 'ack') expected.add(m.key!);
        if (m.t === 'mid') setTimeout(() => child.proc.kill('SIGKILL'), 30);
      });
      child.exited.then((code) => (code === null ? resolve() : reject(new Error(`worker exited ${code}: ${child.output()}`))));
    });

    const db = dbs.open({ path, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
    // Before the resumed split runs (it starts on the next turn), the parent serves everything.
    const before = db.describeTable({ TableName: 'Readings' }).Table as { Partitions: { PartitionId: number }[] };
    expect(before.Partitions.map((p) => p.PartitionId)).toEqual([0]);
    const early = keysOf(scanAll(db, { TableName: 'Readings' }));
    for (const k of expected) expect(early.has(k), k).toBe(true);

    await db.whenSplitsDone();
    const after = db.describeTable({ TableName: 'Readings' }).Table as { ItemCount: number; Partitions: { PartitionId: number; ParentPartitionId?: number; ItemCount: number }[] };
    expect(after.Partitions.map((p) => [p.PartitionId, p.ParentPartitionId])).toEqual([[1, 0], [2, 0]]);
    const stored = keysOf(scanAll(db, { TableName: 'Readings' }));
    for (const k of expected) expect(stored.has(k), k).toBe(true);
    expect(after.Partitions.reduce((s, p) => s + p.ItemCount, 0)).toBe(stored.size);
    expect(db.verify().Differences).toBe(0);
    expect(db.store.listDatabases('t/Readings/p/0')).toEqual([]);
    const shards = db.listShards('Readings');
    expect(shards.find((s) => s.ShardId === 0)!.Open).toBe(false);
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: 'late' }, ts: { N: '1' }, level: { N: '1' } } });
    const open_ = db.listShards('Readings').filter((s) => s.Open);
    expect(open_.length).toBeGreaterThan(0);
    for (const s of open_) expect(s.ParentShardId).toBe(0);
  }, 120_000);
});
