/**
 * demo: the seeds' three tables in a store (./data by default), created if absent, a few items
 * written to each, then read back: a GetItem, a Query of article 101 in Part order, Scan counts.
 * Re-running it overwrites the same items, so it is idempotent.
 */
import type { Command } from 'commander';
import type { Item } from '../../api/shapes.js';
import type { Edgetable } from '../../edgetable.js';
import { ResourceNotFoundException } from '../../model/errors.js';
import type { CliIo } from '../cli-io.js';
import { formatItem } from '../format-item.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { scannedItemCount, withDb } from '../with-db.js';

type KeyDef = [name: string, type: 'S' | 'N'];

const TABLES: ReadonlyArray<{ name: string; hash: KeyDef; range?: KeyDef }> = [
  { name: 'Students', hash: ['studentid', 'N'] },
  { name: 'Articles', hash: ['ArticleId', 'N'], range: ['Part', 'N'] },
  { name: 'Employees', hash: ['Department', 'S'], range: ['empId', 'N'] },
];

const STUDENTS: Item[] = [
  { studentid: { N: '1' }, name: { S: 'Ada' }, grade: { N: '12' } },
  { studentid: { N: '2' }, name: { S: 'Grace' }, grade: { N: '11' }, clubs: { SS: ['chess', 'robotics'] } },
  { studentid: { N: '3' }, name: { S: 'Linus' }, grade: { N: '10' } },
];
// Written out of order: the Query must still return them by Part.
const ARTICLE_PARTS: Item[] = [
  { ArticleId: { N: '101' }, Part: { N: '3' }, body: { S: 'conclusion' } },
  { ArticleId: { N: '101' }, Part: { N: '1' }, body: { S: 'introduction' } },
  { ArticleId: { N: '101' }, Part: { N: '2' }, body: { S: 'method' } },
];
const EMPLOYEES: Item[] = [
  { Department: { S: 'Engineering' }, empId: { N: '20' }, name: { S: 'Bo' } },
  { Department: { S: 'Engineering' }, empId: { N: '3' }, name: { S: 'Al' } },
  { Department: { S: 'Sales' }, empId: { N: '7' }, name: { S: 'Cy' } },
];

export function registerDemo(program: Command, io: CliIo): void {
  storeCommand(program, 'demo')
    .description("create the seeds' tables (Students, Articles, Employees), write items and read them back")
    .action(async (options: PathOption) => {
      await withDb(options.path, (db) => runDemo(db, options.path, io));
    });
}

function runDemo(db: Edgetable, path: string, io: CliIo): void {
  const say = (line: string): void => io.out(`${line}\n`);
  const created = TABLES.filter((t) => ensureTable(db, t.name, t.hash, t.range)).map((t) => t.name);
  say(`store ${path}: tables ${TABLES.map((t) => t.name).join(', ')} (${created.length > 0 ? `created ${created.join(', ')}` : 'all existed'})`);

  for (const Item of STUDENTS) db.putItem({ TableName: 'Students', Item });
  for (const Item of ARTICLE_PARTS) db.putItem({ TableName: 'Articles', Item });
  db.batchWriteItem({ RequestItems: { Employees: EMPLOYEES.map((Item) => ({ PutRequest: { Item } })) } });
  say(`wrote ${STUDENTS.length} students (PutItem), parts 3, 1, 2 of article 101 (PutItem), ${EMPLOYEES.length} employees (BatchWriteItem)`);

  const student = db.getItem({ TableName: 'Students', Key: { studentid: { N: '2' } } });
  say(`GetItem Students studentid=2 -> ${formatItem(student.Item)}`);

  const parts = db.query({
    TableName: 'Articles',
    KeyConditionExpression: 'ArticleId = :a',
    ExpressionAttributeValues: { ':a': { N: '101' } },
  });
  const partList = (parts.Items ?? []).map((i) => `${(i.Part as { N: string }).N}:${(i.body as { S: string }).S}`);
  say(`Query Articles ArticleId=101 -> ${parts.Count} parts in Part order: ${partList.join(', ')}`);

  const engineering = db.query({
    TableName: 'Employees',
    KeyConditionExpression: 'Department = :d',
    ExpressionAttributeValues: { ':d': { S: 'Engineering' } },
  });
  say(`Query Employees Department=Engineering -> empIds ${(engineering.Items ?? []).map((i) => (i.empId as { N: string }).N).join(', ')} (numeric order)`);

  const counts = TABLES.map((t) => `${t.name} ${scannedItemCount(db, t.name)}`);
  say(`Scan counts: ${counts.join(', ')}`);
}

/** Creates the table unless it exists; true when it was created. */
function ensureTable(db: Edgetable, name: string, hash: KeyDef, range: KeyDef | undefined): boolean {
  try {
    db.describeTable({ TableName: name });
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const keys = range === undefined ? [hash] : [hash, range];
  db.createTable({
    TableName: name,
    KeySchema: keys.map(([AttributeName], i) => ({ AttributeName, KeyType: i === 0 ? 'HASH' : 'RANGE' })),
    AttributeDefinitions: keys.map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    BillingMode: 'PAY_PER_REQUEST',
  });
  return true;
}

