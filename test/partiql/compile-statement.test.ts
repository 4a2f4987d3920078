/**
 * What each statement becomes: the expression-API request the engine runs for it (the PartiQL
 * layer adds nothing else, so metering, indexes, conditions and the change log are the
 * operation's own).
 */
import { describe, expect, it } from 'vitest';
import { compileStatement } from '../../src/partiql/compile-statement.js';
import { STATEMENT_CACHE_LIMIT, parseStatement, statementCacheSize } from '../../src/partiql/parse-statement.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs('file');

function compiler() {
  const db = temp.open({ durability: 'relaxed' });
  db.createTable({
    TableName: 'Orders',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [
      { AttributeName: 'c', KeyType: 'HASH' },
      { AttributeName: 'o', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'c', AttributeType: 'S' },
      { AttributeName: 'o', AttributeType: 'N' },
    ],
  });
  return (text: string, parameters: unknown[] = []) => compileStatement(parseStatement(text).statement, parameters, (n) => db.context.catalog.find(n));
}

describe('compiling PartiQL into operation requests', () => {
  const compile = compiler();

  it.each([
    [`SELECT * FROM Orders WHERE c = 'a' AND o = 1`, { op: 'GetItem', request: { TableName: 'Orders', Key: { c: { S: 'a' }, o: { N: '1' } } } }],
    [
      `SELECT x.y[2] FROM Orders WHERE o = ? AND c = 'a'`,
      { op: 'GetItem', request: { TableName: 'Orders', Key: { c: { S: 'a' }, o: { N: '7' } }, ProjectionExpression: '#n0.#n1[2]', ExpressionAttributeNames: { '#n0': 'x', '#n1': 'y' } } },
    ],
    [
      `SELECT * FROM Orders WHERE c = 'a' AND o > 1 AND t = TRUE ORDER BY o DESC`,
      {
        op: 'Query',
        request: {
          TableName: 'Orders',
          KeyConditionExpression: '#n0 = :v0 AND #n1 > :v1',
          FilterExpression: '#n2 = :v2',
          ScanIndexForward: false,
          ExpressionAttributeNames: { '#n0': 'c', '#n1': 'o', '#n2': 't' },
          ExpressionAttributeValues: { ':v0': { S: 'a' }, ':v1': { N: '1' }, ':v2': { BOOL: true } },
        },
      },
    ],
    [
      `SELECT * FROM Orders WHERE c = 'a' OR c = 'b'`,
      { op: 'Scan', request: { TableName: 'Orders', FilterExpression: '(#n0 = :v0 OR #n0 = :v1)', ExpressionAttributeNames: { '#n0': 'c' }, ExpressionAttributeValues: { ':v0': { S: 'a' }, ':v1': { S: 'b' } } } },
    ],
    [
      `SELECT * FROM Orders WHERE c = 'a' AND o > 1 AND o < 5`,
      { op: 'Scan', request: { TableName: 'Orders', FilterExpression: '((#n0 = :v0 AND #n1 > :v1) AND #n1 < :v2)', ExpressionAttributeNames: { '#n0': 'c', '#n1': 'o' }, ExpressionAttributeValues: { ':v0': { S: 'a' }, ':v1': { N: '1' }, ':v2': { N: '5' } } } },
    ],
    [
      `INSERT INTO Orders VALUE {'c': 'a', 'o': 1}`,
      { op: 'PutItem', insert: true, request: { TableName: 'Orders', Item: { c: { S: 'a' }, o: { N: '1' } }, ConditionExpression: 'attribute_not_exists(#n0)', ExpressionAttributeNames: { '#n0': 'c' } } },
    ],
    [
      `UPDATE Orders SET n = n + 1 REMOVE old WHERE c = 'a' AND o = 1 AND n < 9`,
      {
        op: 'UpdateItem',
        request: {
          TableName: 'Orders',
          Key: { c: { S: 'a' }, o: { N: '1' } },
          UpdateExpression: 'SET #n0 = #n0 + :v0 REMOVE #n1',
          ConditionExpression: 'attribute_exists(#n2) AND #n0 < :v1',
          ExpressionAttributeNames: { '#n0': 'n', '#n1': 'old', '#n2': 'c' },
          ExpressionAttributeValues: { ':v0': { N: '1' }, ':v1': { N: '9' } },
        },
      },
    ],
    [`DELETE FROM Orders WHERE c = 'a' AND o = 1`, { op: 'DeleteItem', request: { TableName: 'Orders', Key: { c: { S: 'a' }, o: { N: '1' } } } }],
    [
      `DELETE FROM Orders WHERE c = 'a' AND o = 1 AND n < 9`,
      {
        op: 'DeleteItem',
        request: {
          TableName: 'Orders',
          Key: { c: { S: 'a' }, o: { N: '1' } },
          ConditionExpression: 'attribute_not_exists(#n0) OR (#n1 < :v0)',
          ExpressionAttributeNames: { '#n0': 'c', '#n1': 'n' },
          ExpressionAttributeValues: { ':v0': { N: '9' } },
        },
      },
    ],
  ])('%s', (text, expected) => {
    const parameters = text.includes('?') ? [{ N: '7' }] : [];
    expect(compile(text, parameters)).toEqual(expected);
  });

  it('parses a statement once and caches it by its text, frozen', () => {
    const a = parseStatement(`SELECT * FROM Orders WHERE c = ?`);
    expect(parseStatement(`SELECT * FROM Orders WHERE c = ?`)).toBe(a);
    expect(a.parameterCount).toBe(1);
    expect(Object.isFrozen(a.statement)).toBe(true);
  });

  it('keeps at most STATEMENT_CACHE_LIMIT statements however many distinct texts arrive, the oldest going first', () => {
    const first = parseStatement(`SELECT * FROM Orders WHERE c = 'first'`);
    // Values inlined in the text: every statement is new, as a client building strings makes them.
    for (let i = 0; i < STATEMENT_CACHE_LIMIT * 3; i++) parseStatement(`SELECT * FROM Orders WHERE c = 'v${i}'`);
    expect(statementCacheSize()).toBe(STATEMENT_CACHE_LIMIT);
    const last = `SELECT * FROM Orders WHERE c = 'v${STATEMENT_CACHE_LIMIT * 3 - 1}'`;
    expect(parseStatement(last)).toBe(parseStatement(last));
    expect(parseStatement(`SELECT * FROM Orders WHERE c = 'first'`)).not.toBe(first);
  });

  it.each([
    [`SELECT FROM Orders`, "Statement wasn't well formed, can't be processed: Expected FROM but found 'Orders' at position 12"],
    [`SELECT * FROM Orders WHERE`, "Statement wasn't well formed, can't be processed: Unexpected term"],
    [`UPDATE Orders WHERE c = 'a'`, "Statement wasn't well formed, can't be processed: Expected SET or REMOVE but found 'WHERE' at position 14"],
    [`DROP TABLE Orders`, "Statement wasn't well formed, can't be processed: Expected SELECT, INSERT, UPDATE, DELETE, FROM or EXISTS but found 'DROP' at position 0"],
  ])('rejects %s', (text, message) => {
    expect(() => parseStatement(text)).toThrow(message);
  });
});
