/** ExecuteTransaction: what it answers, and how it refuses statements it cannot run (per statement index). */
import { describe, expect, it } from 'vitest';
import { thrown, usePartiqlDb } from './partiql-fixture.js';

const openDb = usePartiqlDb();

describe('ExecuteTransaction', () => {
  it('answers a transaction of writes with an empty Responses list, beside ConsumedCapacity when asked', () => {
    const db = openDb();
    const tx = (extra: object = {}) =>
      db.executeTransaction({
        TransactStatements: [{ Statement: `UPDATE Items SET c = 1 WHERE id = 'x'` }, { Statement: `INSERT INTO Items VALUE {'id': 'y'}` }],
        ...extra,
      });
    expect(tx()).toEqual({ Responses: [] });
    db.deleteItem({ TableName: 'Items', Key: { id: { S: 'y' } } });
    expect(tx({ ReturnConsumedCapacity: 'TOTAL' })).toEqual({ Responses: [], ConsumedCapacity: [{ TableName: 'Items', CapacityUnits: 4, WriteCapacityUnits: 4 }] });
  });

  it('answers a transaction of reads with one entry per statement, {} for an item that is not there', () => {
    const db = openDb();
    const r = db.executeTransaction({ TransactStatements: [{ Statement: `SELECT a FROM Items WHERE id = 'x'` }, { Statement: `SELECT * FROM Items WHERE id = 'none'` }] });
    expect(r).toEqual({ Responses: [{ Item: { a: { N: '1' } } }, {}] });
  });
});

describe('ExecuteTransaction refuses, naming the statement', () => {
  const refusal = (db: ReturnType<typeof openDb>, statements: string[]) => thrown(() => db.executeTransaction({ TransactStatements: statements.map((Statement) => ({ Statement })) }));

  it.each([
    ['no key at all', `SELECT * FROM Items WHERE a = 1`],
    ['the key and a filter', `SELECT * FROM Items WHERE id = 'x' AND attribute_exists(a)`],
    ['part of a composite key', `SELECT * FROM Pairs WHERE p = 'x'`],
  ])('a SELECT with %s: it must read one item by its primary key', (_label, select) => {
    const db = openDb();
    const e = refusal(db, [`SELECT * FROM Items WHERE id = 'x'`, select]);
    expect([e.name, e.message]).toEqual(['ValidationException', 'Validation failed in TransactStatements[1]: Select statements within ExecuteTransaction must specify the primary key in the where clause.']);
  });

  it('a statement outside the grammar, with the parser message after the index', () => {
    const e = refusal(openDb(), [`UPDATE Items SET a = 2 WHERE id = 'x'`, `DELETE Items`]);
    expect(e.message).toMatch(/^Validation failed in TransactStatements\[1\]: Statement wasn't well formed, can't be processed: /);
  });
});

describe('EXISTS in ExecuteTransaction', () => {
  it('is refused when its WHERE holds the key and nothing more, and nothing is written', () => {
    const db = openDb();
    const e = thrown(() =>
      db.executeTransaction({ TransactStatements: [{ Statement: `UPDATE Items SET c = 1 WHERE id = 'x'` }, { Statement: `EXISTS(SELECT * FROM Items WHERE id = 'x')` }] }),
    );
    expect([e.name, e.message]).toEqual(['ValidationException', 'Validation failed in TransactStatements[1]: EXISTS() must contain a single item read with additional condition']);
    expect(db.getItem({ TableName: 'Items', Key: { id: { S: 'x' } } }).Item?.c).toBeUndefined();
  });

  it('checks the key and a further condition', () => {
    const db = openDb();
    expect(db.executeTransaction({ TransactStatements: [{ Statement: `EXISTS(SELECT * FROM Items WHERE id = 'x' AND a = 1)` }, { Statement: `INSERT INTO Items VALUE {'id': 'y'}` }] })).toEqual({ Responses: [] });
    const e = thrown(() => db.executeTransaction({ TransactStatements: [{ Statement: `EXISTS(SELECT * FROM Items WHERE id = 'x' AND a = 2)` }, { Statement: `INSERT INTO Items VALUE {'id': 'z'}` }] }));
    expect(e.name).toBe('TransactionCanceledException');
  });
});

describe('ExecuteTransaction cancellation reasons', () => {
  it("carry the item of a statement whose condition failed under its ReturnValuesOnConditionCheckFailure ALL_OLD", () => {
    const db = openDb();
    const e = thrown(() =>
      db.executeTransaction({
        TransactStatements: [
          { Statement: `INSERT INTO Items VALUE {'id': 'y'}` },
          { Statement: `UPDATE Items SET a = 5 WHERE id = 'x' AND a = 99`, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
        ],
      }),
    );
    expect(e.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } } },
    ]);
    expect(db.getItem({ TableName: 'Items', Key: { id: { S: 'y' } } }).Item).toBeUndefined();
  });
});
