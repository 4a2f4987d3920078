import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { OutboxFullError } from '../../src/stream/outbox-full-error.js';
import { readShardHeader, writeSyncSettings, type SyncSettings } from '../../src/stream/shard-state.js';
import type { StreamViewType } from '../../src/api/table-operations.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempDb(): Edgetable {
  const dir = mkdtempSync(join(tmpdir(), 'etb-stream-'));
  const db = open({ path: dir });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  return db;
}

function createTable(db: Edgetable, name: string, view?: StreamViewType) {
  db.createTable({
    TableName: name,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
    ...(view ? { StreamSpecification: { StreamEnabled: true, StreamViewType: view } } : {}),
  });
}

function allRecords(db: Edgetable, table: string) {
  return db.listShards(table).flatMap((s) => db.readShard(table, s.ShardId, { limit: 100000 }).Records);
}

function syncTable(db: Edgetable, name: string, settings: SyncSettings) {
  const table = db.context.catalog.require(name);
  db.store.write((txn) => writeSyncSettings(txn, table.meta, settings));
}

describe('change log', () => {
  it('records INSERT, MODIFY and REMOVE with the images of NEW_AND_OLD_IMAGES, none for identical overwrites', () => {
    const db = tempDb();
    createTable(db, 'Things', 'NEW_AND_OLD_IMAGES');
    db.putItem({ TableName: 'Things', Item: { pk: { S: 'a' }, v: { N: '1' } } });
    db.putItem({ TableName: 'Things', Item: { v: { N: '1' }, pk: { S: 'a' } } }); // identical: no record
    db.updateItem({ TableName: 'Things', Key: { pk: { S: 'a' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { N: '2' } } });
    db.deleteItem({ TableName: 'Things', Key: { pk: { S: 'a' } } });
    db.deleteItem({ TableName: 'Things', Key: { pk: { S: 'a' } } }); // absent: no record
    const records = allRecords(db, 'Things');
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(records[0]!.dynamodb.NewImage).toEqual({ pk: { S: 'a' }, v: { N: '1' } });
    expect(records[0]!.dynamodb.OldImage).toBeUndefined();
    expect(records[1]!.dynamodb.OldImage).toEqual({ pk: { S: 'a' }, v: { N: '1' } });
    expect(records[1]!.dynamodb.NewImage).toEqual({ pk: { S: 'a' }, v: { N: '2' } });
    expect(records[2]!.dynamodb.Keys).toEqual({ pk: { S: 'a' } });
    expect(records[2]!.dynamodb.OldImage).toEqual({ pk: { S: 'a' }, v: { N: '2' } });
    expect(records.map((r) => Number(r.dynamodb.SequenceNumber))).toEqual([1, 2, 3]);
    expect(records[0]!.dynamodb.SizeBytes).toBeGreaterThan(0);
  });

  it('projects to KEYS_ONLY and writes nothing for tables without stream or sync', () => {
    const db = tempDb();
    createTable(db, 'Keys', 'KEYS_ONLY');
    createTable(db, 'Plain');
    db.putItem({ TableName: 'Keys', Item: { pk: { S: 'a' }, v: { N: '1' } } });
    db.putItem({ TableName: 'Plain', Item: { pk: { S: 'a' }, v: { N: '1' } } });
    const [r] = allRecords(db, 'Keys');
    expect(r!.dynamodb).toMatchObject({ Keys: { pk: { S: 'a' } }, StreamViewType: 'KEYS_ONLY' });
    expect(r!.dynamodb.NewImage).toBeUndefined();
    expect(db.listShards('Plain')).toEqual([]);
  });

  it('a failed condition or an aborted batch leaves no record; a batch writes one per item', () => {
    const db = tempDb();
    createTable(db, 'Things', 'NEW_IMAGE');
    db.putItem({ TableName: 'Things', Item: { pk: { S: 'a' } } });
    expect(() => db.putItem({ TableName: 'Things', Item: { pk: { S: 'a' } }, ConditionExpression: 'attribute_not_exists(pk)' })).toThrow();
    db.batchWriteItem({ RequestItems: { Things: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { pk: { S: `b${i}` } } } })) } });
    expect(allRecords(db, 'Things')).toHaveLength(26);
  });

  it('a synced table without a stream logs new images; HLCs increase within a shard', () => {
    const db = tempDb();
    createTable(db, 'Synced');
    syncTable(db, 'Synced', { outboxBudgetBytes: 0, whenFull: 'reject', retentionMs: 0 });
    for (let i = 0; i < 50; i++) db.putItem({ TableName: 'Synced', Item: { pk: { S: 'k' }, n: { N: String(i) } } });
    const records = allRecords(db, 'Synced');
    expect(records).toHaveLength(50);
    expect(records[49]!.dynamodb.NewImage).toEqual({ pk: { S: 'k' }, n: { N: '49' } });
    const table = db.context.catalog.require('Synced');
    const header = db.store.read((txn) => readShardHeader(txn, table.meta, records[0]!.eventID.split('-').map(Number)[0]!))!;
    expect(header.nextSeq).toBe(51);
    expect(header.pendingBytes).toBeGreaterThan(0);
  });

  it("whenFull 'reject' refuses the write with OutboxFullError and applies nothing", () => {
    const db = tempDb();
    createTable(db, 'Full');
    syncTable(db, 'Full', { outboxBudgetBytes: 2000, whenFull: 'reject', retentionMs: 0 });
    let written = 0;
    let error: unknown;
    for (let i = 0; i < 200 && !error; i++) {
      try {
        db.putItem({ TableName: 'Full', Item: { pk: { S: 'same' }, n: { N: String(i) } } });
        written += 1;
      } catch (err) {
        error = err;
      }
    }
    expect(error).toBeInstanceOf(OutboxFullError);
    expect((error as Error).message).toMatch(/Sync outbox full: table Full shard \d+ holds \d+ unacknowledged bytes, over its budget of 2000 bytes/);
    expect(db.getItem({ TableName: 'Full', Key: { pk: { S: 'same' } } }).Item).toEqual({ pk: { S: 'same' }, n: { N: String(written - 1) } });
    expect(allRecords(db, 'Full')).toHaveLength(written);
  });

  it("whenFull 'drop-oldest' keeps the shard under budget with one gap record covering what it dropped", () => {
    const db = tempDb();
    createTable(db, 'Drop');
    syncTable(db, 'Drop', { outboxBudgetBytes: 3000, whenFull: 'drop-oldest', retentionMs: 0 });
    for (let i = 0; i < 300; i++) db.putItem({ TableName: 'Drop', Item: { pk: { S: 'same' }, n: { N: String(i) } } });
    const records = allRecords(db, 'Drop');
    expect(records[0]!.eventName).toBe('GAP');
    const gap = records[0]!.gap!;
    expect(gap.firstSeq).toBe(1);
    expect(gap.lastSeq).toBe(Number(records[0]!.dynamodb.SequenceNumber));
    expect(gap.records + records.length - 1).toBe(300);
    expect(records.slice(1).every((r) => r.eventName !== 'GAP')).toBe(true);
    expect(records[records.length - 1]!.dynamodb.NewImage).toEqual({ pk: { S: 'same' }, n: { N: '299' } });
  });
});
