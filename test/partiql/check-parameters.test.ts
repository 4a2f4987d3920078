/**
 * `?` parameters are checked as DynamoDB's PartiQL checks them, with its texts, and never with a
 * message naming the compiled request's internal placeholders (`:v1`).
 */
import { describe, expect, it } from 'vitest';
import { checkParameters } from '../../src/partiql/check-parameters.js';
import { thrown, usePartiqlDb } from './partiql-fixture.js';

const UNCONVERTIBLE = 'The parameter cannot be converted to a numeric value';
const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';
const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const NEST = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
const deep = (depth: number, leaf: object = { S: 'leaf' }): object => (depth === 0 ? leaf : { M: { n: deep(depth - 1, leaf) } });
const message = (parameters: unknown[]) => thrown(() => checkParameters(parameters)).message;

describe('checking parameters', () => {
  it.each(['1e99999999999', '-1e99999999999', '1e-99999999999', '1e2147483648', '1e-2147483648', '1.5e-2147483647', 'abc', '1e', '--1'])(
    '%s cannot be converted, and the message echoes it',
    (n) => expect(message([{ N: n }])).toBe(`${UNCONVERTIBLE}: ${n}`),
  );

  it('an empty number gets the message with nothing after it', () => expect(message([{ N: '' }])).toBe(UNCONVERTIBLE));
  it('1e2147483647 underflows (the magnitude check wraps in 32 bits)', () => expect(message([{ N: '1e2147483647' }])).toBe(UNDERFLOW));
  it('a number past the largest overflows', () => expect(message([{ N: '1e126' }])).toBe(OVERFLOW));
  it('numbers inside lists, maps and number sets are checked', () => {
    expect(message([{ L: [{ N: '1' }, { N: '1e99999999999' }] }])).toBe(`${UNCONVERTIBLE}: 1e99999999999`);
    expect(message([{ M: { x: { N: '1e99999999999' } } }])).toBe(`${UNCONVERTIBLE}: 1e99999999999`);
    expect(message([{ NS: ['1', '1e99999999999'] }])).toBe(`${UNCONVERTIBLE}: 1e99999999999`);
  });

  it.each([40, 100])('nested %i levels: the first problem in document order is the one reported', (depth) => {
    expect(message([deep(depth), { N: 'abc' }])).toBe(NEST);
    expect(message([{ N: 'abc' }, deep(depth)])).toBe(`${UNCONVERTIBLE}: abc`);
    expect(message([{ M: { d: deep(depth), bad: { N: 'abc' } } }])).toBe(NEST);
    expect(message([{ M: { bad: { N: 'abc' }, d: deep(depth) } }])).toBe(`${UNCONVERTIBLE}: abc`);
    expect(message([deep(depth, { N: 'abc' })])).toBe(NEST);
  });

  it('accepts what DynamoDB stores', () => {
    expect(() => checkParameters([{ N: '-1.5E+3' }, { N: '.5' }, { N: '0e125' }, { NS: ['1', '2'] }, { M: { a: { L: [{ S: 'x' }] } } }])).not.toThrow();
  });
});

describe('parameter errors through the operations', () => {
  const openDb = usePartiqlDb();
  const positions = [
    ['a WHERE comparison', `SELECT * FROM Items WHERE id = 'x' AND a = ?`],
    ['an INSERT value', `INSERT INTO Items VALUE {'id': 'new', 'n': ?}`],
    ['an UPDATE SET', `UPDATE Items SET n = ? WHERE id = 'x'`],
    ['a key', `SELECT * FROM Items WHERE id = ?`],
  ];

  it.each(positions)('in %s, with no internal placeholder, and nothing written', (_label, Statement) => {
    const db = openDb();
    for (const [N, expected] of [['1e99999999999', `${UNCONVERTIBLE}: 1e99999999999`], ['', UNCONVERTIBLE], ['1e2147483647', UNDERFLOW]] as const) {
      const e = thrown(() => db.executeStatement({ Statement, Parameters: [{ N }] }));
      expect([e.name, e.message]).toEqual(['ValidationException', expected]);
    }
    expect(db.getItem({ TableName: 'Items', Key: { id: { S: 'x' } } }).Item).toEqual({ id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } });
    expect(db.getItem({ TableName: 'Items', Key: { id: { S: 'new' } } }).Item).toBeUndefined();
  });

  it('in ExecuteTransaction the message is not prefixed with the statement, and in BatchExecuteStatement it is the slot error', () => {
    const db = openDb();
    const e = thrown(() => db.executeTransaction({ TransactStatements: [{ Statement: `UPDATE Items SET n = ? WHERE id = 'x'`, Parameters: [{ N: '1e99999999999' }] }] }));
    expect(e.message).toBe(`${UNCONVERTIBLE}: 1e99999999999`);
    const r = db.batchExecuteStatement({ Statements: [{ Statement: `SELECT * FROM Items WHERE id = 'x' AND a = ?`, Parameters: [{ N: '1e99999999999' }] }] });
    expect(r.Responses).toMatchObject([{ Error: { Code: 'ValidationError', Message: `${UNCONVERTIBLE}: 1e99999999999` } }]);
  });
});
