/**
 * The attribute-name dictionary of a table (src/table/attribute-names.ts): codes persist with the
 * values that use them, an aborted txn's codes vanish without confusing a later assignment by
 * another process, the dictionary is bounded, a re-created table starts afresh, and a store
 * written before the dictionary (every name inline) still reads and takes new writes.
 * "Another process" is a second AttributeNames over the same store: it has its own memory, as a
 * process does, and meets this one only through the store.
 */
import { makeTableFormat1 } from './table-format-1.js';
import { describe, expect, it } from 'vitest';
import { encodeItemRecord } from '../../src/codec/item-record.js';
import { encodeItemKey } from '../../src/codec/item-key.js';
import type { Item } from '../../src/model/attribute-value.js';
import { itemSize } from '../../src/model/item-size.js';
import { AttributeNames, MAX_CODED_NAMES } from '../../src/table/attribute-names.js';
import { Catalog } from '../../src/table/catalog.js';
import { WriteSession } from '../../src/table/write-session.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import type { Edgetable } from '../../src/edgetable.js';
import { scanAll, tableRequest, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();

function sensorTable(db: Edgetable): void {
  db.createTable(tableRequest('Readings', ['sensor', 'S'], ['ts', 'N']));
}

const reading = (sensor: string, ts: number, extra: Record<string, string> = {}) => ({
  sensor: { S: sensor },
  ts: { N: String(ts) },
  temperature: { N: '21.5' },
  humidity: { N: '40' },
  ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { S: v }])),
});

function tableOf(db: Edgetable) {
  return new Catalog(db.store).require('Readings');
}

/** The first top-level name of each stored record of the table, as its CBOR major type. */
function rawRecords(db: Edgetable): Uint8Array[] {
  const table = tableOf(db);
  return db.store.read((txn) => table.partitions.flatMap((p) => [...txn.cursor(p.db)].map((e) => Uint8Array.from(e.value))));
}

