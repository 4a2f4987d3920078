/**
 * What DynamoDB's PartiQL parser says about statements it refuses (texts captured from the
 * service, paritysuite tier3 partiqlGrammar), and that a refused statement runs nothing.
 */
import { describe, expect, it } from 'vitest';
import { parseStatement } from '../../src/partiql/parse-statement.js';
import { thrown, usePartiqlDb } from './partiql-fixture.js';

const NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: ";
const LEFTOVER = `${NOT_WELL_FORMED}Unexpected token after expression`;
const refusal = (text: string) => {
  const e = thrown(() => parseStatement(text));
  return [e.name, e.message];
};

describe('parsing refuses, with DynamoDB texts', () => {
  it.each([
    ['a token after a SELECT WHERE clause', `SELECT * FROM Items WHERE id = 1 foo`],
    ['a number split from its exponent', `SELECT * FROM Items WHERE id = 1 e5`],
    ['a token after an INSERT item', `INSERT INTO Items VALUE {'id': 'a'} foo`],
    ['a token after an UPDATE WHERE clause', `UPDATE Items SET a = 9 WHERE id = 'a' foo`],
    ['a token after a DELETE WHERE clause', `DELETE FROM Items WHERE id = 'a' foo`],
    ['a stray closing parenthesis', `SELECT * FROM Items WHERE id = 1)`],
    ['ORDER BY on a DELETE', `DELETE FROM Items WHERE id = 'a' ORDER BY id`],
    ['ORDER BY ahead of WHERE', `SELECT * FROM Items ORDER BY id WHERE id = 1`],
    ['an alias on an INSERT', `INSERT INTO Items t VALUE {'id': 'x'}`],
  ])('%s: a leftover token', (_label, text) => expect(refusal(text)).toEqual(['ValidationException', LEFTOVER]));

  it.each([
    ['on a SELECT', `SELECT * FROM Items t WHERE id = 'x'`],
    ['with AS on a SELECT', `SELECT * FROM Items AS t WHERE id = 'x'`],
    ['on a SELECT of an index', `SELECT * FROM "Items"."ix" t`],
    ['on an UPDATE', `UPDATE Items t SET a = 3 WHERE id = 'x'`],
    ['on a DELETE', `DELETE FROM Items t WHERE id = 'x'`],
  ])('an alias %s', (_label, text) => expect(refusal(text)).toEqual(['ValidationException', 'Aliasing is not supported']));

  it.each([
    [`SELECT * FROM Items WHERE`, 'Unexpected term'],
    [`SELECT * FROM Items WHERE;`, 'Unexpected term'],
    [`SELECT * FROM Items WHERE   `, 'Unexpected term'],
    [`SELECT id FROM Items WHERE`, 'Unexpected term'],
    [`UPDATE Items SET a = 1 WHERE`, 'Unexpected term'],
    [`DELETE FROM Items WHERE`, 'Unexpected term'],
    [`SELECT * FROM Items WHERE NOT`, 'Unexpected term'],
    [`SELECT * FROM Items WHERE (`, 'Unexpected term'],
    [`SELECT * FROM`, 'Unexpected term'],
    [`SELECT * FROM Items WHERE id = 'p1' AND`, 'Missing right-hand side expression of infix operator'],
    [`SELECT * FROM Items WHERE id = 'p1' OR`, 'Missing right-hand side expression of infix operator'],
    [`SELECT * FROM Items WHERE ORDER BY id`, 'Unexpected keyword'],
    [`SELECT * FROM Items WHERE IS NULL`, 'Unexpected operator'],
    [`SELECT * FROM Items WHERE id = LIKE`, 'Unexpected operator'],
    ['DELETE FROM', 'Expected identifier for simple path'],
    ['DELETE FROM   ', 'Expected identifier for simple path'],
    ['DELETE FROM;', 'Expected identifier for simple path'],
    [`DELETE FROM WHERE id = 'a'`, 'Expected identifier for simple path'],
  ])('%s: %s', (text, detail) => expect(refusal(text)).toEqual(['ValidationException', `${NOT_WELL_FORMED}${detail}`]));
});

describe('a refused statement runs nothing', () => {
  const openDb = usePartiqlDb();

  it.each([
    `INSERT INTO Items VALUE {'id': 'new'} foo`,
    `DELETE FROM Items t WHERE id = 'x'`,
    `DELETE FROM Items WHERE id = 'x' ORDER BY id`,
    `UPDATE Items t SET a = 3 WHERE id = 'x'`,
  ])('%s', (Statement) => {
    const db = openDb();
    expect(thrown(() => db.executeStatement({ Statement })).name).toBe('ValidationException');
    expect(db.scan({ TableName: 'Items' }).Items).toEqual([{ id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } }]);
  });
});

describe('number literals', () => {
  it.each([`SELECT * FROM Items WHERE id = 1e2147483648`, `SELECT * FROM Items WHERE id = 1e99999999999`, `SELECT * FROM Items WHERE id = 1.5e-2147483647`])(
    '%s cannot be read at all: not well formed, with nothing after the colon',
    (text) => expect(refusal(text)).toEqual(['ValidationException', NOT_WELL_FORMED]),
  );
});

describe('number literals past DynamoDB limits name where they sit', () => {
  const openDb = usePartiqlDb();
  const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
  const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';
  const DIGITS = 'Attempting to store more than 38 significant digits in a Number';

  it.each([
    [`SELECT * FROM Items WHERE id = 1e126`, `${OVERFLOW} under root`],
    [`SELECT * FROM Items WHERE id = 'x' AND a = 1e-131`, `${UNDERFLOW} under root`],
    [`SELECT * FROM Items WHERE id = 123456789012345678901234567890123456789`, `${DIGITS} under root`],
    [`INSERT INTO Items VALUE {'id': 'n', 'a': 1e126}`, `${OVERFLOW} under root`],
    [`UPDATE Items SET a = 1e-131 WHERE id = 'x'`, `${UNDERFLOW} under root`],
    [`INSERT INTO Items VALUE {'id': 'n', 'm': {'x': 1e126}}`, `${OVERFLOW} under root.x`],
    [`INSERT INTO Items VALUE {'id': 'n', 'l': [1, 1e126]}`, `${OVERFLOW} under root[1]`],
    [`INSERT INTO Items VALUE {'id': 'n', 'l': [{'y': [0, -1e126]}]}`, `${OVERFLOW} under root[0].y[1]`],
  ])('%s', (Statement, message) => {
    const db = openDb();
    const e = thrown(() => db.executeStatement({ Statement }));
    expect([e.name, e.message]).toEqual(['ValidationException', message]);
    expect(db.scan({ TableName: 'Items' }).Items).toEqual([{ id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } }]);
  });
});
