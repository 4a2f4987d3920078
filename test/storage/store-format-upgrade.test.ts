/**
 * Older stores under this build (src/storage/store-format.ts, src/table/attribute-names.ts,
 * src/table/text-records.ts): a format 1 store (every name inline, no marker, as every edgetable
 * before the name dictionary wrote it) and a format 2 store (names coded, records without text
 * trailers) read as they are in a read-only open; a writable open gives every record its text
 * trailer, raises the store to format 3 and marks it, after which reads take the text path. A
 * migration cut short resumes at the next open; any number of processes may open the store at
 * once. The fixtures are made programmatically: a store written through the engine, then
 * rewritten as the older builds left it (every name inline, no dictionary; records without
 * trailers; markers removed).
 */
import { makeTableFormat1 } from '../table/table-format-1.js';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeItem } from '../../src/codec/item-value.js';
import { encodeItemRecord, recordBody, recordItemSize } from '../../src/codec/item-record.js';
import type { Edgetable } from '../../src/edgetable.js';
import type { Database } from '../../src/storage/database.js';
import { STORE_FORMAT_KEY, TEXT_VALUES_KEY } from '../../src/storage/store-format.js';
import type { Store } from '../../src/storage/store.js';
import { stripTextTrailers } from './fixtures/legacy-records.js';
import { markerOf as rawMarker, setRawFormatMarker } from './fixtures/raw-format-marker.js';
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

function textMarkerOf(store: Store): string | undefined {
  const main = (store as unknown as { catalog: Database }).catalog;
  return store.read((txn) => hex(txn.getCopy(main, TEXT_VALUES_KEY)));
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
  makeTableFormat1(db, 'Readings'); // as builds of store format 3 created tables
  for (const Item of OLD) db.putItem({ TableName: 'Readings', Item });
  expect(markerOf(db.store)).toBe('00000004');
  expect(textMarkerOf(db.store)).toBe('01');
  const path = db.store.path;
  db.close();
  setRawFormatMarker(path, rawMarker(3)); // what those builds wrote
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

/** A closed format 1 store of OLD: no code, no dictionary, no trailer, no marker. */
function formatOneStore(): string {
  const path = storeWithCodes();
  const db = dbs.open({ ...OPTIONS, path });
  inlineEveryName(db);
  db.close();
  stripTextTrailers(path);
  setRawFormatMarker(path, undefined);
  return path;
}

/** A closed format 2 store of OLD: names coded, no trailer, no text-values marker. `keep` records per database keep their trailer. */
function formatTwoStore(keep = 0): string {
  const path = storeWithCodes();
  stripTextTrailers(path, keep);
  setRawFormatMarker(path, rawMarker(2));
  return path;
}

/** Per stored record of Readings (base, then GSI): 'x' with a text trailer, '-' without. */
function trailers(db: Edgetable): string {
  const table = db.context.catalog.require('Readings');
  const dbs = [...table.partitions.map((p) => p.db), ...table.globalIndexes.flatMap((g) => g.partitions.map((p) => p.db))];
  return db.store.read((txn) => dbs.flatMap((d) => [...txn.cursor(d)].map(({ value }) => ((value[0]! & 0x80) !== 0 ? 'x' : '-'))).join(''));
}

/** Every read the engine offers over OLD (plus `extra`), checked, and the indexes verified. */
function readsEverything(db: Edgetable, items: Record<string, unknown>[] = OLD): void {
  expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '2' } } }).Item).toEqual(OLD[1]);
  expect(db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 's1' } } }).Items).toEqual(items.filter((i) => (i.sensor as { S: string }).S === 's1'));
  expect(sorted(db.query({ TableName: 'Readings', IndexName: 'BySite', KeyConditionExpression: 'site = :s', ExpressionAttributeValues: { ':s': { S: 'site-1' } } }).Items!)).toEqual(sorted(items.filter((i) => (i.site as { S: string }).S === 'site-1')));
  expect(sorted(scanAll(db, { TableName: 'Readings' }))).toEqual(sorted(items));
  expect(db.verify('Readings').Differences).toBe(0);
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
  it('a format 1 store opens read-only as it is: every item reads, by key, query, index and scan, and nothing is written', () => {
    const db = dbs.open({ ...OPTIONS, path: formatOneStore(), readOnly: true });
    expect(db.store.format).toBe(1);
    expect(db.store.textReads).toBe(false);
    expect(nameKinds(db)).toEqual(['t', 't', 't']);
    expect(trailers(db)).toBe('------');
    readsEverything(db);
    expect(markerOf(db.store)).toBeUndefined();
  });

  it('a writable open of a format 1 store gives every record its trailer, raises it to format 3, marks it, and reads take the text path', () => {
    const db = dbs.open({ ...OPTIONS, path: formatOneStore() });
    expect(db.store.format).toBe(3);
    expect(markerOf(db.store)).toBe('00000003');
    expect(textMarkerOf(db.store)).toBe('01');
    expect(db.store.textReads).toBe(true);
    expect(trailers(db)).toBe('xxxxxx');
    expect(nameKinds(db)).toEqual(['t', 't', 't']); // the names stay as they were
    readsEverything(db);
    const next = reading('s3', 7, { status: 'new' });
    db.putItem({ TableName: 'Readings', Item: next });
    db.updateItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '1' } }, UpdateExpression: 'SET battery = :b', ExpressionAttributeValues: { ':b': { N: '3.7' } } });
    expect(nameKinds(db).sort()).toEqual(['c', 'c', 't', 't']);
    readsEverything(db, [{ ...OLD[0]!, battery: { N: '3.7' } }, OLD[1]!, OLD[2]!, next]);
  });

  it('a format 2 store reads in a read-only open and is migrated by a writable one; a migration cut short resumes', () => {
    const path = formatTwoStore(1); // the first record of each database already has its trailer
    const reader = dbs.open({ ...OPTIONS, path, readOnly: true });
    expect(reader.store.format).toBe(2);
    expect(trailers(reader)).toBe('x--x--');
    readsEverything(reader);
    reader.close();
    const db = dbs.open({ ...OPTIONS, path });
    expect(markerOf(db.store)).toBe('00000003');
    expect(trailers(db)).toBe('xxxxxx');
    expect(db.store.textReads).toBe(true);
    readsEverything(db);
  });

  it('a store given codes before the marker existed reads in a read-only open and is raised by a writable one', () => {
    const path = storeWithCodes();
    stripTextTrailers(path);
    setRawFormatMarker(path, undefined); // what the builds of 2026-11-30/12-01 left
    const reader = dbs.open({ ...OPTIONS, path, readOnly: true });
    expect(reader.store.format).toBe(1);
    expect(sorted(scanAll(reader, { TableName: 'Readings' }))).toEqual(sorted(OLD));
    reader.close();
    const db = dbs.open({ ...OPTIONS, path });
    expect(db.store.format).toBe(3);
    expect(markerOf(db.store)).toBe('00000003');
    readsEverything(db);
  });

  it('several processes opening such a store at once all open it, and it ends migrated at format 3', async () => {
    const path = formatTwoStore();
    const results = await Promise.all([1, 2, 3].map(() => run(process.execPath, ['--import', 'tsx', openScript, path], { timeout: 60_000 })));
    for (const { stdout } of results) expect(JSON.parse(stdout)).toEqual({ ok: true, format: 3, tables: ['Readings'] });
    const db = dbs.open({ ...OPTIONS, path });
    expect(markerOf(db.store)).toBe('00000003');
    expect(textMarkerOf(db.store)).toBe('01');
    expect(trailers(db)).toBe('xxxxxx');
    readsEverything(db);
  }, 90_000);
});
