import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { ensureStoreIdentity, peekStoreIdentity } from '../../src/stream/store-identity.js';
import { tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('store identity', () => {
  it('is created by the first open, kept across reopens, and new for a wiped folder', () => {
    const path = tempPath(cleanups, 'etb-identity-');
    const first = open({ path });
    const id = peekStoreIdentity(first.store);
    expect(id).toMatch(UUID);
    expect(ensureStoreIdentity(first.store)).toBe(id);
    first.close();
    const again = open({ path });
    expect(peekStoreIdentity(again.store)).toBe(id);
    again.close();
    const readOnly = open({ path, readOnly: true });
    expect(peekStoreIdentity(readOnly.store)).toBe(id);
    readOnly.close();
    rmSync(path, { recursive: true, force: true }); // re-flashed SD card
    const fresh = open({ path });
    expect(peekStoreIdentity(fresh.store)).toMatch(UUID);
    expect(peekStoreIdentity(fresh.store)).not.toBe(id);
    fresh.close();
  });

  it('a re-created table gets a new TableId, which DescribeTable reports', () => {
    const path = tempPath(cleanups, 'etb-identity-');
    const db = open({ path });
    cleanups.push(() => db.close());
    const create = () =>
      db.createTable({ TableName: 'Things', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    create();
    const before = db.describeTable({ TableName: 'Things' }).Table.TableId;
    expect(before).toMatch(UUID);
    db.deleteTable({ TableName: 'Things' });
    create();
    const after = db.describeTable({ TableName: 'Things' }).Table.TableId;
    expect(after).toMatch(UUID);
    expect(after).not.toBe(before);
  });
});
