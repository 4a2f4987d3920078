/**
 * Query's request rules as a specification of their order (spec §6.3, §7.4): everything the
 * request alone decides, its expressions included, is reported before the table is looked up.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs('file');
let db: Edgetable;

beforeAll(() => {
  db = temp.open();
  db.createTable(tableRequest('Tbl', ['pk', 'S'], ['sk', 'S']));
});

const OPERAND_N = 'Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N';

describe('Query: expression errors before the table lookup', () => {
  it.each([
    ['an operand type error in the key condition', { KeyConditionExpression: 'pk = :p AND begins_with(sk, :n)', ExpressionAttributeValues: { ':p': { S: 'q' }, ':n': { N: '1' } } }, OPERAND_N],
    ['a filter syntax error', { KeyConditionExpression: 'pk = :p', FilterExpression: 'a = = b', ExpressionAttributeValues: { ':p': { S: 'q' } } }, 'Invalid FilterExpression: Syntax error; token: "=", near: "= = b"'],
    ['an unused value', { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'q' }, ':u': { S: 'u' } } }, 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}'],
  ])('reports %s on a missing table', (_name, request, message) => {
    expectError(() => db.execute('Query', { TableName: 'Gone', ...request }), 'ValidationException', message);
  });

  it('reports the missing table when the request is well formed', () => {
    const request = { TableName: 'Gone', KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)', ExpressionAttributeValues: { ':p': { S: 'q' }, ':s': { S: 'a' } } };
    expectError(() => db.execute('Query', request), 'ResourceNotFoundException', 'Requested resource not found');
  });

  it('still checks the key condition against the schema of an existing table', () => {
    const request = { TableName: 'Tbl', KeyConditionExpression: 'pk = :p AND sk = :n', ExpressionAttributeValues: { ':p': { S: 'q' }, ':n': { N: '1' } } };
    expectError(() => db.execute('Query', request), 'ValidationException', 'One or more parameter values were invalid: Condition parameter type does not match schema type');
  });
});

describe('Query: an unknown ConditionalOperator', () => {
  it('is reported alone and bare, ahead of an unknown Select, in the newer enum wording', () => {
    const request = {
      TableName: 'Gone',
      KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] } },
      QueryFilter: { b: { ComparisonOperator: 'NULL' }, c: { ComparisonOperator: 'NULL' } },
      ConditionalOperator: 'XOR',
      Select: 'BOGUS',
    };
    expectError(() => db.execute('Query', request), 'ValidationException', 'Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]');
  });
});
