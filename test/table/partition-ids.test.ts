/**
 * The partition-id layout (table format 3, src/table/partition-ids.ts, codec/item-key.ts
 * placedKey): a table with a sort key stores each item under its partition key's dense id, handed
 * out in first-write order, so partition keys written together are neighbours on disk. What a
 * user sees does not change: every read, write, page and error is as with hash-first keys (the
 * rest of the suite runs on this layout); these are the layout's own promises: where items go,
 * what a key without an id reads, ids that a failed or recorded txn assigned, other processes'
 * ids, parallel scans, splits, long sort keys, TTL, a re-created table, and format 1 tables.
 * "Another process" is a second PartitionIds over the same store: its own memory, as a process has.
 */
import { describe, expect, it } from 'vitest';
import { HASH_BYTES, readHash } from '../../src/codec/item-key.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { MAX_CACHED_IDS, PartitionIds } from '../../src/table/partition-ids.js';
import { partitionIdsDb } from '../../src/partition/database-names.js';
import { STORE_FORMAT_VERSION } from '../../src/storage/store-format.js';
import type { Edgetable } from '../../src/edgetable.js';
import { makeTableFormat1 } from './table-format-1.js';
import { scanAll, tableRequest, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();

const reading = (sensor: string, ts: number, extra: Record<string, { S: string } | { N: string }> = {}) => ({ sensor: { S: sensor }, ts: { N: String(ts) }, t: { N: '21.5' }, ...extra });

function readingsTable(db: Edgetable, partitions = 1): void {
  db.createTable(tableRequest('Readings', ['sensor', 'S'], ['ts', 'N'], partitions));
}

function tableOf(db: Edgetable) {
  return db.context.catalog.require('Readings');
}

/** The ids at the head of the stored keys of the table's partitions, in stored order. */
function storedIds(db: Edgetable): number[] {
  const table = tableOf(db);
  return db.store.read((txn) => table.partitions.flatMap((p) => [...txn.cursor(p.db)].map((e) => readHash(e.key, 0))));
}

function query(db: Edgetable, sensor: string, extra: Record<string, unknown> = {}) {
  return db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: sensor } }, ...extra });
}

