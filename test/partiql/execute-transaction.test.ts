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
