/** ExecuteStatement: one statement, in-process; what it answers and what it changes. */
import { describe, expect, it } from 'vitest';
import { thrown, usePartiqlDb } from './partiql-fixture.js';

const openDb = usePartiqlDb();
const stored = (db: ReturnType<typeof openDb>, id: string) => db.getItem({ TableName: 'Items', Key: { id: { S: id } } }).Item;

describe('DELETE with a condition beyond the key', () => {
  it('succeeds and deletes nothing when the item is not there', () => {
    const db = openDb();
    expect(db.executeStatement({ Statement: `DELETE FROM Items WHERE id = 'none' AND a = 1` })).toEqual({ Items: [] });
    expect(stored(db, 'none')).toBeUndefined();
  });

  it('fails its condition when the item is there and the condition is false, and keeps the item', () => {
    const db = openDb();
    expect(thrown(() => db.executeStatement({ Statement: `DELETE FROM Items WHERE id = 'x' AND a = 2` })).name).toBe('ConditionalCheckFailedException');
    expect(stored(db, 'x')).toBeDefined();
    db.executeStatement({ Statement: `DELETE FROM Items WHERE id = 'x' AND a = 1` });
    expect(stored(db, 'x')).toBeUndefined();
  });

  it('an UPDATE of a missing item still fails its condition and creates nothing', () => {
    const db = openDb();
    expect(thrown(() => db.executeStatement({ Statement: `UPDATE Items SET a = 2 WHERE id = 'none'` })).name).toBe('ConditionalCheckFailedException');
    expect(thrown(() => db.executeStatement({ Statement: `UPDATE Items SET a = 2 WHERE id = 'none' AND a = 1` })).name).toBe('ConditionalCheckFailedException');
    expect(stored(db, 'none')).toBeUndefined();
  });
});

describe('comments', () => {
  it('a block comment counts as whitespace anywhere, keeping the WHERE clause in force', () => {
    const db = openDb();
    db.putItem({ TableName: 'Items', Item: { id: { S: 'y' } } });
    expect(db.executeStatement({ Statement: `SELECT id FROM Items /* a note */ WHERE id = 'x' /* after */` }).Items).toEqual([{ id: { S: 'x' } }]);
    expect(db.executeStatement({ Statement: `/* first */SELECT/**/id FROM Items -- a note\nWHERE id = 'y'` }).Items).toEqual([{ id: { S: 'y' } }]);
  });
});

describe('ordering comparisons', () => {
  const unordered: [string, object][] = [
    ['BOOL', { BOOL: true }],
    ['NULL', { NULL: true }],
    ['L', { L: [{ S: 'a' }] }],
    ['M', { M: { a: { S: 'b' } } }],
    ['SS', { SS: ['a'] }],
    ['NS', { NS: ['1'] }],
    ['BS', { BS: [Uint8Array.from([1])] }],
  ];
  const message = (op: string, type: string) => `Incorrect operand type for operator or function; operator or function: ${op}, operand type: ${type}`;

  it.each(unordered)('refuse an operand of type %s, whatever the item holds', (type, value) => {
    const db = openDb();
    for (const op of ['<', '<=', '>', '>=']) {
      const e = thrown(() => db.executeStatement({ Statement: `SELECT * FROM Items WHERE id = 'x' AND a ${op} ?`, Parameters: [value] }));
      expect([e.name, e.message]).toEqual(['ValidationException', message(op, type)]);
    }
    expect(thrown(() => db.executeStatement({ Statement: `SELECT * FROM Items WHERE a BETWEEN ? AND 5`, Parameters: [value] })).message).toBe(message('BETWEEN', type));
  });

  it('refuse a literal of such a type, and refuse it on a write without writing', () => {
    const db = openDb();
    expect(thrown(() => db.executeStatement({ Statement: `SELECT * FROM Items WHERE true > a` })).message).toBe(message('>', 'BOOL'));
    expect(thrown(() => db.executeStatement({ Statement: `UPDATE Items SET c = 1 WHERE id = 'x' AND a < [1]` })).message).toBe(message('<', 'L'));
    expect(stored(db, 'x')?.c).toBeUndefined();
  });

  it('accept = and <> against those types, and S against N', () => {
    const db = openDb();
    for (const [, value] of unordered) {
      expect(db.executeStatement({ Statement: `SELECT id FROM Items WHERE id = 'x' AND a = ?`, Parameters: [value] }).Items).toEqual([]);
      expect(db.executeStatement({ Statement: `SELECT id FROM Items WHERE id = 'x' AND a <> ?`, Parameters: [value] }).Items).toEqual([{ id: { S: 'x' } }]);
    }
    expect(db.executeStatement({ Statement: `SELECT id FROM Items WHERE id = 'x' AND a < 'z'` }).Items).toEqual([]);
    expect(db.executeStatement({ Statement: `SELECT id FROM Items WHERE id = 'x' AND a < 5` }).Items).toEqual([{ id: { S: 'x' } }]);
  });
});

