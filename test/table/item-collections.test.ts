/**
 * Item collections of tables with LSIs (spec §4.6): the stored size equals the base items plus LSI
 * entries of one partition key; growth past the configured limit raises
 * ItemCollectionSizeLimitExceededException and writes nothing, shrinking writes still succeed, and
 * ReturnItemCollectionMetrics SIZE reports the whole-GB bucket. Tables without LSIs report nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { itemSize } from '../../src/model/item-size.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';
import { readCollectionBytes } from '../../src/table/item-collections.js';
import { expectError, tableRequest, useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();

const LIMIT = 4000;
type Wire = { pk: { S: string }; sk: { N: string }; body: { S: string }; at?: { S: string } };

function createTable(db: Edgetable): void {
  db.createTable({
    ...tableRequest('Coll', ['pk', 'S'], ['sk', 'N'], 2),
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'N' },
      { AttributeName: 'at', AttributeType: 'S' },
    ],
    LocalSecondaryIndexes: [{
      IndexName: 'ByAt',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'at', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['body'] },
    }],
  });
}

const item = (pk: string, sk: number, bodyBytes: number, at?: string): Wire => ({
  pk: { S: pk },
  sk: { N: String(sk) },
  body: { S: 'b'.repeat(bodyBytes) },
  ...(at ? { at: { S: at } } : {}),
});

/** Brute force: base items plus their LSI entries (keys + at + body), per partition key. */
function expectedBytes(items: Wire[]): number {
  let n = 0;
  for (const i of items) {
    n += itemSize(validateItem(i));
    if (i.at) n += itemSize(validateItem({ pk: i.pk, sk: i.sk, at: i.at, body: i.body }));
  }
  return n;
}

const storedBytes = (db: Edgetable, pk: string) =>
  db.store.read((txn) => readCollectionBytes(txn, db.context.catalog.require('Coll'), { S: pk }));

const METRICS = { ItemCollectionKey: { pk: { S: 'a' } }, SizeEstimateRangeGB: [0, 1] };

