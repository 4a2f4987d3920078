import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { readShardHeader } from '../../src/stream/shard-state.js';
import { tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('shard header', () => {
  it('a partition split marks the parent shard closed; its children are open and name it', () => {
    const db = open({ path: tempPath(cleanups, 'etb-shard-'), splitCheckIntervalMs: 0 });
    cleanups.push(() => db.close());
    db.createTable({
      TableName: 'Things',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    });
    for (let i = 0; i < 50; i++) db.putItem({ TableName: 'Things', Item: { pk: { S: `k${i}` } } });
    const table = () => db.context.catalog.require('Things');
    const header = (shard: number) => db.store.read((txn) => readShardHeader(txn, table().meta, shard));
    expect(header(0)!.closed).toBe(false);
    const split = db.splitPartition('Things', 0)!;
    expect(header(0)!.closed).toBe(true);
    for (let i = 0; i < 50; i++) db.putItem({ TableName: 'Things', Item: { pk: { S: `k${i}` }, v: { N: '1' } } });
    for (const child of split.children) expect(header(child.id)).toMatchObject({ closed: false, parent: 0 });
    expect(db.listShards('Things').map((s) => [s.ShardId, s.Open])).toEqual([[0, false], [split.children[0].id, true], [split.children[1].id, true]]);
  });
});
