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