describe('type tests and condition functions in WHERE', () => {
  const keys = (db: ReturnType<typeof openDb>, condition: string) =>
    (db.executeStatement({ Statement: `SELECT id FROM Items WHERE id = 'x' AND ${condition}` }).Items as Record<string, { S?: string }>[]).map((i) => i.id?.S);

  it('IS <type> tests the attribute type: BOOL (or BOOLEAN), STRING, NULL, with NOT', () => {
    const db = openDb();
    db.putItem({ TableName: 'Items', Item: { id: { S: 'x' }, flag: { BOOL: true }, s: { S: 'str' }, nul: { NULL: true } } });
    expect(keys(db, 'flag IS BOOL')).toEqual(['x']);
    expect(keys(db, 'flag IS boolean')).toEqual(['x']);
    expect(keys(db, 's IS STRING')).toEqual(['x']);
    expect(keys(db, 's IS BOOL')).toEqual([]);
    expect(keys(db, 'nope IS STRING')).toEqual([]);
    expect(keys(db, 's IS NOT BOOL')).toEqual(['x']);
    expect(keys(db, 'nul IS NULL')).toEqual(['x']);
    expect(keys(db, 's IS NOT NULL')).toEqual(['x']);
  });

  it('IS with a word that is not a type name is refused', () => {
    const e = thrown(() => openDb().executeStatement({ Statement: `SELECT * FROM Items WHERE id = 'a' AND x IS FOO` }));
    expect([e.name, e.message]).toEqual(['ValidationException', "Statement wasn't well formed, can't be processed: Expected type name"]);
  });

  it('a condition function compared with true or false is the function, or its negation', () => {
    const db = openDb();
    expect(keys(db, 'attribute_exists(a) = true')).toEqual(['x']);
    expect(keys(db, 'attribute_exists(a) = FALSE')).toEqual([]);
    expect(keys(db, 'attribute_exists(nope) <> true')).toEqual(['x']);
    expect(keys(db, 'attribute_not_exists(nope) != false')).toEqual(['x']);
    expect(keys(db, "(begins_with(id, 'y') = true OR attribute_exists(b) = true)")).toEqual(['x']);
  });
});

describe('the FROM-first UPDATE', () => {
  it('FROM ... WHERE ... SET / REMOVE updates the item, with parameters and RETURNING', () => {
    const db = openDb();
    db.executeStatement({ Statement: `FROM Items WHERE id = 'x' SET c = 1 REMOVE b` });
    expect(stored(db, 'x')).toEqual({ id: { S: 'x' }, a: { N: '1' }, c: { N: '1' } });
    const r = db.executeStatement({ Statement: `from Items where id = ? set d = ? RETURNING ALL NEW *`, Parameters: [{ S: 'x' }, { N: '7' }] });
    expect(r.Items).toEqual([{ id: { S: 'x' }, a: { N: '1' }, c: { N: '1' }, d: { N: '7' } }]);
  });

  it('a further condition binds the write; a missing item fails its condition and nothing is created', () => {
    const db = openDb();
    expect(thrown(() => db.executeStatement({ Statement: `FROM Items WHERE id = 'x' AND a = 2 SET c = 5` })).name).toBe('ConditionalCheckFailedException');
    expect(thrown(() => db.executeStatement({ Statement: `FROM Items WHERE id = 'none' SET c = 1` })).name).toBe('ConditionalCheckFailedException');
    expect(stored(db, 'x')?.c).toBeUndefined();
    expect(stored(db, 'none')).toBeUndefined();
    db.executeStatement({ Statement: `FROM Items WHERE id = 'x' AND a = 1 SET c = 5` });
    expect(stored(db, 'x')?.c).toEqual({ N: '5' });
  });

  it('runs in ExecuteTransaction and BatchExecuteStatement', () => {
    const db = openDb();
    db.executeTransaction({ TransactStatements: [{ Statement: `FROM Items WHERE id = 'x' SET c = 1` }] });
    expect(db.batchExecuteStatement({ Statements: [{ Statement: `FROM Items WHERE id = 'x' SET c = 2` }] }).Responses).toEqual([{ TableName: 'Items' }]);
    expect(stored(db, 'x')?.c).toEqual({ N: '2' });
  });

  it.each([
    [`FROM Items SET c = 1`, 'Where clause does not contain a mandatory equality on all key attributes'],
    [`FROM Items REMOVE a`, 'Where clause does not contain a mandatory equality on all key attributes'],
    [`FROM Items WHERE a = 1 SET c = 1`, 'Where clause does not contain a mandatory equality on all key attributes'],
    [`FROM Items SET c = 1 WHERE id = 'x'`, "Statement wasn't well formed, can't be processed: Unexpected token after expression"],
    [`FROM Items SET c = 1 WHERE id = 'x' SET d = 2`, "Statement wasn't well formed, can't be processed: Unexpected token after expression"],
  ])('%s is refused and changes nothing', (Statement, message) => {
    const db = openDb();
    const e = thrown(() => db.executeStatement({ Statement }));
    expect([e.name, e.message]).toEqual(['ValidationException', message]);
    expect(stored(db, 'x')).toEqual({ id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } });
  });

  it('on a table that does not exist: ResourceNotFoundException', () => {
    const e = thrown(() => openDb().executeStatement({ Statement: `FROM Nothing WHERE id = 'x' SET c = 1` }));
    expect([e.name, e.message]).toEqual(['ResourceNotFoundException', 'Requested resource not found']);
  });
});
