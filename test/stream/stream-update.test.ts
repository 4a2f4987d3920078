import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

it('UpdateTable enables and disables a stream; records are written only while it is enabled', () => {
  const dir = mkdtempSync(join(tmpdir(), 'etb-stream-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = open({ path: dir });
  cleanups.push(() => db.close());
  db.createTable({ TableName: 'T1x', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
  db.putItem({ TableName: 'T1x', Item: { pk: { S: 'before' } } });
  expect(() => db.updateTable({ TableName: 'T1x', StreamSpecification: { StreamEnabled: true } })).toThrow('One or more parameter values were invalid: You must specify a StreamViewType when enabling a stream');
  const enabled = db.updateTable({ TableName: 'T1x', StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }) as { TableDescription: Record<string, unknown> };
  expect(enabled.TableDescription.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  expect(enabled.TableDescription.LatestStreamArn).toMatch(/^arn:aws:dynamodb:ddblocal:000000000000:table\/T1x\/stream\//);
  expect(() => db.updateTable({ TableName: 'T1x', StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' } })).toThrow('Table already has an enabled stream: TableName: T1x');
  db.putItem({ TableName: 'T1x', Item: { pk: { S: 'during' } } });
  db.updateTable({ TableName: 'T1x', StreamSpecification: { StreamEnabled: false } });
  db.putItem({ TableName: 'T1x', Item: { pk: { S: 'after' } } });
  const records = db.listShards('T1x').flatMap((s) => db.readShard('T1x', s.ShardId).Records);
  expect(records.map((r) => r.dynamodb.Keys)).toEqual([{ pk: { S: 'during' } }]);
});
