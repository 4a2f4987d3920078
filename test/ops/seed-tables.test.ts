/**
 * The seeds' tables end to end: Students (studentid N), Articles (ArticleId N + Part N) and
 * Employees (Department S + empId N), written, read back, then closed and reopened from the same
 * folder with everything still there.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { itemSize } from '../../src/model/item-size.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';
import { tableRequest, useTempDbs } from './temp-db.js';
import type { Item } from '../../src/api/shapes.js';

const temp = useTempDbs();

const students: Item[] = [
  { studentid: { N: '1' }, name: { S: 'Ada' }, grade: { N: '12' } },
  { studentid: { N: '2' }, name: { S: 'Grace' }, grade: { N: '11' }, clubs: { SS: ['chess', 'robotics'] } },
  { studentid: { N: '3' }, name: { S: 'Linus' }, grade: { N: '10' }, scores: { L: [{ N: '98.5' }, { N: '87' }] } },
];
const articles = [
  { ArticleId: { N: '101' }, Part: { N: '3' }, body: { S: 'conclusion' } },
  { ArticleId: { N: '101' }, Part: { N: '1' }, body: { S: 'introduction' } },
  { ArticleId: { N: '102' }, Part: { N: '1' }, body: { S: 'another article' } },
  { ArticleId: { N: '101' }, Part: { N: '2' }, body: { S: 'method' } },
];
const employees: Item[] = [
  { Department: { S: 'Engineering' }, empId: { N: '20' }, name: { S: 'Bo' } },
  { Department: { S: 'Engineering' }, empId: { N: '3' }, name: { S: 'Al' } },
  { Department: { S: 'Sales' }, empId: { N: '7' }, name: { S: 'Cy' }, manager: { M: { empId: { N: '3' } } } },
  { Department: { S: 'Engineering' }, empId: { N: '100' }, name: { S: 'Di' } },
];

function seed(db: Edgetable): void {
  db.createTable(tableRequest('Students', ['studentid', 'N'], undefined, 4));
  db.createTable(tableRequest('Articles', ['ArticleId', 'N'], ['Part', 'N']));
  db.createTable(tableRequest('Employees', ['Department', 'S'], ['empId', 'N'], 3));
  for (const item of students) db.putItem({ TableName: 'Students', Item: item });
  for (const item of articles) db.putItem({ TableName: 'Articles', Item: item });
  db.batchWriteItem({ RequestItems: { Employees: employees.map((Item) => ({ PutRequest: { Item } })) } });
}

const bytesOf = (items: Record<string, unknown>[]) => items.reduce((n, i) => n + itemSize(validateItem(i)), 0);

function checkContents(db: Edgetable): void {
  expect(db.listTables().TableNames).toEqual(['Articles', 'Employees', 'Students']);
  expect(db.getItem({ TableName: 'Students', Key: { studentid: { N: '2' } } }).Item).toEqual(students[1]);
  expect(db.getItem({ TableName: 'Students', Key: { studentid: { N: '4' } } })).toEqual({});

  const parts = db.query({
    TableName: 'Articles',
    KeyConditionExpression: 'ArticleId = :a',
    ExpressionAttributeValues: { ':a': { N: '101' } },
  });
  expect(parts.Items!.map((i) => (i.Part as { N: string }).N)).toEqual(['1', '2', '3']);
  expect(parts.Items!.map((i) => (i.body as { S: string }).S)).toEqual(['introduction', 'method', 'conclusion']);
  expect(parts.Count).toBe(3);

  const backwards = db.query({
    TableName: 'Articles',
    KeyConditionExpression: 'ArticleId = :a AND Part >= :p',
    ExpressionAttributeValues: { ':a': { N: '101' }, ':p': { N: '2' } },
    ScanIndexForward: false,
  });
  expect(backwards.Items!.map((i) => (i.Part as { N: string }).N)).toEqual(['3', '2']);

  // empIds sort numerically (3 < 20 < 100), not as strings.
  const engineering = db.query({
    TableName: 'Employees',
    KeyConditionExpression: 'Department = :d',
    ExpressionAttributeValues: { ':d': { S: 'Engineering' } },
  });
  expect(engineering.Items!.map((i) => (i.empId as { N: string }).N)).toEqual(['3', '20', '100']);

  for (const [name, items] of [['Students', students], ['Articles', articles], ['Employees', employees]] as const) {
    const scanned = db.scan({ TableName: name });
    expect(scanned.Count).toBe(items.length);
    expect(scanned.ScannedCount).toBe(items.length);
    const description = db.describeTable({ TableName: name }).Table;
    expect(description.ItemCount).toBe(items.length);
    expect(description.TableSizeBytes).toBe(bytesOf(items));
    expect(description.TableStatus).toBe('ACTIVE');
  }
}

describe('the seed tables', () => {
  it('are written, read back, and survive close and reopen', () => {
    const path = join(temp.dir(), 'db');
    const db = temp.open({ path });
    seed(db);
    checkContents(db);
    db.close();

    const reopened = temp.open({ path });
    checkContents(reopened);

    // The reopened store still takes writes and keeps its statistics exact.
    reopened.deleteItem({ TableName: 'Articles', Key: { ArticleId: { N: '101' }, Part: { N: '2' } } });
    const after = reopened.describeTable({ TableName: 'Articles' }).Table;
    expect(after.ItemCount).toBe(3);
    expect(after.TableSizeBytes).toBe(bytesOf(articles.filter((a) => a.Part.N !== '2' || a.ArticleId.N !== '101')));
  });

  it('keeps Part order however the parts were written', () => {
    const db = temp.open();
    db.createTable(tableRequest('Articles', ['ArticleId', 'N'], ['Part', 'N'], 2));
    const order = [7, 1, 10, 3, 2, 9, 4, 8, 6, 5, 11];
    for (const part of order) {
      db.putItem({ TableName: 'Articles', Item: { ArticleId: { N: '101' }, Part: { N: String(part) }, body: { S: `p${part}` } } });
    }
    const result = db.query({
      TableName: 'Articles',
      KeyConditionExpression: 'ArticleId = :a AND Part BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':a': { N: '101' }, ':lo': { N: '2' }, ':hi': { N: '10' } },
    });
    expect(result.Items!.map((i) => Number((i.Part as { N: string }).N))).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
