/**
 * The seeds' index examples end to end: the Employees table (Department + empId) with an LSI on
 * DOJ and a GSI on empId, and the Books table (BookTitle + Edition) with a KEYS_ONLY LSI on
 * PubDate and a GSI on Language + Edition; rows, order, fetch metering and DynamoDB's refusals.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { itemSize } from '../../src/model/item-size.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';
import { expectError, useTempDbs } from './temp-db.js';
import type { ItemOutput } from '../../src/api/shapes.js';

const temp = useTempDbs();

type Wire = ItemOutput;

const employee = (Department: string, empId: number, Name: string, Age: number, Location: string, DOJ: string): Wire => ({
  Department: { S: Department },
  empId: { N: String(empId) },
  Name: { S: Name },
  Age: { N: String(Age) },
  Location: { S: Location },
  DOJ: { S: DOJ },
});

const employees: Wire[] = [
  employee('IT', 1001, 'Asha', 31, 'Pune', '2016-04-11'),
  employee('IT', 1002, 'Bilal', 27, 'Delhi', '2019-07-01'),
  employee('HR', 1003, 'Chen', 45, 'Mumbai', '2012-01-20'),
  employee('IT', 1004, 'Dana', 38, 'Pune', '2021-02-15'),
  employee('Sales', 1005, 'Emil', 29, 'Chennai', '2018-09-30'),
  employee('IT', 1006, 'Farah', 24, 'Delhi', '2018-12-31'),
  employee('IT', 1007, 'Gopal', 33, 'Mumbai', '2020-05-05'),
  employee('HR', 1008, 'Hana', 36, 'Delhi', '2019-01-02'),
];

function createEmployees(db: Edgetable): void {
  db.createTable({
    TableName: 'Employees',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'Department', KeyType: 'HASH' }, { AttributeName: 'empId', KeyType: 'RANGE' }],
    AttributeDefinitions: [
      { AttributeName: 'Department', AttributeType: 'S' },
      { AttributeName: 'empId', AttributeType: 'N' },
      { AttributeName: 'DOJ', AttributeType: 'S' },
    ],
    LocalSecondaryIndexes: [{
      IndexName: 'Idx_DOJ',
      KeySchema: [{ AttributeName: 'Department', KeyType: 'HASH' }, { AttributeName: 'DOJ', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'ALL' },
    }],
    GlobalSecondaryIndexes: [{
      IndexName: 'Idx_EmpId',
      KeySchema: [{ AttributeName: 'empId', KeyType: 'HASH' }],
      Projection: { ProjectionType: 'ALL' },
    }],
  });
  db.batchWriteItem({ RequestItems: { Employees: employees.map((Item) => ({ PutRequest: { Item } })) } });
}

const names = (items: unknown[] | undefined) => (items ?? []).map((i) => (i as Wire).Name!.S);

describe('the Employees table with an LSI on DOJ and a GSI on empId', () => {
  let db: Edgetable;
  beforeEach(() => {
    db = temp.open();
    createEmployees(db);
  });

  it('answers "employees of IT who joined after 2018" from the LSI, in DOJ order', () => {
    const result = db.query({
      TableName: 'Employees',
      IndexName: 'Idx_DOJ',
      KeyConditionExpression: 'Department = :d AND DOJ > :after',
      ExpressionAttributeValues: { ':d': { S: 'IT' }, ':after': { S: '2018-12-31' } },
    });
    expect(names(result.Items)).toEqual(['Bilal', 'Gopal', 'Dana']);
    expect(result.Items).toEqual([employees[1], employees[6], employees[3]]);
    expect(result.Count).toBe(3);
    expect(result.ScannedCount).toBe(3);

    const backwards = db.query({
      TableName: 'Employees',
      IndexName: 'Idx_DOJ',
      KeyConditionExpression: 'Department = :d AND DOJ >= :from',
      ExpressionAttributeValues: { ':d': { S: 'IT' }, ':from': { S: '2018' } },
      ScanIndexForward: false,
    });
    expect(names(backwards.Items)).toEqual(['Dana', 'Gopal', 'Bilal', 'Farah']);
  });

  it('applies every sort-key operator to the LSI sort key, entries with equal DOJ included', () => {
    db.putItem({ TableName: 'Employees', Item: employee('IT', 1009, 'Ines', 41, 'Pune', '2019-07-01') });
    const q = (condition: string, values: Record<string, { S: string }>) => names(db.query({
      TableName: 'Employees',
      IndexName: 'Idx_DOJ',
      KeyConditionExpression: `Department = :d AND ${condition}`,
      ExpressionAttributeValues: { ':d': { S: 'IT' }, ...values },
    }).Items);
    const july = { ':v': { S: '2019-07-01' } };
    expect(q('DOJ = :v', july)).toEqual(['Bilal', 'Ines']);
    expect(q('DOJ <= :v', july)).toEqual(['Asha', 'Farah', 'Bilal', 'Ines']);
    expect(q('DOJ < :v', july)).toEqual(['Asha', 'Farah']);
    expect(q('DOJ >= :v', july)).toEqual(['Bilal', 'Ines', 'Gopal', 'Dana']);
    expect(q('DOJ > :v', july)).toEqual(['Gopal', 'Dana']);
    expect(q('DOJ BETWEEN :a AND :v', { ':a': { S: '2018-12-31' }, ...july })).toEqual(['Farah', 'Bilal', 'Ines']);
    expect(q('begins_with(DOJ, :p)', { ':p': { S: '2019' } })).toEqual(['Bilal', 'Ines']);
  });

  it('lists a whole department in DOJ order on the LSI and empId order on the table', () => {
    const q = (IndexName?: string) => db.query({
      TableName: 'Employees',
      ...(IndexName ? { IndexName } : {}),
      KeyConditionExpression: 'Department = :d',
      ExpressionAttributeValues: { ':d': { S: 'IT' } },
    });
    expect(names(q('Idx_DOJ').Items)).toEqual(['Asha', 'Farah', 'Bilal', 'Gopal', 'Dana']);
    expect(names(q().Items)).toEqual(['Asha', 'Bilal', 'Dana', 'Farah', 'Gopal']);
  });

  it('answers "employee 1003, department unknown" from the GSI', () => {
    const result = db.query({
      TableName: 'Employees',
      IndexName: 'Idx_EmpId',
      KeyConditionExpression: 'empId = :e',
      ExpressionAttributeValues: { ':e': { N: '1003' } },
    });
    expect(result.Items).toEqual([employees[2]]);
    expect(result.Count).toBe(1);

    const none = db.query({
      TableName: 'Employees',
      IndexName: 'Idx_EmpId',
      KeyConditionExpression: 'empId = :e',
      ExpressionAttributeValues: { ':e': { N: '999' } },
    });
    expect(none.Items).toEqual([]);
    // The table's own key cannot answer it without the department.
    expectError(
      () => db.query({ TableName: 'Employees', KeyConditionExpression: 'empId = :e', ExpressionAttributeValues: { ':e': { N: '1003' } } }),
      'ValidationException',
      'Query condition missed key schema element: Department',
    );
  });

  it('follows moves: a changed DOJ re-sorts the LSI, a department change moves the GSI entry', () => {
    db.updateItem({
      TableName: 'Employees',
      Key: { Department: { S: 'IT' }, empId: { N: '1001' } },
      UpdateExpression: 'SET DOJ = :d',
      ExpressionAttributeValues: { ':d': { S: '2022-01-01' } },
    });
    const it = db.query({
      TableName: 'Employees',
      IndexName: 'Idx_DOJ',
      KeyConditionExpression: 'Department = :d AND DOJ > :after',
      ExpressionAttributeValues: { ':d': { S: 'IT' }, ':after': { S: '2018-12-31' } },
    });
    expect(names(it.Items)).toEqual(['Bilal', 'Gopal', 'Dana', 'Asha']);
    db.deleteItem({ TableName: 'Employees', Key: { Department: { S: 'HR' }, empId: { N: '1003' } } });
    db.putItem({ TableName: 'Employees', Item: { ...employees[2]!, Department: { S: 'IT' } } });
    const moved = db.query({
      TableName: 'Employees',
      IndexName: 'Idx_EmpId',
      KeyConditionExpression: 'empId = :e',
      ExpressionAttributeValues: { ':e': { N: '1003' } },
    });
    expect(moved.Items!.map((i) => (i as Wire).Department!.S)).toEqual(['IT']);
    expect(db.verify('Employees').Differences).toBe(0);
  });

  it('scans the GSI and the LSI: one entry per item', () => {
    const gsi = db.scan({ TableName: 'Employees', IndexName: 'Idx_EmpId' });
    expect(gsi.Count).toBe(employees.length);
    expect(new Set(gsi.Items!.map((i) => (i as Wire).empId!.N))).toEqual(new Set(employees.map((e) => e.empId!.N)));
    const lsi = db.scan({ TableName: 'Employees', IndexName: 'Idx_DOJ' });
    expect(lsi.Count).toBe(employees.length);
  });
});

// ---------------------------------------------------------------------------------------------

const book = (BookTitle: string, Edition: number, Language: string, PubDate: string, extra: Wire = {}): Wire => ({
  BookTitle: { S: BookTitle },
  Edition: { N: String(Edition) },
  Language: { S: Language },
  PubDate: { S: PubDate },
  Publisher: { S: 'Penguin' },
  Pages: { N: String(100 + Edition * 10) },
  ...extra,
});

const books: Wire[] = [
  book('Dune', 1, 'English', '1965-08-01'),
  book('Dune', 2, 'English', '1987-01-01'),
  book('Dune', 3, 'German', '1990-03-15'),
  book('Dune', 4, 'English', '2005-06-01', { Blurb: { S: 'x'.repeat(9000) } }),
  book('Faust', 1, 'German', '1808-01-01'),
  book('Faust', 2, 'English', '1870-01-01'),
];

function createBooks(db: Edgetable): void {
  db.createTable({
    TableName: 'Books',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'BookTitle', KeyType: 'HASH' }, { AttributeName: 'Edition', KeyType: 'RANGE' }],
    AttributeDefinitions: [
      { AttributeName: 'BookTitle', AttributeType: 'S' },
      { AttributeName: 'Edition', AttributeType: 'N' },
      { AttributeName: 'PubDate', AttributeType: 'S' },
      { AttributeName: 'Language', AttributeType: 'S' },
    ],
    LocalSecondaryIndexes: [{
      IndexName: 'Idx_PubDate',
      KeySchema: [{ AttributeName: 'BookTitle', KeyType: 'HASH' }, { AttributeName: 'PubDate', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    }],
    GlobalSecondaryIndexes: [{
      IndexName: 'Idx_Pub_Edtn',
      KeySchema: [{ AttributeName: 'Language', KeyType: 'HASH' }, { AttributeName: 'Edition', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['Publisher'] },
    }],
  });
  for (const Item of books) db.putItem({ TableName: 'Books', Item });
}

const sizeOf = (item: Wire) => itemSize(validateItem(item));
const pick = (item: Wire, names: string[]): Wire => Object.fromEntries(names.filter((n) => item[n]).map((n) => [n, item[n]!]));

describe('the Books table with a KEYS_ONLY LSI and an INCLUDE GSI', () => {
  let db: Edgetable;
  beforeEach(() => {
    db = temp.open();
    createBooks(db);
  });

  const dune = books.filter((b) => b.BookTitle!.S === 'Dune');
  const lsiKeys = ['BookTitle', 'Edition', 'PubDate'];

  it('returns only the projected keys by default, sized on the entries', () => {
    const result = db.query({
      TableName: 'Books',
      IndexName: 'Idx_PubDate',
      KeyConditionExpression: 'BookTitle = :t',
      ExpressionAttributeValues: { ':t': { S: 'Dune' } },
      ReturnConsumedCapacity: 'INDEXES',
    });
    expect(result.Items).toEqual(dune.map((b) => pick(b, lsiKeys)));
    expect(result.ConsumedCapacity).toEqual({
      TableName: 'Books',
      CapacityUnits: 0.5,
      Table: { CapacityUnits: 0 },
      LocalSecondaryIndexes: { Idx_PubDate: { CapacityUnits: 0.5 } },
    });
  });

  it('fetches non-projected attributes from the base items and meters each fetch on the table arm', () => {
    const strong = db.query({
      TableName: 'Books',
      IndexName: 'Idx_PubDate',
      KeyConditionExpression: 'BookTitle = :t AND PubDate > :d',
      ExpressionAttributeValues: { ':t': { S: 'Dune' }, ':d': { S: '1980' } },
      ProjectionExpression: 'Edition, Publisher, Pages, Blurb',
      ConsistentRead: true,
      ReturnConsumedCapacity: 'INDEXES',
    });
    const matched = dune.slice(1);
    expect(strong.Items).toEqual(matched.map((b) => pick(b, ['Edition', 'Publisher', 'Pages', 'Blurb'])));
    const entryBytes = matched.reduce((n, b) => n + sizeOf(pick(b, lsiKeys)), 0);
    const lsiUnits = Math.ceil(entryBytes / 4096);
    const tableUnits = matched.reduce((n, b) => n + Math.ceil(sizeOf(b) / 4096), 0);
    expect(tableUnits).toBe(1 + 1 + 3); // the 9 KB edition rounds to 12 KB on its own
    expect(strong.ConsumedCapacity).toEqual({
      TableName: 'Books',
      CapacityUnits: lsiUnits + tableUnits,
      Table: { CapacityUnits: tableUnits },
      LocalSecondaryIndexes: { Idx_PubDate: { CapacityUnits: lsiUnits } },
    });

    const all = db.query({
      TableName: 'Books',
      IndexName: 'Idx_PubDate',
      KeyConditionExpression: 'BookTitle = :t',
      ExpressionAttributeValues: { ':t': { S: 'Dune' } },
      Select: 'ALL_ATTRIBUTES',
      ReturnConsumedCapacity: 'INDEXES',
    });
    expect(all.Items).toEqual(dune);
    expect(all.ConsumedCapacity!.Table).toEqual({ CapacityUnits: (1 + 1 + 1 + 3) / 2 });
    expect(all.ConsumedCapacity!.LocalSecondaryIndexes).toEqual({ Idx_PubDate: { CapacityUnits: 0.5 } });
  });

  it('fetches for a filter on a non-projected attribute', () => {
    const result = db.query({
      TableName: 'Books',
      IndexName: 'Idx_PubDate',
      KeyConditionExpression: 'BookTitle = :t',
      FilterExpression: 'Pages > :p',
      ExpressionAttributeValues: { ':t': { S: 'Dune' }, ':p': { N: '125' } },
    });
    expect(result.Items).toEqual(dune.slice(2).map((b) => pick(b, lsiKeys)));
    expect(result.ScannedCount).toBe(4);
  });

  it('queries the GSI by Language and Edition, returning its INCLUDE projection', () => {
    const result = db.query({
      TableName: 'Books',
      IndexName: 'Idx_Pub_Edtn',
      KeyConditionExpression: '#l = :l AND Edition >= :e',
      ExpressionAttributeNames: { '#l': 'Language' },
      ExpressionAttributeValues: { ':l': { S: 'English' }, ':e': { N: '2' } },
    });
    const english = books.filter((b) => b.Language!.S === 'English' && Number(b.Edition!.N) >= 2);
    expect(result.Items!.map((i) => `${(i as Wire).BookTitle!.S}#${(i as Wire).Edition!.N}`).sort()).toEqual(english.map((b) => `${b.BookTitle!.S}#${b.Edition!.N}`).sort());
    for (const item of result.Items!) expect(Object.keys(item).sort()).toEqual(['BookTitle', 'Edition', 'Language', 'Publisher']);
    // Edition orders the entries of one Language.
    expect(result.Items!.map((i) => Number((i as Wire).Edition!.N))).toEqual([...result.Items!.map((i) => Number((i as Wire).Edition!.N))].sort((a, b) => a - b));
  });

  it("rejects GSI reads DynamoDB rejects, with DynamoDB's messages", () => {
    const base = { TableName: 'Books', KeyConditionExpression: '#l = :l', ExpressionAttributeNames: { '#l': 'Language' }, ExpressionAttributeValues: { ':l': { S: 'English' } } };
    expectError(
      () => db.query({ ...base, IndexName: 'Idx_Pub_Edtn', Select: 'ALL_ATTRIBUTES' }),
      'ValidationException',
      'One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index Idx_Pub_Edtn because its projection type is not ALL',
    );
    expectError(
      () => db.scan({ TableName: 'Books', IndexName: 'Idx_Pub_Edtn', Select: 'ALL_ATTRIBUTES' }),
      'ValidationException',
      'One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index Idx_Pub_Edtn because its projection type is not ALL',
    );
    expectError(
      () => db.query({ ...base, IndexName: 'Idx_Pub_Edtn', ConsistentRead: true }),
      'ValidationException',
      'Consistent reads are not supported on global secondary indexes',
    );
    expectError(
      () => db.scan({ TableName: 'Books', IndexName: 'Idx_Pub_Edtn', ConsistentRead: true }),
      'ValidationException',
      'Consistent reads are not supported on global secondary indexes',
    );
    expectError(
      () => db.query({ ...base, IndexName: 'Idx_Nope' }),
      'ValidationException',
      'The table does not have the specified index: Idx_Nope',
    );
    expectError(() => db.scan({ TableName: 'Books', IndexName: 'Idx_Nope' }), 'ValidationException', 'The table does not have the specified index: Idx_Nope');
    // A GSI cannot fetch from the table: projecting an attribute it does not store is refused.
    expectError(
      () => db.query({ ...base, IndexName: 'Idx_Pub_Edtn', ProjectionExpression: 'BookTitle, Pages' }),
      'ValidationException',
      'One or more parameter values were invalid: Global secondary index Idx_Pub_Edtn does not project [Pages]',
    );
  });
});
