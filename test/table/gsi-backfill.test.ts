/**
 * Backfilling a GSI added by UpdateTable (spec §4.5): a 100,000-item table gets an index while
 * writes touching the index key keep arriving from a timer; the index is CREATING/Backfilling and
 * unreadable meanwhile, then ACTIVE, complete and equal to its recomputation. A close in the middle
 * resumes from the saved cursor; deleting the index drops its sub-databases; only one index
 * build runs per table at a time.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WriteRequest } from '../../src/api/item-operations.js';
import type { GlobalSecondaryIndex, UpdateTableInput } from '../../src/api/table-operations.js';
import type { Edgetable } from '../../src/edgetable.js';
import { globalIndexPrefix } from '../../src/partition/database-names.js';
import { expectError, scanAll, tableRequest, useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();

/** Fast fills: no fsync per batch, and no throughput ceiling in the way of a bulk load. */
const FAST = { durability: 'relaxed', partitionWriteUnits: 1e9, partitionReadUnits: 1e9 } as const;

function fill(db: Edgetable, table: string, count: number): void {
  for (let start = 0; start < count; start += 25) {
    const items: WriteRequest[] = [];
    for (let i = start; i < Math.min(count, start + 25); i++) {
      // Every third item lacks the future index's partition key (sparse).
      items.push({ PutRequest: { Item: { id: { S: `i${i}` }, n: { N: String(i % 97) }, ...(i % 3 === 0 ? {} : { cat: { S: `c${i % 40}` } }) } } });
    }
    let request: Record<string, WriteRequest[]> = { [table]: items };
    while (Object.keys(request).length > 0) request = db.batchWriteItem({ RequestItems: request }).UnprocessedItems;
  }
}

