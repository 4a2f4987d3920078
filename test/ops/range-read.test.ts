/**
 * Which requests read a page of items in one txn (Store.read's 'range-read', which the young
 * generation's floor waits for, src/young-generation.ts): Query (plain and general path) and Scan
 * do; GetItem, BatchGetItem and writes do not, so a process that only writes and gets keeps the
 * young generation it had at open.
 */
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import type { TxnKind } from '../../src/storage/store.js';
import { tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();

function kindsOf(run: (db: Edgetable) => void): TxnKind[] {
  const db = temp.open();
  db.createTable(tableRequest('Tab', ['pk', 'S'], ['sk', 'N']));
  db.putItem({ TableName: 'Tab', Item: { pk: { S: 'a' }, sk: { N: '1' }, v: { N: '5' } } });
  const kinds: TxnKind[] = [];
  const before = db.store.beforeTxn;
  db.store.beforeTxn = (kind) => {
    kinds.push(kind);
    before?.(kind);
  };
  run(db);
  return kinds;
}

describe("requests that read a page of items in a 'range-read' txn", () => {
  it('Query on the plain path and on the general path, and Scan', () => {
    expect(kindsOf((db) => db.query({ TableName: 'Tab', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } } }))).toContain('range-read');
    expect(
      kindsOf((db) => db.query({ TableName: 'Tab', KeyConditionExpression: 'pk = :p', FilterExpression: 'v > :z', ExpressionAttributeValues: { ':p': { S: 'a' }, ':z': { N: '0' } } })),
    ).toContain('range-read');
    expect(kindsOf((db) => db.scan({ TableName: 'Tab' }))).toContain('range-read');
  });

  it('not GetItem, BatchGetItem, PutItem or BatchWriteItem', () => {
    const key = { pk: { S: 'a' }, sk: { N: '1' } };
    const kinds = kindsOf((db) => {
      db.getItem({ TableName: 'Tab', Key: key });
      db.batchGetItem({ RequestItems: { Tab: { Keys: [key] } } });
      db.putItem({ TableName: 'Tab', Item: { pk: { S: 'b' }, sk: { N: '2' } } });
      db.batchWriteItem({ RequestItems: { Tab: [{ PutRequest: { Item: { pk: { S: 'c' }, sk: { N: '3' } } } }] } });
    });
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds).not.toContain('range-read');
  });
});

describe('the size of each page read, as EngineContext.pageRead is told it (the large-page floor of src/young-generation.ts)', () => {
  it('Query on both paths and Scan report their page\'s item bytes: a 1 MB page without a Limit, less with one', () => {
    const db = temp.open();
    db.createTable(tableRequest('Big', ['pk', 'S'], ['sk', 'N']));
    // 300 items of ~4 KB: 1.2 MB in one partition key, more than one 1 MB page.
    for (let i = 0; i < 300; i++) db.putItem({ TableName: 'Big', Item: { pk: { S: 'p' }, sk: { N: String(i) }, body: { S: 'x'.repeat(4000) } } });
    const sizes: number[] = [];
    const ctx = db.context as { pageRead?: (bytes: number) => void };
    const before = ctx.pageRead;
    ctx.pageRead = (bytes) => {
      sizes.push(bytes);
      before?.(bytes);
    };
    const key = { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } };
    db.query({ TableName: 'Big', ...key });
    db.query({ TableName: 'Big', ...key, FilterExpression: 'attribute_exists(body)' });
    db.scan({ TableName: 'Big' });
    db.scan({ TableName: 'Big', Limit: 10 });
    expect(sizes).toHaveLength(4);
    for (const full of sizes.slice(0, 3)) expect(full).toBeGreaterThanOrEqual(1024 * 1024 - 4100);
    expect(sizes[3]).toBeLessThan(50_000);
    expect(sizes[3]).toBeGreaterThan(40_000);
  });
});