describe('attribute-name dictionary', () => {
  it('stores non-key names as codes, key names inline, and reads them back after a reopen', () => {
    const path = `${dbs.dir()}/db`;
    const db = dbs.open({ path });
    sensorTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    const [record] = rawRecords(db);
    // header(4) map(4) "sensor" ... : the first name is the partition key, written as text.
    expect(record![5]).toBe(0x66); // text of length 6: "sensor"
    expect(Buffer.from(record!).includes(Buffer.from('temperature'))).toBe(false);
    db.close();

    const again = dbs.open({ path });
    expect(again.getItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '1' } } }).Item).toEqual(reading('s1', 1));
    again.putItem({ TableName: 'Readings', Item: reading('s1', 2, { status: 'ok' }) });
    expect(scanAll(again, { TableName: 'Readings' })).toEqual([reading('s1', 1), reading('s1', 2, { status: 'ok' })]);
    expect(tableOf(again).names.size).toBe(3); // temperature, humidity, status
  });

  it('a code assigned in an aborted txn vanishes; another process may then give that code to another name', () => {
    const db = dbs.open();
    sensorTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    const table = tableOf(db);
    const other = new AttributeNames(db.store, table.meta, table.names.keyNames);

    // This process assigns the next code to "aborted" inside a txn that then fails.
    expect(() => db.store.write((txn) => {
      const codes = table.names.beginWrite(txn);
      expect(codes.codeOf('aborted')).toBe(2);
      throw new Error('the txn fails after the assignment');
    })).toThrow('the txn fails');
    // Another process gives code 2 to "voltage" and stores a value using it.
    const record = db.store.write((txn) => {
      const codes = other.beginWrite(txn);
      expect(codes.codeOf('voltage')).toBe(2);
      const item = { ...reading('s9', 9), voltage: { N: '3' } };
      const bytes = encodeItemRecord(item, itemSize(item), codes);
      const key = encodeItemKey(item, table.keySchema);
      txn.put(table.partitionOf(key.hash).db, table.storedKeyFor(txn, key), bytes);
      return item;
    });
    // This process reads it right, and its own next write gets a fresh code for "aborted".
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's9' }, ts: { N: '9' } } }).Item).toEqual(record);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 3, { aborted: 'no' }) });
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '3' } } }).Item).toEqual(reading('s1', 3, { aborted: 'no' }));
    db.store.read((txn) => {
      const codes = new AttributeNames(db.store, table.meta, table.names.keyNames);
      expect([0, 1, 2, 3].map((c) => codes.nameOf(c))).toEqual(['temperature', 'humidity', 'voltage', 'aborted']);
      void txn;
    });
  });

  it('a write session that uses another process\'s new code reads it from the store first', () => {
    const db = dbs.open();
    sensorTable(db);
    const table = tableOf(db);
    const other = new AttributeNames(db.store, table.meta, table.names.keyNames);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) }); // this process: codes 0, 1
    db.store.write((txn) => other.beginWrite(txn).codeOf('rssi')); // the other: code 2
    // This process's next write with "rssi" must reuse code 2, not assign a second one.
    db.putItem({ TableName: 'Readings', Item: reading('s1', 2, { rssi: '-70' }) });
    const fresh = new AttributeNames(db.store, table.meta, table.names.keyNames);
    expect(db.store.read(() => [fresh.nameOf(2), fresh.nameOf(3)])).toEqual(['rssi', undefined]);
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '2' } } }).Item).toEqual(reading('s1', 2, { rssi: '-70' }));
  });

  it('an asynchronous commit whose replay meets another commit re-runs and takes a fresh code', async () => {
    const faults = new FaultInjector();
    const db = dbs.open({ faults });
    sensorTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1) });
    const table = tableOf(db);
    const late = reading('s1', 2, { late: 'a' });
    const early = reading('s1', 3, { early: 'b' });
    // Recorded first (assigning "late" the next code), but before its replay another write commits
    // "early" with that same code, so the replay conflicts and the write re-runs.
    faults.betweenRecordAndReplay = () => {
      faults.betweenRecordAndReplay = undefined;
      db.putItem({ TableName: 'Readings', Item: early });
    };
    await db.store.writeAsync((txn) => {
      const session = new WriteSession(txn);
      const key = table.keyOf(late);
      const partition = table.partitionOf(key.hash);
      session.putItem(table, partition, key, late, itemSize(late), session.readState(table, partition, key));
      session.finish();
    });
    expect(db.store.asyncCommitStats).toMatchObject({ committed: 1, conflicts: 1 });
    expect(scanAll(db, { TableName: 'Readings' })).toEqual([reading('s1', 1), late, early]);
    const fresh = new AttributeNames(db.store, table.meta, table.names.keyNames);
    expect(db.store.read(() => [2, 3].map((c) => fresh.nameOf(c)))).toEqual(['early', 'late']);
  });

  it(`is bounded: past ${MAX_CODED_NAMES} codes (and for long names) names stay inline, and every item still reads`, () => {
    const db = dbs.open();
    sensorTable(db);
    const items: Item[] = [];
    for (let i = 0; i < 11; i++) {
      const extra: Record<string, string> = {};
      for (let k = 0; k < 100; k++) extra[`n${i * 100 + k}`] = 'v';
      extra['long'.repeat(20)] = 'long name';
      items.push(reading('s1', i, extra));
    }
    for (const Item of items) db.putItem({ TableName: 'Readings', Item });
    expect(tableOf(db).names.size).toBe(MAX_CODED_NAMES);
    expect(scanAll(db, { TableName: 'Readings' })).toEqual(items);
  });

  it('a re-created table starts a new dictionary', () => {
    const db = dbs.open();
    sensorTable(db);
    db.putItem({ TableName: 'Readings', Item: reading('s1', 1, { first: 'table' }) });
    db.deleteTable({ TableName: 'Readings' });
    sensorTable(db);
    const item = { sensor: { S: 's2' }, ts: { N: '1' }, other: { S: 'names' }, first: { S: 'again' } };
    db.putItem({ TableName: 'Readings', Item: item });
    expect(scanAll(db, { TableName: 'Readings' })).toEqual([item]);
    expect(tableOf(db).names.size).toBe(2);
  });

  it('a store written before the dictionary (names inline) reads, queries, updates and scans as before', () => {
    const db = dbs.open();
    sensorTable(db);
    makeTableFormat1(db, 'Readings'); // as tables were then
    const table = tableOf(db);
    const old = [reading('s1', 1, { status: 'a' }), reading('s1', 2), reading('s2', 1, { note: 'x' })];
    // Exactly the bytes the code before the dictionary wrote: encodeItemRecord without codes.
    db.store.write((txn) => {
      for (const item of old) {
        const key = encodeItemKey(item, table.keySchema);
        txn.put(table.partitionOf(key.hash).db, key.bytes, encodeItemRecord(item, itemSize(item)));
      }
    });
    expect(db.getItem({ TableName: 'Readings', Key: { sensor: { S: 's2' }, ts: { N: '1' } } }).Item).toEqual(old[2]);
    expect(db.query({ TableName: 'Readings', KeyConditionExpression: 'sensor = :s', ExpressionAttributeValues: { ':s': { S: 's1' } }, FilterExpression: 'attribute_exists(temperature)' }).Items).toEqual([old[0], old[1]]);
    db.updateItem({ TableName: 'Readings', Key: { sensor: { S: 's1' }, ts: { N: '2' } }, UpdateExpression: 'SET battery = :b', ExpressionAttributeValues: { ':b': { N: '3.7' } } });
    db.putItem({ TableName: 'Readings', Item: reading('s3', 1) });
    const all = scanAll(db, { TableName: 'Readings' });
    expect(all).toHaveLength(4);
    expect(all).toContainEqual({ ...old[1], battery: { N: '3.7' } });
    expect(all).toContainEqual(old[0]);
    expect(all).toContainEqual(reading('s3', 1));
  });
});
