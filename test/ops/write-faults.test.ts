/**
 * Storage faults during item writes (STYLE.md habit 10): an I/O error at any put or at the commit
 * of a PutItem, UpdateItem, DeleteItem, BatchWriteItem or CreateTable leaves nothing partial — no
 * item, no statistics change, no half-created table — and the engine keeps working afterwards.
 */
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { scanAll, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();

function setup(): { db: Edgetable; faults: FaultInjector } {
  const faults = new FaultInjector();
  const db = temp.open({ faults });
  db.createTable(tableRequest('Faulty', ['pk', 'S'], ['sk', 'N'], 3));
  for (let i = 0; i < 5; i++) db.putItem({ TableName: 'Faulty', Item: { pk: { S: `p${i % 2}` }, sk: { N: String(i) }, v: { N: String(i) } } });
  return { db, faults };
}

function state(db: Edgetable): unknown {
  const items = scanAll(db, { TableName: 'Faulty' }).map((i) => JSON.stringify(i)).sort();
  const { ItemCount, TableSizeBytes } = db.describeTable({ TableName: 'Faulty' }).Table;
  return { items, ItemCount, TableSizeBytes, tables: db.listTables().TableNames };
}

const writes: [string, (db: Edgetable) => unknown][] = [
  ['PutItem (new)', (db) => db.putItem({ TableName: 'Faulty', Item: { pk: { S: 'new' }, sk: { N: '1' }, v: { S: 'x'.repeat(100) } } })],
  ['PutItem (replace)', (db) => db.putItem({ TableName: 'Faulty', Item: { pk: { S: 'p0' }, sk: { N: '0' }, v: { S: 'changed' } } })],
  ['UpdateItem', (db) => db.updateItem({ TableName: 'Faulty', Key: { pk: { S: 'p1' }, sk: { N: '1' } }, UpdateExpression: 'ADD v :one', ExpressionAttributeValues: { ':one': { N: '1' } } })],
  ['DeleteItem', (db) => db.deleteItem({ TableName: 'Faulty', Key: { pk: { S: 'p0' }, sk: { N: '2' } } })],
  [
    'BatchWriteItem',
    (db) =>
      db.batchWriteItem({
        RequestItems: {
          Faulty: [
            ...Array.from({ length: 20 }, (_, i) => ({ PutRequest: { Item: { pk: { S: `b${i}` }, sk: { N: '0' } } } })),
            { DeleteRequest: { Key: { pk: { S: 'p1' }, sk: { N: '3' } } } },
          ],
        },
      }),
  ],
  ['CreateTable', (db) => db.createTable(tableRequest('Second', ['id', 'S'], undefined, 4))],
];

describe('a storage fault during a write leaves nothing partial', () => {
  it.each(writes)('%s: failing each put in turn, then the commit', (name, write) => {
    // Count the puts the write makes on a scratch engine, then fail each one on a fresh engine.
    const probe = setup();
    const before = probe.faults.puts;
    write(probe.db);
    const puts = probe.faults.puts - before;
    // A DeleteItem only deletes (partition statistics are derived, table/partition-stats.ts).
    if (name === 'DeleteItem') expect(puts).toBe(0);
    else expect(puts).toBeGreaterThan(0);

    for (let n = 1; n <= puts + 1; n++) {
      const { db, faults } = setup();
      const expected = state(db);
      if (n <= puts) faults.failPutAt = faults.puts + n;
      else faults.failCommitAt = faults.commits + 1;
      expect(() => write(db)).toThrow(expect.objectContaining({ name: 'StorageError', code: 'IO' }));
      expect(state(db)).toEqual(expected);
      // The engine still works: the same write now succeeds.
      write(db);
      expect(state(db)).not.toEqual(expected);
    }
  });
});

describe('DeleteTable interrupted by a fault', () => {
  it('either keeps the whole table or loses it whole; a table created again under the name starts empty', () => {
    const probe = setup();
    const commits = probe.faults.commits;
    probe.db.deleteTable({ TableName: 'Faulty' });
    const deleteCommits = probe.faults.commits - commits;
    expect(deleteCommits).toBeGreaterThan(0);

    for (let n = 1; n <= deleteCommits; n++) {
      const { db, faults } = setup();
      const expected = state(db);
      faults.failCommitAt = faults.commits + n;
      expect(() => db.deleteTable({ TableName: 'Faulty' })).toThrow(expect.objectContaining({ code: 'IO' }));
      if (n === 1) {
        expect(state(db)).toEqual(expected); // the catalog entry is removed by the first commit
        continue;
      }
      expect(db.listTables().TableNames).toEqual([]);
      db.createTable(tableRequest('Faulty', ['pk', 'S'], ['sk', 'N'], 3));
      expect(scanAll(db, { TableName: 'Faulty' })).toEqual([]);
      expect(db.describeTable({ TableName: 'Faulty' }).Table.ItemCount).toBe(0);
    }
  });
});
