/**
 * The stream of a deleted table stays readable, disabled, for the stream retention (24 hours)
 * after DeleteTable, as DynamoDB's does: ListStreams lists it, DescribeStream shows it DISABLED
 * with closed shards, GetShardIterator and GetRecords read what it held. A table created again
 * under the name gets a stream of its own beside it. Once the retention has passed since the
 * delete, the stream is gone.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const HOUR = 60 * 60 * 1000;
type Response = Record<string, any>;

function setup(): { db: Edgetable; clock: { ms: number }; arn: string; faults: FaultInjector } {
  const clock = { ms: Date.UTC(2026, 0, 1) };
  const faults = new FaultInjector();
  const db = temp.open({ now: () => clock.ms, durability: 'relaxed', streamTrimIntervalMs: 0, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0, faults });
  createTable(db);
  for (let i = 1; i <= 3; i++) db.putItem({ TableName: 'Tab', Item: { pk: { S: `k${i}` } } });
  const arn = db.describeTable({ TableName: 'Tab' }).Table.LatestStreamArn as string;
  return { db, clock, arn, faults };
}

function createTable(db: Edgetable): void {
  db.createTable({
    TableName: 'Tab',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
  });
}

const call = (db: Edgetable, operation: string, request: Record<string, unknown>) => db.execute(operation as 'ListStreams', request) as Response;

/** Every record of the stream's shards from TRIM_HORIZON: [keys, whether the shard ended]. */
function readAll(db: Edgetable, arn: string): { keys: string[]; ended: boolean[] } {
  const shards = call(db, 'DescribeStream', { StreamArn: arn }).StreamDescription.Shards as Response[];
  const keys: string[] = [];
  const ended: boolean[] = [];
  for (const shard of shards) {
    const it = call(db, 'GetShardIterator', { StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }).ShardIterator;
    const page = call(db, 'GetRecords', { ShardIterator: it });
    keys.push(...(page.Records as Response[]).map((r) => r.dynamodb.NewImage.pk.S as string));
    ended.push(page.NextShardIterator === undefined);
  }
  return { keys, ended };
}

describe('the stream of a deleted table', () => {
  it('is listed, DISABLED with closed shards, and reads every record it held', () => {
    const { db, clock, arn } = setup();
    clock.ms += HOUR;
    db.deleteTable({ TableName: 'Tab' });
    expect(call(db, 'ListStreams', {}).Streams).toEqual([{ StreamArn: arn, TableName: 'Tab', StreamLabel: arn.split('/stream/')[1] }]);
    expect(call(db, 'ListStreams', { TableName: 'Tab' }).Streams).toHaveLength(1);
    const description = call(db, 'DescribeStream', { StreamArn: arn }).StreamDescription;
    expect(description).toMatchObject({ StreamArn: arn, StreamStatus: 'DISABLED', StreamViewType: 'NEW_IMAGE', TableName: 'Tab', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] });
    for (const shard of description.Shards as Response[]) expect(shard.SequenceNumberRange.EndingSequenceNumber).toBeDefined();
    const read = readAll(db, arn);
    expect(read.keys.sort()).toEqual(['k1', 'k2', 'k3']);
    expect(read.ended.every(Boolean)).toBe(true);
  });

  it('is served beside the stream of a table created again under its name', () => {
    const { db, clock, arn } = setup();
    clock.ms += HOUR;
    db.deleteTable({ TableName: 'Tab' });
    clock.ms += HOUR;
    createTable(db);
    db.putItem({ TableName: 'Tab', Item: { pk: { S: 'new' } } });
    const fresh = db.describeTable({ TableName: 'Tab' }).Table.LatestStreamArn as string;
    expect(fresh).not.toBe(arn);
    expect((call(db, 'ListStreams', { TableName: 'Tab' }).Streams as Response[]).map((s) => s.StreamArn)).toEqual([fresh, arn]);
    expect(readAll(db, arn).keys.sort()).toEqual(['k1', 'k2', 'k3']);
    expect(readAll(db, fresh).keys).toEqual(['new']);
  });

  it('is gone once the retention has passed since the delete', () => {
    const { db, clock, arn } = setup();
    clock.ms += HOUR;
    db.deleteTable({ TableName: 'Tab' });
    clock.ms += 23 * HOUR;
    expect(db.trimStreams()).toBe(3); // the records are 24 hours old: trimmed, the stream still listed
    expect(call(db, 'ListStreams', {}).Streams).toHaveLength(1);
    expect(readAll(db, arn).keys).toEqual([]);
    clock.ms += HOUR;
    db.trimStreams();
    expect(call(db, 'ListStreams', {}).Streams).toEqual([]);
    expect(() => call(db, 'DescribeStream', { StreamArn: arn })).toThrow(`Requested resource not found: Stream: ${arn} not found`);
    expect(() => call(db, 'ListStreams', { TableName: 'Tab' })).toThrow('Requested resource not found: Table: Tab not found');
  });

  it('is kept across a reopen', () => {
    const clock = { ms: Date.UTC(2026, 0, 1) };
    const path = join(temp.dir(), 'db');
    const options = { path, now: () => clock.ms, durability: 'relaxed' as const, streamTrimIntervalMs: 0, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 };
    const db = temp.open(options);
    createTable(db);
    db.putItem({ TableName: 'Tab', Item: { pk: { S: 'kept' } } });
    const arn = db.describeTable({ TableName: 'Tab' }).Table.LatestStreamArn as string;
    db.deleteTable({ TableName: 'Tab' });
    db.close();
    const again = temp.open(options);
    expect(call(again, 'DescribeStream', { StreamArn: arn }).StreamDescription.StreamStatus).toBe('DISABLED');
    expect(readAll(again, arn).keys).toEqual(['kept']);
  });

  it('is moved in the delete\'s txn: a storage fault at any of its puts keeps the table and its stream whole', () => {
    const probe = setup();
    const before = probe.faults.puts;
    probe.db.deleteTable({ TableName: 'Tab' });
    const puts = probe.faults.puts - before;
    expect(puts).toBeGreaterThanOrEqual(4); // three records and the stream's entry
    for (let n = 1; n <= puts; n++) {
      const { db, faults, arn } = setup();
      faults.failPutAt = faults.puts + n;
      expect(() => db.deleteTable({ TableName: 'Tab' })).toThrow(expect.objectContaining({ name: 'StorageError', code: 'IO' }));
      expect(db.describeTable({ TableName: 'Tab' }).Table.LatestStreamArn).toBe(arn);
      expect(call(db, 'ListStreams', {}).Streams).toHaveLength(1);
      expect(call(db, 'DescribeStream', { StreamArn: arn }).StreamDescription.StreamStatus).toBe('ENABLED');
      expect(readAll(db, arn).keys.sort()).toEqual(['k1', 'k2', 'k3']);
    }
  });

  it('is not kept for a table that never had a stream', () => {
    const db = temp.open();
    db.createTable({ TableName: 'Plain', BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] });
    db.putItem({ TableName: 'Plain', Item: { pk: { S: 'a' } } });
    db.deleteTable({ TableName: 'Plain' });
    expect(call(db, 'ListStreams', {}).Streams).toEqual([]);
  });
});
