/**
 * Table formats (table/table-definition.ts) and their key layouts (codec/item-key.ts): CreateTable
 * makes table format 2, whose keys put the partition key before its hash, and raises the store
 * format to 4; a table of table format 1 (hash-first keys, created by an earlier build) keeps its
 * layout and works the same: items, local and global indexes, Query, Scan with paging and
 * parallel segments, a partition split, TTL and verify.
 */
import { describe, expect, it } from 'vitest';
import { useTempDbs } from '../ops/temp-db.js';
import { makeTableFormat1 } from './table-format-1.js';
import type { CreateTableInput } from '../../src/api/table-operations.js';
import type { Edgetable } from '../../src/edgetable.js';
import { keyHash } from '../../src/codec/item-key.js';
import { partitionHash } from '../../src/codec/partition-hash.js';
import { compareBytes } from '../../src/codec/key-bytes.js';
import { Catalog } from '../../src/table/catalog.js';
import { PARTITION_KEY_FIRST_STORE_FORMAT } from '../../src/storage/store-format.js';

const dbs = useTempDbs();

const TABLE = {
  TableName: 'Readings',
  KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
  AttributeDefinitions: [
    { AttributeName: 'sensor', AttributeType: 'S' },
    { AttributeName: 'ts', AttributeType: 'N' },
    { AttributeName: 'level', AttributeType: 'N' },
    { AttributeName: 'site', AttributeType: 'S' },
  ],
  BillingMode: 'PAY_PER_REQUEST',
  PartitionCount: 2,
  LocalSecondaryIndexes: [
    { IndexName: 'ByLevel', KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'level', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
  ],
  GlobalSecondaryIndexes: [
    { IndexName: 'BySite', KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
  ],
} satisfies CreateTableInput;

const SENSORS = 40;
const PER_SENSOR = 10;

function storedKeys(db: Edgetable, dbName: string): Uint8Array[] {
  return db.store.read((txn) => [...txn.cursor(db.store.database(dbName))].map((e) => Uint8Array.from(e.key)));
}

type Page = { Items: Record<string, { S?: string; N?: string }>[]; LastEvaluatedKey?: Record<string, unknown> };

function scanAll(db: Edgetable, extra: Record<string, unknown>): string[] {
  const keys: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = db.execute('Scan', { TableName: 'Readings', Limit: 7, ...extra, ...(start ? { ExclusiveStartKey: start } : {}) }) as unknown as Page;
    for (const item of page.Items) keys.push(`${item.sensor!.S}/${item.ts!.N}`);
    start = page.LastEvaluatedKey;
  } while (start);
  return keys;
}

function fill(db: Edgetable): void {
  for (let i = 0; i < SENSORS * PER_SENSOR; i++) {
    const sensor = `sensor-${String(i % SENSORS).padStart(4, '0')}`;
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: sensor }, ts: { N: String(i) }, level: { N: String(i % 7) }, site: { S: `site-${i % 3}` }, expires: { N: i % 50 === 0 ? '1999999900' : '4000000000' } } });
  }
}

describe('CreateTable', () => {
  it('makes table format 2 and raises the store format to 4 in the same txn', () => {
    const path = `${dbs.dir()}/db`;
    const db = dbs.open({ path });
    expect(db.store.format).toBeLessThan(PARTITION_KEY_FIRST_STORE_FORMAT);
    db.createTable(TABLE);
    expect(db.store.format).toBe(PARTITION_KEY_FIRST_STORE_FORMAT);
    expect(new Catalog(db.store).find('Readings')!.def.formatVersion).toBe(2);
    db.close();
    expect(dbs.open({ path }).store.format).toBe(PARTITION_KEY_FIRST_STORE_FORMAT);
  });

  it('stores a partition\'s items in partition-key order, each partition key\'s items by sort key', () => {
    const db = dbs.open();
    db.createTable({ ...TABLE, PartitionCount: 1 });
    fill(db);
    const keys = storedKeys(db, 't/Readings/p/0');
    expect(keys.length).toBe(SENSORS * PER_SENSOR);
    const sensors = keys.map((k) => new TextDecoder().decode(k.subarray(1, 1 + 'sensor-0000'.length)));
    const firstSeen = [...new Set(sensors)];
    expect(firstSeen).toEqual([...firstSeen].sort());
    expect(firstSeen.length).toBe(SENSORS);
    for (const k of keys) expect(keyHash(k, 'partition-key-first', 'S')).toBe(partitionHash({ S: new TextDecoder().decode(k.subarray(1, 12)) }));
  });
});