const createByCat = (IndexName = 'ByCat') => ({
  AttributeDefinitions: [{ AttributeName: 'cat', AttributeType: 'S' }, { AttributeName: 'n', AttributeType: 'N' }],
  GlobalSecondaryIndexUpdates: [{
    Create: {
      IndexName,
      KeySchema: [{ AttributeName: 'cat', KeyType: 'HASH' }, { AttributeName: 'n', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['note'] },
    },
  }],
}) satisfies Omit<UpdateTableInput, 'TableName'>;

function indexDescription(db: Edgetable, table: string, index: string): Record<string, unknown> | undefined {
  const gsis = (db.describeTable({ TableName: table }).Table as { GlobalSecondaryIndexes?: Record<string, unknown>[] }).GlobalSecondaryIndexes ?? [];
  return gsis.find((g) => g.IndexName === index);
}

/** Items of the table that belong in ByCat (both key attributes present). */
const bruteForceCount = (db: Edgetable, table: string) => scanAll(db, { TableName: table }).filter((i) => i['cat'] && i['n']).length;

const storedCount = (db: Edgetable, table: string, index: string) => db.verify(table).Indexes.find((i) => i.IndexName === index)?.Stored;

const queryCat = (db: Edgetable, table: string) => () => db.query({
  TableName: table,
  IndexName: 'ByCat',
  KeyConditionExpression: 'cat = :c',
  ExpressionAttributeValues: { ':c': { S: 'c1' } },
});

describe('GSI backfill', () => {
  it('fills a 100,000-item table while writes continue, then serves an index equal to its recomputation', async () => {
    const db = temp.open(FAST);
    db.createTable(tableRequest('Big', ['id', 'S'], undefined, 4));
    fill(db, 'Big', 100_000);

    const created = db.updateTable({ TableName: 'Big', ...createByCat() }).TableDescription as { GlobalSecondaryIndexes: Record<string, unknown>[] };
    expect(created.GlobalSecondaryIndexes[0]).toMatchObject({ IndexName: 'ByCat', IndexStatus: 'CREATING', Backfilling: true });
    expect(indexDescription(db, 'Big', 'ByCat')).toMatchObject({ IndexStatus: 'CREATING', Backfilling: true });
    expectError(queryCat(db, 'Big'), 'ValidationException', 'Cannot read from backfilling global secondary index: ByCat');
    expectError(() => db.scan({ TableName: 'Big', IndexName: 'ByCat' }), 'ValidationException', 'Cannot read from backfilling global secondary index: ByCat');

    // Writes from a timer, each touching the index key: new items, key changes, key removals, deletes.
    let writes = 0;
    let sawBackfillingRead = false;
    let step = 0;
    const timer = setInterval(() => {
      for (let k = 0; k < 5; k++) {
        const i = (step * 7919 + k * 104_729) % 120_000;
        const key = { id: { S: `i${i}` } };
        switch (step++ % 5) {
          case 0:
            db.putItem({ TableName: 'Big', Item: { ...key, cat: { S: `w${i % 7}` }, n: { N: String(i % 11) }, note: { S: 'put' } } });
            break;
          case 1:
            db.updateItem({ TableName: 'Big', Key: key, UpdateExpression: 'SET cat = :c, note = :w', ExpressionAttributeValues: { ':c': { S: `moved${i % 5}` }, ':w': { S: 'moved' } } });
            break;
          case 2:
            db.updateItem({ TableName: 'Big', Key: key, UpdateExpression: 'REMOVE cat' });
            break;
          case 3:
            db.deleteItem({ TableName: 'Big', Key: key });
            break;
          default:
            db.updateItem({ TableName: 'Big', Key: key, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: String(i % 13) } } });
        }
        writes++;
      }
      if (indexDescription(db, 'Big', 'ByCat')?.IndexStatus === 'CREATING') {
        try {
          queryCat(db, 'Big')();
        } catch (e) {
          sawBackfillingRead ||= (e as Error).message === 'Cannot read from backfilling global secondary index: ByCat';
        }
      }
    }, 1);
    try {
      await db.whenIndexesActive();
    } finally {
      clearInterval(timer);
    }

    expect(writes).toBeGreaterThan(0);
    expect(sawBackfillingRead).toBe(true);
    const active = indexDescription(db, 'Big', 'ByCat')!;
    expect(active.IndexStatus).toBe('ACTIVE');
    expect(active.Backfilling).not.toBe(true);

    const verification = db.verify('Big');
    expect(verification.Differences).toBe(0);
    const expected = bruteForceCount(db, 'Big');
    expect(expected).toBeGreaterThan(60_000);
    expect(storedCount(db, 'Big', 'ByCat')).toBe(expected);
    expect(active.ItemCount).toBe(expected);
    // Readable now, with the projection asked for.
    const c1 = queryCat(db, 'Big')();
    expect(c1.Count).toBeGreaterThan(0);
    for (const item of c1.Items!) expect(Object.keys(item).every((n) => ['id', 'cat', 'n', 'note'].includes(n))).toBe(true);
  }, 180_000); // 100,000 items with one flush per relaxed commit: ~20 s alone, over 60 s on a loaded CI box

  it('resumes after a close in the middle of the backfill and completes', async () => {
    const path = join(temp.dir(), 'db');
    const db = temp.open({ ...FAST, path });
    db.createTable(tableRequest('Mid', ['id', 'S'], undefined, 3));
    fill(db, 'Mid', 6_000);
    db.updateTable({ TableName: 'Mid', ...createByCat() });
    // One turn of the event loop runs one bounded batch.
    await new Promise((resolve) => setImmediate(resolve));
    const cursor = db.context.catalog.require('Mid').def.GlobalSecondaryIndexes[0]!.backfill;
    expect(cursor?.itemsProcessed).toBeGreaterThan(0);
    expect(cursor!.itemsProcessed).toBeLessThan(6_000);
    db.putItem({ TableName: 'Mid', Item: { id: { S: 'late' }, cat: { S: 'c1' }, n: { N: '1' } } });
    db.close();

    const reopened = temp.open({ ...FAST, path });
    expect(indexDescription(reopened, 'Mid', 'ByCat')).toMatchObject({ IndexStatus: 'CREATING', Backfilling: true });
    await reopened.whenIndexesActive();
    expect(indexDescription(reopened, 'Mid', 'ByCat')!.IndexStatus).toBe('ACTIVE');
    expect(reopened.verify('Mid').Differences).toBe(0);
    expect(storedCount(reopened, 'Mid', 'ByCat')).toBe(bruteForceCount(reopened, 'Mid'));
  });

  it('drops the sub-databases of a deleted GSI, during or after its backfill', async () => {
    const db = temp.open(FAST);
    db.createTable(tableRequest('Del', ['id', 'S'], undefined, 2));
    fill(db, 'Del', 3_000);
    db.updateTable({ TableName: 'Del', ...createByCat() });
    await db.whenIndexesActive();
    const prefix = globalIndexPrefix('Del', 'ByCat');
    expect(db.store.listDatabases(prefix).length).toBeGreaterThan(0);
    db.updateTable({ TableName: 'Del', GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'ByCat' } }] });
    expect(db.store.listDatabases(prefix)).toEqual([]);
    expect(indexDescription(db, 'Del', 'ByCat')).toBeUndefined();
    expectError(() => db.scan({ TableName: 'Del', IndexName: 'ByCat' }), 'ValidationException', 'The table does not have the specified index: ByCat');

    // Deleted while still backfilling: the backfill stops and nothing is left behind.
    db.updateTable({ TableName: 'Del', ...createByCat('Again') });
    db.updateTable({ TableName: 'Del', GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'Again' } }] });
    await db.whenIndexesActive();
    expect(db.store.listDatabases(globalIndexPrefix('Del', 'Again'))).toEqual([]);
    db.putItem({ TableName: 'Del', Item: { id: { S: 'after' }, cat: { S: 'c1' }, n: { N: '1' } } });
    expect(db.verify('Del').Differences).toBe(0);
    // DeleteTable takes every index database with it.
    db.updateTable({ TableName: 'Del', ...createByCat('Third') });
    await db.whenIndexesActive();
    db.deleteTable({ TableName: 'Del' });
    expect(db.store.listDatabases('t/Del/')).toEqual([]);
  });

  it('builds one online index per table at a time (LimitExceededException)', async () => {
    const db = temp.open(FAST);
    db.createTable(tableRequest('One', ['id', 'S'], undefined, 2));
    fill(db, 'One', 3_000);
    const message = 'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table';
    const second: GlobalSecondaryIndex = {
      IndexName: 'ByN',
      KeySchema: [{ AttributeName: 'n', KeyType: 'HASH' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    };
    expectError(
      () => db.updateTable({ TableName: 'One', ...createByCat(), GlobalSecondaryIndexUpdates: [...createByCat().GlobalSecondaryIndexUpdates, { Create: second }] }),
      'LimitExceededException',
      message,
    );
    db.updateTable({ TableName: 'One', ...createByCat() });
    expectError(
      () => db.updateTable({ TableName: 'One', AttributeDefinitions: [{ AttributeName: 'n', AttributeType: 'N' }], GlobalSecondaryIndexUpdates: [{ Create: second }] }),
      'LimitExceededException',
      message,
    );
    await db.whenIndexesActive();
    db.updateTable({ TableName: 'One', AttributeDefinitions: [{ AttributeName: 'n', AttributeType: 'N' }], GlobalSecondaryIndexUpdates: [{ Create: second }] });
    await db.whenIndexesActive();
    expect(db.verify('One').Differences).toBe(0);
  });
});
