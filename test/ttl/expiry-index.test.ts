/**
 * The expiry index (issue 12.9): a TTL pass reads what expired, not the whole table; the index is
 * kept in the write txn (puts, updates, deletes), rebuilt after the TTL attribute changes, and
 * built for a store written before it existed (a fixture made by the previous engine).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expiryBound, expiryKey, expirySeconds, expiryValue, readExpiryKey } from '../../src/ttl/expiry-index.js';
import { compareBytes } from '../../src/codec/key-bytes.js';
import { scanAll, tableRequest, useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;
const here = dirname(fileURLToPath(import.meta.url));

function openAt(clock = { ms: NOW_MS }, path?: string) {
  return { db: temp.open({ now: () => clock.ms, durability: 'relaxed', ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0, ...(path ? { path } : {}) }), clock };
}

const item = (i: number, expires?: number | string) => ({
  pk: { S: `k${i}` },
  ...(expires === undefined ? {} : typeof expires === 'number' ? { expires: { N: String(expires) } } : { expires: { S: expires } }),
});

describe('expiry index keys', () => {
  it('order by expiry second, then item key; carry the item key back', () => {
    const a = expiryKey(100, new Uint8Array([9, 9]));
    const b = expiryKey(101, new Uint8Array([0]));
    expect(compareBytes(a, b)).toBeLessThan(0);
    expect(compareBytes(expiryBound(100), a)).toBeLessThan(0);
    expect(compareBytes(a, expiryBound(101))).toBeLessThan(0);
    expect(readExpiryKey(b, new Uint8Array(0))).toEqual({ seconds: 101, itemKey: new Uint8Array([0]) });
    // An item key too long to follow 8 bytes in a 511-byte LMDB key: a prefix and a digest, the key whole in the value.
    const long = new Uint8Array(2000).fill(7);
    const c = expiryKey(101, long);
    expect(c.length).toBe(511);
    expect(expiryKey(101, long)).toEqual(c);
    expect(compareBytes(c, expiryKey(101, new Uint8Array(2000).fill(7).fill(8, 1999)))).not.toBe(0);
    expect(readExpiryKey(c, expiryValue(long))).toEqual({ seconds: 101, itemKey: long });
    expect(expiryValue(new Uint8Array([0]))).toEqual(new Uint8Array(0));
    expect([expirySeconds({ N: '12.9' }), expirySeconds({ N: '-1' }), expirySeconds({ S: '5' }), expirySeconds(undefined)]).toEqual([12, undefined, undefined, undefined]);
  });
});

describe('a TTL pass with the expiry index', () => {
  it('expires items whose keys are as long as DynamoDB allows', () => {
    const { db, clock } = openAt();
    db.createTable(tableRequest('Long', ['pk', 'S'], ['sk', 'S']));
    db.updateTimeToLive({ TableName: 'Long', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    db.sweepExpired(); // builds the (empty) index
    const pk = { S: 'p'.repeat(2048) };
    const sks = ['\u0000'.repeat(1024), '\u0000'.repeat(1023) + 'a', 'short'];
    for (const [i, sk] of sks.entries()) db.putItem({ TableName: 'Long', Item: { pk, sk: { S: sk }, expires: { N: String(i === 2 ? NOW_S + 1_000_000 : NOW_S + 100) } } });
    clock.ms += 200_000;
    expect(db.sweepExpired()).toBe(2);
    expect(scanAll(db, { TableName: 'Long' }).map((i) => (i as { sk: { S: string } }).sk.S)).toEqual(['short']);
  });

  it('reads only what expired, however large the table', () => {
    const { db, clock } = openAt();
    db.createTable(tableRequest('Big', ['pk', 'S']));
    db.updateTimeToLive({ TableName: 'Big', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    for (let i = 0; i < 3000; i += 25) {
      db.batchWriteItem({ RequestItems: { Big: Array.from({ length: 25 }, (_, k) => ({ PutRequest: { Item: item(i + k, i + k < 40 ? NOW_S + 100 : NOW_S + 1_000_000) } })) } });
    }
    db.sweepExpired(); // the first pass on a table just enabled builds the index by walking it once
    const walked = db.sweepWork().itemsWalked;
    expect(walked).toBe(3000);

    clock.ms += 200_000; // 40 items have expired
    expect(db.sweepExpired()).toBe(40);
    expect(db.sweepWork().itemsWalked).toBe(walked);
    expect(db.sweepWork().indexEntriesRead).toBe(40);
    expect(scanAll(db, { TableName: 'Big' }).length).toBe(2960);
  });

  it('follows updates and deletes made in the write txn', () => {
    const { db, clock } = openAt();
    db.createTable(tableRequest('Tab', ['pk', 'S']));
    db.updateTimeToLive({ TableName: 'Tab', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    db.sweepExpired();
    db.putItem({ TableName: 'Tab', Item: item(1, NOW_S + 10) });
    db.putItem({ TableName: 'Tab', Item: item(2, NOW_S + 10) });
    db.putItem({ TableName: 'Tab', Item: item(3, NOW_S + 10) });
    db.updateItem({ TableName: 'Tab', Key: { pk: { S: 'k1' } }, UpdateExpression: 'SET expires = :e', ExpressionAttributeValues: { ':e': { N: String(NOW_S + 1_000) } } });
    db.updateItem({ TableName: 'Tab', Key: { pk: { S: 'k2' } }, UpdateExpression: 'REMOVE expires' });
    db.deleteItem({ TableName: 'Tab', Key: { pk: { S: 'k3' } } });
    db.putItem({ TableName: 'Tab', Item: item(4, NOW_S + 20) });
    clock.ms += 100_000;
    expect(db.sweepExpired()).toBe(1); // only k4: k1 moved later, k2 lost its TTL, k3 is gone
    expect(db.sweepWork().indexEntriesRead).toBe(1);
    expect(scanAll(db, { TableName: 'Tab' }).map((i) => (i.pk as { S: string }).S).sort()).toEqual(['k1', 'k2']);
  });

  it('is rebuilt when TTL moves to another attribute', () => {
    const { db, clock } = openAt();
    db.createTable(tableRequest('Tab', ['pk', 'S']));
    db.updateTimeToLive({ TableName: 'Tab', TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    db.putItem({ TableName: 'Tab', Item: { ...item(1, NOW_S + 10), other: { N: String(NOW_S + 1_000_000) } } });
    db.putItem({ TableName: 'Tab', Item: { ...item(2, NOW_S + 1_000_000), other: { N: String(NOW_S + 10) } } });
    db.sweepExpired();
    db.updateTimeToLive({ TableName: 'Tab', TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' } });
    expect(db.store.listDatabases('t/Tab/ttl')).toEqual([]);
    db.updateTimeToLive({ TableName: 'Tab', TimeToLiveSpecification: { Enabled: true, AttributeName: 'other' } });
    clock.ms += 100_000;
    expect(db.sweepExpired()).toBe(1); // the walk that rebuilds the index deletes k2
    expect(scanAll(db, { TableName: 'Tab' }).map((i) => (i.pk as { S: string }).S)).toEqual(['k1']);
    clock.ms += 2_000_000_000;
    expect(db.sweepExpired()).toBe(1); // from the index now
    expect(db.sweepWork().indexEntriesRead).toBe(1);
  });
});

describe('a store written before the expiry index', () => {
  it('is indexed by its first pass on open, then swept from the index', async () => {
    // fixtures/pre-expiry-index.data.mdb: written by the engine before this change (commit
    // 1f7c24e): table Readings, TTL on `expires` (HideExpiredItems false), 60 items: 20 expired at
    // NOW_MS, 20 expiring 1,000 s later, 20 without TTL.
    const dir = join(temp.dir(), 'db');
    mkdirSync(dir);
    copyFileSync(join(here, 'fixtures', 'pre-expiry-index.data.mdb'), join(dir, 'data.mdb'));
    const clock = { ms: NOW_MS };
    const db = temp.open({ path: dir, now: () => clock.ms, ttlSweepIntervalMs: 60_000, splitCheckIntervalMs: 0 });
    expect(db.context.catalog.require('Readings').def.TimeToLive?.indexed).toBeUndefined();
    // Opening kicks a pass that builds the index (and deletes what expired).
    const deadline = Date.now() + 20_000;
    while (!db.context.catalog.require('Readings').def.TimeToLive?.indexed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(db.context.catalog.require('Readings').def.TimeToLive?.indexed).toBe(true);
    expect(scanAll(db, { TableName: 'Readings' }).length).toBe(40);
    clock.ms += 2_000_000;
    const walked = db.sweepWork().itemsWalked;
    expect(db.sweepExpired()).toBe(20);
    expect(db.sweepWork().itemsWalked).toBe(walked);
    expect(db.sweepWork().indexEntriesRead).toBe(20);
    expect(scanAll(db, { TableName: 'Readings' }).length).toBe(20);
  });
});
