/** BatchExecuteStatement: each statement answers on its own, an Error in its place when it fails. */
import { describe, expect, it } from 'vitest';
import { usePartiqlDb } from './partiql-fixture.js';

const openDb = usePartiqlDb();

describe('BatchExecuteStatement', () => {
  it('refuses a SELECT that is not a read of one item by its full primary key, in its own slot', () => {
    const db = openDb();
    const r = db.batchExecuteStatement({
      Statements: [
        { Statement: `SELECT * FROM Items WHERE a = 1` },
        { Statement: `SELECT * FROM Items WHERE id = 'x'` },
        { Statement: `SELECT * FROM Pairs WHERE p = 'x'` },
        { Statement: `SELECT * FROM Items WHERE id = 'x' AND attribute_exists(a)` },
      ],
    });
    const refused = { Code: 'ValidationError', Message: 'Select statements within BatchExecuteStatement must specify the primary key in the where clause.' };
    expect(r.Responses.map((x: Record<string, unknown>) => x.Error ?? 'ok')).toEqual([refused, 'ok', refused, refused]);
  });
});

describe('BatchExecuteStatement returns items from writes', () => {
  it('RETURNING on UPDATE and DELETE puts the item in the statement response', () => {
    const db = openDb();
    db.putItem({ TableName: 'Items', Item: { id: { S: 'y' }, a: { N: '2' } } });
    const r = db.batchExecuteStatement({
      Statements: [
        { Statement: `UPDATE Items SET a = 5 WHERE id = 'x' RETURNING MODIFIED OLD *` },
        { Statement: `DELETE FROM Items WHERE id = 'y' RETURNING ALL OLD *` },
        { Statement: `UPDATE Items SET b = false WHERE id = 'x'` },
      ],
    });
    expect(r.Responses).toEqual([{ TableName: 'Items', Item: { a: { N: '1' } } }, { TableName: 'Items', Item: { id: { S: 'y' }, a: { N: '2' } } }, { TableName: 'Items' }]);
  });

  it("a statement's ReturnValuesOnConditionCheckFailure ALL_OLD puts the item in its Error, and nothing is written", () => {
    const db = openDb();
    const r = db.batchExecuteStatement({
      Statements: [
        { Statement: `UPDATE Items SET a = 5 WHERE id = 'x' AND a = 99`, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
        { Statement: `DELETE FROM Items WHERE id = 'x' AND a = 99`, ReturnValuesOnConditionCheckFailure: 'NONE' },
      ],
    });
    const failed = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
    expect(r.Responses).toEqual([
      { TableName: 'Items', Error: { ...failed, Item: { id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } } } },
      { TableName: 'Items', Error: failed },
    ]);
    expect(db.getItem({ TableName: 'Items', Key: { id: { S: 'x' } } }).Item?.a).toEqual({ N: '1' });
  });

  it('refuses a ReturnValuesOnConditionCheckFailure outside its enum', () => {
    const db = openDb();
    expect(() => db.batchExecuteStatement({ Statements: [{ Statement: `DELETE FROM Items WHERE id = 'x'`, ReturnValuesOnConditionCheckFailure: 'ALL_NEW' }] })).toThrow(
      "1 validation error detected: Value 'ALL_NEW' at 'statements.1.member.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
    );
    expect(db.getItem({ TableName: 'Items', Key: { id: { S: 'x' } } }).Item).toBeDefined();
  });
});