describe('item collections', () => {
  it('tracks the exact size, refuses growth past the limit and allows shrinking', () => {
    const db = temp.open({ itemCollectionLimitBytes: LIMIT });
    createTable(db);
    const written: Wire[] = [];
    let refused: Wire | undefined;
    for (let sk = 0; sk < 50 && !refused; sk++) {
      const next = item('a', sk, 300, sk % 2 === 0 ? `t${sk}` : undefined);
      try {
        const r = db.putItem({ TableName: 'Coll', Item: next, ReturnItemCollectionMetrics: 'SIZE' });
        expect(r.ItemCollectionMetrics).toEqual(METRICS);
        written.push(next);
        expect(storedBytes(db, 'a')).toBe(expectedBytes(written));
      } catch (e) {
        expect({ name: (e as Error).name, message: (e as Error).message }).toEqual({ name: 'ItemCollectionSizeLimitExceededException', message: 'Collection size exceeded.' });
        refused = next;
      }
    }
    expect(refused).toBeDefined();
    expect(expectedBytes([...written, refused!])).toBeGreaterThan(LIMIT);
    expect(expectedBytes(written)).toBeLessThanOrEqual(LIMIT);
    // The refused write left nothing: no item, no LSI entry, unchanged size.
    expect(db.getItem({ TableName: 'Coll', Key: { pk: refused!.pk, sk: refused!.sk } })).toEqual({});
    expect(db.verify('Coll').Differences).toBe(0);
    expect(storedBytes(db, 'a')).toBe(expectedBytes(written));
    // Growth through an update is refused too.
    expectError(
      () => db.updateItem({ TableName: 'Coll', Key: { pk: { S: 'a' }, sk: { N: '0' } }, UpdateExpression: 'SET extra = :x', ExpressionAttributeValues: { ':x': { S: 'x'.repeat(2000) } } }),
      'ItemCollectionSizeLimitExceededException',
      'Collection size exceeded.',
    );
    // Another partition key has its own collection.
    db.putItem({ TableName: 'Coll', Item: item('b', 0, 300, 'x') });

    // Shrinking writes succeed: a smaller overwrite, an update removing the LSI key, a delete.
    const smaller = item('a', 0, 10, 't0');
    const shrink = db.putItem({ TableName: 'Coll', Item: smaller, ReturnItemCollectionMetrics: 'SIZE' });
    expect(shrink.ItemCollectionMetrics).toEqual(METRICS);
    written[0] = smaller;
    const removed = db.updateItem({ TableName: 'Coll', Key: { pk: { S: 'a' }, sk: { N: '2' } }, UpdateExpression: 'REMOVE #at', ExpressionAttributeNames: { '#at': 'at' }, ReturnItemCollectionMetrics: 'SIZE' });
    expect(removed.ItemCollectionMetrics).toEqual(METRICS);
    const { at: _, ...withoutAt } = written[2]!;
    written[2] = withoutAt;
    expect(storedBytes(db, 'a')).toBe(expectedBytes(written));
    const deleted = db.deleteItem({ TableName: 'Coll', Key: { pk: { S: 'a' }, sk: { N: '1' } }, ReturnItemCollectionMetrics: 'SIZE' });
    expect(deleted.ItemCollectionMetrics).toEqual(METRICS);
    written.splice(1, 1);
    expect(storedBytes(db, 'a')).toBe(expectedBytes(written));
    // Room again: the refused item now fits.
    db.putItem({ TableName: 'Coll', Item: refused! });
    written.push(refused!);
    expect(storedBytes(db, 'a')).toBe(expectedBytes(written));
    // Deleting everything empties the collection record.
    for (const w of written) db.deleteItem({ TableName: 'Coll', Key: { pk: w.pk, sk: w.sk } });
    expect(storedBytes(db, 'a')).toBe(0);
    expect(db.verify('Coll').Differences).toBe(0);
  });

  it('reports ItemCollectionMetrics from BatchWriteItem', () => {
    const db = temp.open({ itemCollectionLimitBytes: LIMIT });
    createTable(db);
    const batch = db.batchWriteItem({ RequestItems: { Coll: [{ PutRequest: { Item: item('a', 1, 10, 'x') } }] }, ReturnItemCollectionMetrics: 'SIZE' }) as Record<string, unknown>;
    expect(batch.ItemCollectionMetrics).toEqual({ Coll: [METRICS] });
  });

  it('reports ItemCollectionMetrics from TransactWriteItems', () => {
    const db = temp.open({ itemCollectionLimitBytes: LIMIT });
    createTable(db);
    const transact = db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Coll', Item: item('a', 2, 10, 'y') } }], ReturnItemCollectionMetrics: 'SIZE' }) as Record<string, unknown>;
    expect(transact.ItemCollectionMetrics).toEqual({ Coll: [METRICS] });
  });

  it('returns no ItemCollectionMetrics for a table without LSIs, and enforces no limit there', () => {
    const db = temp.open({ itemCollectionLimitBytes: 100 });
    db.createTable(tableRequest('Plain', ['pk', 'S'], ['sk', 'N']));
    const put = db.putItem({ TableName: 'Plain', Item: item('a', 1, 1000), ReturnItemCollectionMetrics: 'SIZE' });
    expect(put).not.toHaveProperty('ItemCollectionMetrics');
    const update = db.updateItem({ TableName: 'Plain', Key: { pk: { S: 'a' }, sk: { N: '1' } }, UpdateExpression: 'SET c = :c', ExpressionAttributeValues: { ':c': { N: '1' } }, ReturnItemCollectionMetrics: 'SIZE' });
    expect(update).not.toHaveProperty('ItemCollectionMetrics');
    const del = db.deleteItem({ TableName: 'Plain', Key: { pk: { S: 'a' }, sk: { N: '1' } }, ReturnItemCollectionMetrics: 'SIZE' });
    expect(del).not.toHaveProperty('ItemCollectionMetrics');
  });
});