describe('the partition-id layout', () => {
  it('is the format of a new table with a sort key; a table keyed by partition key only keeps hash-first keys', () => {
    const db = dbs.open();
    readingsTable(db);
    db.createTable(tableRequest('Devices', ['id', 'S']));
    expect(tableOf(db).def.formatVersion).toBe(3);
    expect(tableOf(db).layout).toBe('partition-id');
    expect(db.context.catalog.require('Devices').def.formatVersion).toBe(1);
    expect(db.context.catalog.require('Devices').ids).toBeUndefined();
    // Builds that read store format 3 or lower would find none of its items: the store says 4.
    expect(db.store.format).toBe(STORE_FORMAT_VERSION);
    expect(db.store.format).toBe(4);
  });

  it('numbers partition keys in the order they are first written and stores each item under its id', () => {
    const db = dbs.open();
    readingsTable(db);
    for (const sensor of ['s3', 's1', 's2']) db.putItem({ TableName: 'Readings', Item: reading(sensor, 1) });
    db.putItem({ TableName: 'Readings', Item: reading('s1', 2) });
    db.batchWriteItem({ RequestItems: { Readings: ['s9', 's3', 's8'].map((s) => ({ PutRequest: { Item: reading(s, 5) } })) } });
    // s3 -> 0, s1 -> 1, s2 -> 2, then the batch's new keys in its order: s9 -> 3, s8 -> 4.
    expect(storedIds(db)).toEqual([0, 0, 1, 1, 2, 3, 4]);
    const table = tableOf(db);
    expect(db.store.read((txn) => table.ids!.count(txn))).toBe(5);
    // A stored key is the id and the sort key's encoding: 4 + 3 bytes for a small number.
    const keys = db.store.read((txn) => [...txn.cursor(table.partitions[0]!.db)].map((e) => e.key.length));
    expect(Math.max(...keys)).toBeLessThanOrEqual(HASH_BYTES + 4);
    // And every read finds them.
    expect(query(db, 's1').Items).toEqual([reading('s1', 1), reading('s1', 2)]);
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's8' }, ts: { N: '5' } } }).Item).toEqual(reading('s8', 5));
    expect(scanAll(db, { TableName: 'Readings' })).toHaveLength(7);
  });

  it('a partition key that was never written reads as absent from every read, charged as DynamoDB charges a miss', () => {
    const db = dbs.open();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    const key = { sensor: { S: 'nobody' }, ts: { N: '1' } };
    expect(db.getItem({ TableName: 'Readings', Key: key, ReturnConsumedCapacity: 'TOTAL' })).toEqual({ ConsumedCapacity: { TableName: 'Readings', CapacityUnits: 0.5 } });
    expect(query(db, 'nobody', { ReturnConsumedCapacity: 'TOTAL' })).toMatchObject({ Items: [], Count: 0, ScannedCount: 0, ConsumedCapacity: { CapacityUnits: 0.5 } });
    expect(query(db, 'nobody', { ExclusiveStartKey: key }).Items).toEqual([]);
    expect(db.batchGetItem({ RequestItems: { Readings: { Keys: [key] } } }).Responses).toEqual({ Readings: [] });
    expect(db.transactGetItems({ TransactItems: [{ Get: { TableName: 'Readings', Key: key } }] }).Responses).toEqual([{}]);
    expect(db.deleteItem({ TableName: 'Readings', Key: key, ReturnValues: 'ALL_OLD' })).toEqual({});
    expect(() => db.updateItem({ TableName: 'Readings', Key: key, UpdateExpression: 'SET a = :a', ConditionExpression: 'attribute_exists(sensor)', ExpressionAttributeValues: { ':a': { N: '1' } } })).toThrow('The conditional request failed');
    // Reads and refused writes hand out no id.
    const table = tableOf(db);
    expect(db.store.read((txn) => table.ids!.count(txn))).toBe(1);
  });

  it('an id assigned in a txn that fails is not kept, in the store or in memory', () => {
    const db = dbs.open();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    const table = tableOf(db);
    expect(() => db.store.write((txn) => {
      const key = table.keyOf(reading('ghost', 1));
      expect(table.storedKeyFor(txn, key)).toBeDefined();
      expect(table.ids!.idOf(txn, key.hash, key.bytes, HASH_BYTES, key.pkEnd!)).toBe(1);
      throw new Error('the txn fails after the assignment');
    })).toThrow('the txn fails');
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 'ghost' }, ts: { N: '1' } } }).Item).toBeUndefined();
    expect(db.store.read((txn) => table.ids!.count(txn))).toBe(1);
    // The next new partition key gets id 1, and its items are found under it.
    db.putItem({ TableName: 'Readings', Item: reading('s2', 1) });
    expect(storedIds(db)).toEqual([0, 1]);
    expect(query(db, 's2').Items).toEqual([reading('s2', 1)]);
  });

  it('ids another process assigned are read from the store, and this process never reuses them', () => {
    const db = dbs.open();
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    const table = tableOf(db);
    const other = new PartitionIds(table.ids!.db, table.def.TableId);
    db.store.write((txn) => {
      const key = table.keyOf(reading('s2', 1));
      expect(other.assign(txn, key.hash, key.bytes, HASH_BYTES, key.pkEnd!)).toBe(1);
    });
    // This process meets s2 for the first time: it reads s2's id and gives s3 the next one.
    db.putItem({ TableName: 'Readings', Item: reading('s2', 7) });
    db.putItem({ TableName: 'Readings', Item: reading('s3', 1) });
    expect(storedIds(db)).toEqual([0, 1, 2]);
    expect(query(db, 's2').Items).toEqual([reading('s2', 7)]);
  });

  it('a write group recorded for a replay keeps no id in memory until it commits; a replay that meets another commit assigns again', async () => {
    const faults = new FaultInjector();
    const db = dbs.open({ faults });
    readingsTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    // Between the recording (which gave 'late' id 1) and its replay, another write commits 'early'
    // with id 1: the replay conflicts and the writes re-run on the new state.
    faults.betweenRecordAndReplay = () => {
      faults.betweenRecordAndReplay = undefined;
      db.putItem({ TableName: 'Readings', Item: reading('early', 1) });
    };
    // Two writes of one group: the second reads the id the first assigned in the same txn.
    await Promise.all([db.promises.putItem({ TableName: 'Readings', Item: reading('late', 1) }), db.promises.putItem({ TableName: 'Readings', Item: reading('late', 2) })]);
    expect(db.store.asyncCommitStats.conflicts).toBeGreaterThanOrEqual(1);
    expect(query(db, 'late').Items).toEqual([reading('late', 1), reading('late', 2)]);
    expect(query(db, 'early').Items).toEqual([reading('early', 1)]);
    const table = tableOf(db);
    const ids = db.store.read((txn) => ['s1', 'early', 'late'].map((s) => {
      const key = table.keyOf(reading(s, 1));
      return table.ids!.idOf(txn, key.hash, key.bytes, HASH_BYTES, key.pkEnd!);
    }));
    expect(ids).toEqual([0, 1, 2]);
    expect(storedIds(db)).toEqual([0, 1, 2, 2]);
  });

  it(`holds at most ${MAX_CACHED_IDS} ids in memory, and reads the rest from the store`, () => {
    const db = dbs.open();
    readingsTable(db);
    const table = tableOf(db);
    const count = MAX_CACHED_IDS + 500;
    const keys = Array.from({ length: count }, (_, i) => table.keyOf(reading(`sensor-${i}`, 1)));
    db.store.write((txn) => keys.forEach((key, i) => expect(table.ids!.assign(txn, key.hash, key.bytes, HASH_BYTES, key.pkEnd!)).toBe(i)));
    const fresh = new PartitionIds(table.ids!.db, table.def.TableId);
    db.store.read((txn) => {
      for (const [i, key] of keys.entries()) expect(fresh.idOf(txn, key.hash, key.bytes, HASH_BYTES, key.pkEnd!)).toBe(i);
      for (const [i, key] of keys.entries()) expect(fresh.partitionKeyOf(txn, i)?.hash).toBe(key.hash);
    });
    expect(fresh.size).toBeLessThanOrEqual(MAX_CACHED_IDS);
    expect(fresh.size).toBeGreaterThan(0);
  });

  it('keeps every id across a reopen, and a re-created table starts again at 0', () => {
    const db = dbs.open();
    readingsTable(db);
    for (const s of ['a', 'b', 'c']) db.putItem({ TableName: 'Readings', Item: reading(s, 1) });
    const path = db.store.path;
    db.close();
    const again = dbs.open({ path });
    again.putItem({ TableName: 'Readings', Item: reading('b', 2) });
    again.putItem({ TableName: 'Readings', Item: reading('d', 1) });
    expect(storedIds(again)).toEqual([0, 1, 1, 2, 3]);
    again.deleteTable({ TableName: 'Readings' });
    expect(again.store.listDatabases('t/Readings/')).toEqual([]);
    readingsTable(again);
    again.putItem({ TableName: 'Readings', Item: reading('d', 5) });
    expect(storedIds(again)).toEqual([0]);
    expect(query(again, 'b').Items).toEqual([]);
    expect(query(again, 'd').Items).toEqual([reading('d', 5)]);
    expect(again.store.listDatabases('t/Readings/')).toContain(partitionIdsDb('Readings'));
  });

  it('a parallel scan returns every item exactly once across its segments, resuming from its pages', () => {
    const db = dbs.open();
    readingsTable(db, 2);
    const all: string[] = [];
    for (let i = 0; i < 60; i++) {
      db.putItem({ TableName: 'Readings', Item: reading(`s${i % 23}`, i) });
      all.push(`s${i % 23}/${i}`);
    }
    const seen: string[] = [];
    for (let segment = 0; segment < 5; segment++) {
      for (const item of scanAll(db, { TableName: 'Readings', Segment: segment, TotalSegments: 5, Limit: 4 })) seen.push(`${(item.sensor as { S: string }).S}/${(item.ts as { N: string }).N}`);
    }
    expect(seen.sort()).toEqual(all.sort());
    // A whole scan in pages of 7 also sees each item once, a partition key's items together in sort-key order.
    const paged = scanAll(db, { TableName: 'Readings', Limit: 7 }).map((item) => `${(item.sensor as { S: string }).S}/${(item.ts as { N: string }).N}`);
    expect([...paged].sort()).toEqual(all.sort());
    for (let i = 1; i < paged.length; i++) {
      const [a, b] = [paged[i - 1]!.split('/'), paged[i]!.split('/')];
      if (a[0] === b[0]) expect(Number(a[1])).toBeLessThan(Number(b[1]));
    }
  });

  it('a Scan from a made-up ExclusiveStartKey whose partition key has no id goes on with the next partition', () => {
    const db = dbs.open();
    readingsTable(db, 1);
    for (let i = 0; i < 5; i++) db.putItem({ TableName: 'Readings', Item: reading(`s${i}`, 1) });
    const page = db.scan({ TableName: 'Readings', ExclusiveStartKey: { sensor: { S: 'never-written' }, ts: { N: '1' } } });
    expect(page.Items).toEqual([]);
    expect(page.LastEvaluatedKey).toBeUndefined();
  });

  it('a split moves each partition key by its hash, and every read finds every item after it', () => {
    const db = dbs.open({ splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
    readingsTable(db, 1);
    for (let i = 0; i < 200; i++) db.putItem({ TableName: 'Readings', Item: reading(`s${i % 17}`, i) });
    db.splitPartition('Readings', 0);
    const table = tableOf(db);
    expect(table.partitions).toHaveLength(2);
    db.store.read((txn) => {
      for (const p of table.partitions) for (const e of txn.cursor(p.db)) {
        const hash = table.hashOfStored(txn, e.key);
        expect(hash >= p.range.start && hash < p.range.end).toBe(true);
      }
    });
    for (let s = 0; s < 17; s++) expect(query(db, `s${s}`, { Select: 'COUNT' }).Count).toBe(Math.ceil((200 - s) / 17));
    expect(scanAll(db, { TableName: 'Readings' })).toHaveLength(200);
    db.putItem({ TableName: 'Readings', Item: reading('new-after-split', 1) });
    expect(query(db, 'new-after-split').Items).toEqual([reading('new-after-split', 1)]);
  });

  it('sort keys long enough for overflow keys read, page, delete and expire as short ones do', () => {
    const db = dbs.open({ ttlSweepIntervalMs: 0 });
    db.createTable(tableRequest('Readings', ['sensor', 'S'], ['path', 'S']));
    db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: { Enabled: true, AttributeName: 'exp' } });
    // 1,000-character sort keys sharing their first 990: their stored keys are cut and digested.
    const sks = ['b', 'a', 'c', 'e', 'd'].map((c) => 'x'.repeat(990) + c.repeat(10));
    for (const [i, sk] of sks.entries()) {
      const exp = i === 1 ? Math.floor(Date.now() / 1000) - 10 : 4_000_000_000; // 'a' has expired
      db.putItem({ TableName: 'Readings', Item: { sensor: { S: 'p'.repeat(100) }, path: { S: sk }, n: { N: String(i) }, exp: { N: String(exp) } } });
    }
    const q = (extra: Record<string, unknown> = {}) => db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 'p'.repeat(100) } }, ...extra });
    const order = (items: unknown[] | undefined) => (items ?? []).map((item) => ((item as { path: { S: string } }).path.S.slice(-1)));
    expect(order(q().Items)).toEqual(['b', 'c', 'd', 'e']); // 'a' expired: hidden until swept
    expect(order(q({ ScanIndexForward: false, Limit: 2 }).Items)).toEqual(['e', 'd']);
    const first = q({ Limit: 3 });
    expect(order(first.Items)).toEqual(['b', 'c']);
    expect(order(q({ ExclusiveStartKey: first.LastEvaluatedKey }).Items)).toEqual(['d', 'e']);
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 'p'.repeat(100) }, path: { S: sks[3]! } } }).Item?.n).toEqual({ N: '3' });
    db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: 'p'.repeat(100) }, path: { S: sks[0]! } } });
    // The expiry index names the item by its full key; the sweep finds it under its stored key.
    expect(db.sweepExpired()).toBe(1);
    expect(order(q().Items)).toEqual(['c', 'd', 'e']);
  });

  it('a table of format 1 (created before format 3) keeps its hash-first keys and takes new writes as before', () => {
    const db = dbs.open();
    readingsTable(db);
    makeTableFormat1(db, 'Readings');
    for (const s of ['s3', 's1', 's2']) db.putItem({ TableName: 'Readings', Item: reading(s, 1) });
    const table = tableOf(db);
    expect(table.layout).toBe('hash-first');
    const heads = storedIds(db);
    const hashes = ['s3', 's1', 's2'].map((s) => table.keyOf(reading(s, 1)).hash).sort((a, b) => a - b);
    expect(heads).toEqual(hashes);
    expect(query(db, 's1').Items).toEqual([reading('s1', 1)]);
    expect(scanAll(db, { TableName: 'Readings', Segment: 0, TotalSegments: 2 }).length + scanAll(db, { TableName: 'Readings', Segment: 1, TotalSegments: 2 }).length).toBe(3);
  });
});
