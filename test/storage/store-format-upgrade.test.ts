/**
 * Older stores under this build (src/storage/store-format.ts, src/table/attribute-names.ts):
 * a format 1 store (every name inline, no marker, as every edgetable before the name dictionary
 * wrote it) opens and reads as it is, with no migration; the txn that gives a table its first
 * dictionary code raises the store to format 2, and only if it commits; a store given codes by
 * the builds that wrote them without a marker is raised at open, by any number of processes
 * opening it at once. The format 1 fixtures are made programmatically: a store written through the
 * engine, then rewritten with every name inline and no dictionary or marker.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeItem } from '../../src/codec/item-value.js';
import { encodeItemRecord, recordBody, recordItemSize } from '../../src/codec/item-record.js';
import type { Edgetable } from '../../src/edgetable.js';
import type { Database } from '../../src/storage/database.js';
import { STORE_FORMAT_KEY } from '../../src/storage/store-format.js';
import type { Store } from '../../src/storage/store.js';
import { setRawFormatMarker } from './fixtures/raw-format-marker.js';
import { hex } from './temp-store.js';
import { scanAll, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();
const openScript = fileURLToPath(new URL('./fixtures/open-engine.ts', import.meta.url));
const run = promisify(execFile);
const OPTIONS = { splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 };

const reading = (sensor: string, ts: number, extra: Record<string, string> = {}) => ({
  sensor: { S: sensor },
  ts: { N: String(ts) },
  temperature: { N: '21.5' },
  site: { S: `site-${ts % 2}` },
  ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { S: v }])),
});
const OLD = [reading('s1', 1), reading('s1', 2, { note: 'x' }), reading('s2', 1)];

function markerOf(store: Store): string | undefined {
  const main = (store as unknown as { catalog: Database }).catalog;
  return store.read((txn) => hex(txn.getCopy(main, STORE_FORMAT_KEY)));
}

/** A closed store of OLD in table Readings (with a GSI on site), written through the engine: codes and marker. */
function storeWithCodes(): string {
  const db = dbs.open(OPTIONS);
  db.createTable({
    TableName: 'Readings',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensor', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }, { AttributeName: 'site', AttributeType: 'S' }],
    GlobalSecondaryIndexes: [{ IndexName: 'BySite', KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
  });
  for (const Item of OLD) db.putItem({ TableName: 'Readings', Item });
  expect(markerOf(db.store)).toBe('00000002');
  const path = db.store.path;
  db.close();
  return path;
}

/** Rewrites every base record with its names inline and drops each table's dictionary: what a format 1 build wrote. */
function inlineEveryName(db: Edgetable): void {
  for (const table of db.context.catalog.all()) {
    db.store.write((txn) => {
      for (const partition of table.partitions) {
        const records = [...txn.cursor(partition.db)].map(({ key, value }) => ({ key: Uint8Array.from(key), value: Uint8Array.from(value) }));
        for (const { key, value } of records) {
          txn.put(partition.db, key, encodeItemRecord(decodeItem(recordBody(value), 0, table.names), recordItemSize(value)));
        }
      }
      const dictionary = [...txn.cursor(table.meta, { start: Uint8Array.of(0x6e), end: Uint8Array.of(0x6f) })].map(({ key }) => Uint8Array.from(key));
      for (const key of dictionary) txn.delete(table.meta, key);
    });
  }
}

/** A closed format 1 store of OLD: no code, no dictionary, no marker. */
function formatOneStore(): string {
  const path = storeWithCodes();
  const db = dbs.open({ ...OPTIONS, path });
  inlineEveryName(db);
  db.close();
  setRawFormatMarker(path, undefined);
  return path;
}

/** Per stored record: 't' when every name is inline text (a decode without the dictionary works), 'c' when some are codes. */
function nameKinds(db: Edgetable): string[] {
  const table = db.context.catalog.require('Readings');
  const kind = (value: Uint8Array) => {
    try {
      decodeItem(recordBody(value));
      return 't';
    } catch {
      return 'c';
    }
  };
  return db.store.read((txn) => table.partitions.flatMap((p) => [...txn.cursor(p.db)].map(({ value }) => kind(value))));
}

const sorted = (items: unknown[]) => items.map((i) => JSON.stringify(i)).sort();

describe('older stores', () => {
  it('a format 1 store opens as it is (no migration): every item reads, by key, query, index and scan, and its indexes verify', () => {
    const db = dbs.open({ ...OPTIONS, path: formatOneStore() });
    expect(db.store.format).toBe(1);
    expect(markerOf(db.store)).toBeUndefined();
    expect(nameKinds(db)).toEqual(['t', 't', 't']);
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '2' } } }).Item).toEqual(OLD[1]);
    expect(db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 's1' } } }).Items).toEqual([OLD[0], OLD[1]]);
    expect(sorted(db.query({ TableName: 'Readings', IndexName: 'BySite', KeyConditionExpression: 'site = :s', ExpressionAttributeValues: { ':s': { S: 'site-1' } } }).Items!)).toEqual(sorted([OLD[0], OLD[2]]));
    expect(sorted(scanAll(db, { TableName: 'Readings' }))).toEqual(sorted(OLD));
    expect(db.verify('Readings').Differences).toBe(0);
    expect(markerOf(db.store)).toBeUndefined(); // reading wrote nothing
  });

  it('the first write of a coded name raises it to format 2 in that txn; old values keep reading; an aborted one leaves format 1', () => {
    const db = dbs.open({ ...OPTIONS, path: formatOneStore() });
    const next = reading('s3', 7, { status: 'new' });
    expect(() => db.store.writeGroup(() => {
      db.putItem({ TableName: 'Readings', Item: next });
      throw new Error('abort the group');
    })).toThrow('abort the group');
    expect(markerOf(db.store)).toBeUndefined();
    expect(db.store.format).toBe(1);
    db.updateItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '1' } }, UpdateExpression: 'SET battery = :b', ExpressionAttributeValues: { ':b': { N: '3.7' } } });
    expect(markerOf(db.store)).toBe('00000002');
    expect(db.store.format).toBe(2);
    db.putItem({ TableName: 'Readings', Item: next });
    expect(nameKinds(db).sort()).toEqual(['c', 'c', 't', 't']);
    expect(sorted(scanAll(db, { TableName: 'Readings' }))).toEqual(sorted([{ ...OLD[0], battery: { N: '3.7' } }, OLD[1], OLD[2], next]));
    expect(db.verify('Readings').Differences).toBe(0);
  });

  it('a store given codes before the marker existed reads in a read-only open and is raised to format 2 by a writable one', () => {
    const path = storeWithCodes();
    setRawFormatMarker(path, undefined); // what the builds of 2026-11-30/12-01 left
    const reader = dbs.open({ ...OPTIONS, path, readOnly: true });
    expect(reader.store.format).toBe(1);
    expect(sorted(scanAll(reader, { TableName: 'Readings' }))).toEqual(sorted(OLD));
    reader.close();
    const db = dbs.open({ ...OPTIONS, path });
    expect(db.store.format).toBe(2);
    expect(markerOf(db.store)).toBe('00000002');
  });

  it('several processes opening such a store at once all open it, and it ends at format 2', async () => {
    const path = storeWithCodes();
    setRawFormatMarker(path, undefined);
    const results = await Promise.all([1, 2, 3].map(() => run(process.execPath, ['--import', 'tsx', openScript, path], { timeout: 60_000 })));
    for (const { stdout } of results) expect(JSON.parse(stdout)).toEqual({ ok: true, format: 2, tables: ['Readings'] });
    const db = dbs.open({ ...OPTIONS, path });
    expect(markerOf(db.store)).toBe('00000002');
    expect(sorted(scanAll(db, { TableName: 'Readings' }))).toEqual(sorted(OLD));
  }, 90_000);
});