describe.each([1, 2])('a table of table format %i', (format) => {
  // Items with `expires` 1,999,999,900 expire when the clock passes it (the split test moves it).
  const clock = { ms: 1_999_999_000_000 };
  function openFilled(options: Parameters<typeof dbs.open>[0] = {}): Edgetable {
    clock.ms = 1_999_999_000_000;
    const db = dbs.open({ splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0, now: () => clock.ms, ...options });
    db.createTable(TABLE);
    if (format === 1) makeTableFormat1(db, 'Readings');
    db.updateTimeToLive({ TableName: 'Readings', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    fill(db);
    return db;
  }

  it(`stores its keys ${format === 1 ? 'hash first' : 'partition key first'}`, () => {
    const db = openFilled();
    const layout = format === 1 ? 'hash-first' : 'partition-key-first';
    for (const id of [0, 1]) {
      const keys = storedKeys(db, `t/Readings/p/${id}`);
      const hashes = keys.map((k) => keyHash(k, layout, 'S'));
      const range = db.describeTable({ TableName: 'Readings' }).Table as unknown as { Partitions: { HashRangeStart: number; HashRangeEnd: number }[] };
      for (const h of hashes) expect(h >= range.Partitions[id]!.HashRangeStart && h <= range.Partitions[id]!.HashRangeEnd).toBe(true);
      const byHash = hashes.every((h, i) => i === 0 || hashes[i - 1]! <= h);
      if (format === 1) expect(byHash).toBe(true);
      else expect(keys.every((k, i) => i === 0 || compareBytes(keys[i - 1]!, k) < 0)).toBe(true);
    }
  });

  it('reads items back by key, by Query on the table and both indexes, and by Scan', () => {
    const db = openFilled();
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 'sensor-0003' }, ts: { N: '43' } } }).Item?.level).toEqual({ N: '1' });
    const q = db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s AND ts BETWEEN :a AND :b', ExpressionAttributeValues: { ':s': { S: 'sensor-0003' }, ':a': { N: '40' }, ':b': { N: '200' } } });
    expect(q.Items!.map((i) => i.ts!.N)).toEqual(['43', '83', '123', '163']);
    const lsi = db.query({ TableName: 'Readings', IndexName: 'ByLevel', KeyConditionExpression: 'sensor = :s AND #l = :l', ExpressionAttributeNames: { '#l': 'level' }, ExpressionAttributeValues: { ':s': { S: 'sensor-0003' }, ':l': { N: '3' } } });
    expect(lsi.Items!.map((i) => i.ts!.N)).toEqual(['3', '283']);
    const gsi = db.query({ TableName: 'Readings', IndexName: 'BySite', KeyConditionExpression: 'site = :s', ExpressionAttributeValues: { ':s': { S: 'site-1' } } });
    expect(gsi.Count).toBe(Math.ceil((SENSORS * PER_SENSOR - 1) / 3));
    const all = scanAll(db, {});
    expect(new Set(all).size).toBe(SENSORS * PER_SENSOR);
    expect(all.length).toBe(SENSORS * PER_SENSOR);
  });

  it.each([3, 4, 7])('%i parallel segments, paged, return the table exactly once, each its own hash range', (total) => {
    const db = openFilled();
    const seen: string[] = [];
    for (let segment = 0; segment < total; segment++) {
      for (const key of scanAll(db, { Segment: segment, TotalSegments: total })) {
        const hash = partitionHash({ S: key.split('/')[0]! });
        expect(Math.floor((hash * total) / 2 ** 32)).toBe(segment);
        seen.push(key);
      }
    }
    expect(seen.length).toBe(SENSORS * PER_SENSOR);
    expect(new Set(seen).size).toBe(SENSORS * PER_SENSOR);
    const lsiSeen = [0, 1, 2].flatMap((segment) => {
      const page = db.execute('Scan', { TableName: 'Readings', IndexName: 'ByLevel', Segment: segment, TotalSegments: 3 }) as unknown as Page;
      return page.Items.map((i) => `${i.sensor!.S}/${i.ts!.N}`);
    });
    expect(new Set(lsiSeen).size).toBe(SENSORS * PER_SENSOR);
    const gsiCount = [0, 1, 2].reduce((n, segment) => n + (db.execute('Scan', { TableName: 'Readings', IndexName: 'BySite', Segment: segment, TotalSegments: 3 }) as unknown as Page).Items.length, 0);
    expect(gsiCount).toBe(SENSORS * PER_SENSOR);
  });

  it('splits a partition, expires items by TTL and verifies clean', () => {
    const db = openFilled();
    const result = db.splitPartition('Readings', 0)!;
    expect(result.itemsMoved).toBeGreaterThan(0);
    expect(new Set(scanAll(db, {})).size).toBe(SENSORS * PER_SENSOR);
    expect(new Set([0, 1].flatMap((segment) => scanAll(db, { Segment: segment, TotalSegments: 2 }))).size).toBe(SENSORS * PER_SENSOR);
    const lsi = db.query({ TableName: 'Readings', IndexName: 'ByLevel', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 'sensor-0007' } } });
    expect(lsi.Count).toBe(PER_SENSOR);
    clock.ms = 2_000_000_000_000;
    expect(db.sweepExpired()).toBe(SENSORS * PER_SENSOR / 50);
    expect(scanAll(db, {}).length).toBe(SENSORS * PER_SENSOR - (SENSORS * PER_SENSOR) / 50);
    expect(db.verify().Differences).toBe(0);
  });
});
