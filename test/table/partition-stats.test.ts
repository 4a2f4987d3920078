/**
 * Partition statistics are derived from the partition's database (src/table/partition-stats.ts):
 * exact after puts, overwrites, deletes and aborted txns, with no statistics record written per
 * commit; partitions past SIZE_SAMPLE_ENTRIES keep an exact count and an estimated size.
 */
import { describe, expect, it } from 'vitest';
import { encodeItemKey } from '../../src/codec/item-key.js';
import { encodeItemRecord } from '../../src/codec/item-record.js';
import { itemSize } from '../../src/model/item-size.js';
import { readPartitionStats, SIZE_SAMPLE_ENTRIES } from '../../src/table/partition-stats.js';
import { Catalog } from '../../src/table/catalog.js';
import type { Edgetable } from '../../src/edgetable.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();

const item = (pk: string, text: string) => ({ pk: { S: pk }, text: { S: text } });

function described(db: Edgetable) {
  const t = db.describeTable({ TableName: 'Tab' }).Table as { ItemCount: number; TableSizeBytes: number; Partitions: { ItemCount: number; SizeBytes: number }[] };
  return { ItemCount: t.ItemCount, TableSizeBytes: t.TableSizeBytes, partitions: t.Partitions.map((p) => [p.ItemCount, p.SizeBytes]) };
}

describe('partition statistics', () => {
  it('equal the stored items exactly after puts, overwrites, deletes and an aborted txn', () => {
    const db = dbs.open();
    db.createTable(tableRequest('Tab', ['pk', 'S'], undefined, 2));
    const live = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const it = item(`k${i % 40}`, 'x'.repeat(i));
      db.putItem({ TableName: 'Tab', Item: it });
      live.set(`k${i % 40}`, itemSize(it));
    }
    for (let i = 0; i < 40; i += 3) {
      db.deleteItem({ TableName: 'Tab', Key: { pk: { S: `k${i}` } } });
      live.delete(`k${i}`);
    }
    expect(() => db.transactWriteItems({ TransactItems: [
      { Put: { TableName: 'Tab', Item: item('new', 'never stored') } },
      { ConditionCheck: { TableName: 'Tab', Key: { pk: { S: 'k0' } }, ConditionExpression: 'attribute_exists(pk)' } },
    ] })).toThrow();
    const got = described(db);
    expect(got.ItemCount).toBe(live.size);
    expect(got.TableSizeBytes).toBe([...live.values()].reduce((a, b) => a + b, 0));
    expect(got.partitions.reduce((a, [n]) => a + n!, 0)).toBe(live.size);
  });

  it('writes no statistics record: a PutItem changes only its partition (and the name dictionary once)', () => {
    const db = dbs.open();
    db.createTable(tableRequest('Tab', ['pk', 'S']));
    db.putItem({ TableName: 'Tab', Item: item('a', 'first') }); // assigns the code of "text"
    const table = new Catalog(db.store).require('Tab');
    const metaBefore = db.store.read((txn) => [...txn.cursor(table.meta)].map((e) => `${Buffer.from(e.key).toString('hex')}=${Buffer.from(e.value).toString('hex')}`));
    for (let i = 0; i < 20; i++) db.putItem({ TableName: 'Tab', Item: item(`k${i}`, 'more') });
    const metaAfter = db.store.read((txn) => [...txn.cursor(table.meta)].map((e) => `${Buffer.from(e.key).toString('hex')}=${Buffer.from(e.value).toString('hex')}`));
    expect(metaAfter).toEqual(metaBefore);
    expect(described(db).ItemCount).toBe(21);
  });

  it(`past ${SIZE_SAMPLE_ENTRIES} items a partition keeps an exact count and a size estimated from a sample`, () => {
    const db = dbs.open();
    db.createTable(tableRequest('Tab', ['pk', 'S']));
    const table = new Catalog(db.store).require('Tab');
    const count = SIZE_SAMPLE_ENTRIES + 2_000;
    let bytes = 0;
    db.store.write((txn) => {
      for (let i = 0; i < count; i++) {
        const it = item(`k${i}`, 'v'.repeat(i % 50));
        bytes += itemSize(it);
        const key = encodeItemKey(it, table.keySchema);
        txn.put(table.partitions[0]!.db, key.bytes, encodeItemRecord(it, itemSize(it)));
      }
    });
    const stats = db.store.read((txn) => readPartitionStats(txn, table.partitions[0]!.db));
    expect(stats.itemCount).toBe(count);
    expect(Math.abs(stats.itemBytes - bytes) / bytes).toBeLessThan(0.02);
  });
});
