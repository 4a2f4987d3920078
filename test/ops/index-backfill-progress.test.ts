import { describe, expect, it } from 'vitest';
import { tableRequest, useTempDbs } from './temp-db.js';

const dbs = useTempDbs();

type GsiDescription = { IndexStatus: string; Backfilling?: boolean; BackfillProgress?: { ItemsProcessed: number; ItemsTotal: number }; ItemCount: number };

describe('DescribeTable during a GSI backfill', () => {
  it('reports BackfillProgress while CREATING, and drops it once ACTIVE', async () => {
    const db = dbs.open({ durability: 'relaxed' });
    db.createTable(tableRequest('Prog', ['id', 'S']));
    for (let b = 0; b < 120; b++) {
      db.batchWriteItem({ RequestItems: { Prog: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { id: { S: `k${b * 25 + i}` }, c: { S: 'x' } } } })) } });
    }
    db.updateTable({
      TableName: 'Prog',
      AttributeDefinitions: [{ AttributeName: 'c', AttributeType: 'S' }],
      GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'ByC', KeySchema: [{ AttributeName: 'c', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } } }],
    });
    const gsi = () => (db.describeTable({ TableName: 'Prog' }).Table as { GlobalSecondaryIndexes: GsiDescription[] }).GlobalSecondaryIndexes[0]!;
    expect(gsi()).toMatchObject({ IndexStatus: 'CREATING', Backfilling: true, BackfillProgress: { ItemsProcessed: 0, ItemsTotal: 3000 } });
    await new Promise((r) => setImmediate(r));
    const during = gsi();
    expect(during.BackfillProgress!.ItemsProcessed).toBeGreaterThan(0);
    expect(during.BackfillProgress!.ItemsProcessed).toBeLessThan(3000);
    await db.whenIndexesActive();
    const after = gsi();
    expect(after).toMatchObject({ IndexStatus: 'ACTIVE', Backfilling: false, ItemCount: 3000 });
    expect(after.BackfillProgress).toBeUndefined();
  });
});
