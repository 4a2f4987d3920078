/**
 * DynamoDB's two kinds of ValidationException (spec §8.4). The request model's constraints
 * (required members, lengths, ranges, enumerations, patterns) answer in the aggregated
 * `N validation error(s) detected: Value '...' at '...' failed to satisfy constraint: ...` form.
 * The semantic checks that run after them (expression syntax and placeholders, set members,
 * NULL:false, legacy conditions, ReturnValues, number literals, data-dependent rules) answer a
 * bare message, the same on every operation. Each case sends the same bad input to PutItem,
 * UpdateItem, DeleteItem and Query and proves nothing was written.
 */import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import type { DynamoRequest } from '../../src/ops/operations.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

const VALIDATION = 'ValidationException';

type Op = 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';
const OPS: readonly Op[] = ['PutItem', 'UpdateItem', 'DeleteItem', 'Query'];

/** A valid request of each operation; each case adds its bad input to it. */
const BASE: Record<Op, DynamoRequest> = {
  PutItem: { TableName: 'Tbl', Item: { pk: { S: 'new' } } },
  UpdateItem: { TableName: 'Tbl', Key: { pk: { S: 'new' } }, UpdateExpression: 'SET v = :u', ExpressionAttributeValues: { ':u': { S: 'x' } } },
  DeleteItem: { TableName: 'Tbl', Key: { pk: { S: 'old' } } },
  Query: { TableName: 'Tbl', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'old' } } },
};

/** The bytes BASE[op]'s own ExpressionAttributeValues add to the 2 MB count: key + value size. */
const BASE_VALUE_BYTES: Record<Op, number> = { PutItem: 0, UpdateItem: 2 + 1, DeleteItem: 0, Query: 2 + 3 };

/** BASE[op] with a condition (a filter on Query) and its names and values merged in. */
function withCondition(op: Op, expression: string, names?: Record<string, string>, values?: Record<string, unknown>): DynamoRequest {
  const base = BASE[op];
  const mergedValues = { ...(base.ExpressionAttributeValues as object | undefined), ...values };
  return {
    ...base,
    [op === 'Query' ? 'FilterExpression' : 'ConditionExpression']: expression,
    ...(names ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(mergedValues).length > 0 ? { ExpressionAttributeValues: mergedValues } : {}),
  };
}

/** The expression label DynamoDB puts in front of expression errors. */
const kindOf = (op: Op) => (op === 'Query' ? 'FilterExpression' : 'ConditionExpression');

/** Sends `request` as `op`, expects `message` exactly, and checks that the table is unchanged. */
function rejects(op: Op, request: DynamoRequest, message: string): void {
  const before = db.scan({ TableName: 'Tbl', ConsistentRead: true }).Items;
  expectError(() => db.execute(op, request), VALIDATION, message);
  expect(db.scan({ TableName: 'Tbl', ConsistentRead: true }).Items).toEqual(before);
}

beforeEach(() => {
  db = temp.open();
  db.createTable(tableRequest('Tbl', ['pk', 'S']));
  db.putItem({ TableName: 'Tbl', Item: { pk: { S: 'old' }, v: { S: 'kept' } } });
});

/** A semantic check: the same bare message on the item writes and on Query. */
const SEMANTIC_CHECKS: { check: string; request: (op: Op) => DynamoRequest; bare: (op: Op) => string }[] = [
  {
    check: 'an empty set',
    request: (op) => withCondition(op, 'v = :s', undefined, { ':s': { SS: [] } }),
    bare: () => 'One or more parameter values were invalid: An string set  may not be empty',
  },
  {
    check: 'a set with duplicate members',
    request: (op) => withCondition(op, 'v = :s', undefined, { ':s': { NS: ['1', '1.0'] } }),
    bare: () => 'One or more parameter values were invalid: Input collection contains duplicates.',
  },
  {
    check: 'NULL: false',
    request: (op) => withCondition(op, 'v = :s', undefined, { ':s': { NULL: false } }),
    bare: () => 'One or more parameter values were invalid: Null attribute value types must have the value of true',
  },
  {
    check: 'an expression syntax error',
    request: (op) => withCondition(op, 'v = = v'),
    bare: (op) => `Invalid ${kindOf(op)}: Syntax error; token: "=", near: "= = v"`,
  },
  {
    check: 'an empty expression',
    request: (op) => withCondition(op, ' '),
    bare: (op) => `Invalid ${kindOf(op)}: The expression can not be empty;`,
  },
  {
    check: 'an expression over 4 KB',
    request: (op) => withCondition(op, `attribute_exists(${'a'.repeat(4100)})`),
    bare: (op) => `Invalid ${kindOf(op)}: Expression size has exceeded the maximum allowed size; expression size: 4118`,
  },
  {
    check: 'too many operators',
    request: (op) => withCondition(op, Array.from({ length: 151 }, () => 'v = w').join(' AND ')),
    bare: (op) => `Invalid ${kindOf(op)}: The expression contains too many operators; operator count: 301`,
  },
  {
    check: 'redundant parentheses',
    request: (op) => withCondition(op, '((v = w))'),
    bare: (op) => `Invalid ${kindOf(op)}: The expression has redundant parentheses;`,
  },
  {
    check: "contains' distinct operands",
    request: (op) => withCondition(op, 'contains(v, v)'),
    bare: (op) => `Invalid ${kindOf(op)}: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [v]`,
  },
  {
    check: 'an unused ExpressionAttributeNames entry',
    request: (op) => withCondition(op, 'attribute_exists(v)', { '#x': 'x' }),
    bare: () => 'Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}',
  },
  {
    check: 'an unused ExpressionAttributeValues entry',
    request: (op) => withCondition(op, 'attribute_exists(v)', undefined, { ':unused': { S: 'u' } }),
    bare: () => 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}',
  },
  {
    check: 'an undefined name placeholder',
    request: (op) => withCondition(op, 'attribute_exists(#nope)'),
    bare: (op) => `Invalid ${kindOf(op)}: An expression attribute name used in the document path is not defined; attribute name: #nope`,
  },
  {
    check: 'an undefined value placeholder',
    request: (op) => withCondition(op, 'v = :nope'),
    bare: (op) => `Invalid ${kindOf(op)}: An expression attribute value used in expression is not defined; attribute value: :nope`,
  },
  {
    check: 'an empty ExpressionAttributeNames',
    request: (op) => withCondition(op, 'attribute_exists(v)', {}),
    bare: () => 'ExpressionAttributeNames must not be empty',
  },
  {
    check: 'an invalid ExpressionAttributeNames key',
    request: (op) => withCondition(op, 'attribute_exists(v)', { 'no-sigil': 'x' }),
    bare: () => 'ExpressionAttributeNames contains invalid key: Syntax error; key: "no-sigil"',
  },
  {
    check: 'a placeholder over 255 bytes',
    request: (op) => withCondition(op, `attribute_exists(#${'n'.repeat(255)})`, { [`#${'n'.repeat(255)}`]: 'v' }),
    bare: () => 'ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256',
  },
  {
    check: 'names and values over 2 MB together',
    request: (op) => withCondition(op, 'v = :big', undefined, { ':big': { S: 'x'.repeat(2 * 1024 * 1024) } }),
    bare: (op) => `ExpressionAttributeNames and ExpressionAttributeValues together exceed the maximum allowed size of 2097152 bytes; size: ${2 * 1024 * 1024 + 4 + BASE_VALUE_BYTES[op]}`,
  },
];

describe('semantic checks: a bare message on every operation', () => {
  for (const { check, request, bare } of SEMANTIC_CHECKS) {
    it(check, () => {
      for (const op of OPS) {
        rejects(op, request(op), `${bare(op)}`);
      }
    });
  }

  it("sets and NULL: false in PutItem's Item", () => {
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: 'new' }, s: { SS: [] } } }, `One or more parameter values were invalid: An string set  may not be empty`);
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: 'new' }, s: { SS: ['a', 'a'] } } }, `One or more parameter values were invalid: Input collection ["a", "a"] contains duplicates.`);
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: 'new' }, z: { NULL: false } } }, `One or more parameter values were invalid: Null attribute value types must have the value of true`);
  });

  it('update expression errors on UpdateItem', () => {
    const update = (expression: string) => ({ ...BASE.UpdateItem, UpdateExpression: expression });
    rejects('UpdateItem', update('SET v = :u,'), `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","`);
    rejects('UpdateItem', update('SET v = :nope'), `Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope`);
  });

  it('legacy and expression parameters mixed', () => {
    const mixed = (op: Op) => ({ ...withCondition(op, 'attribute_exists(v)'), Expected: { v: { Exists: false } } });
    const bare = 'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}';
    rejects('PutItem', mixed('PutItem'), bare);
    rejects('DeleteItem', mixed('DeleteItem'), bare);
  });

  it('ExpressionAttributeValues without an expression', () => {
    const request = (op: Op) => ({ ...BASE[op], ExpressionAttributeValues: { ':a': { S: 'a' } } });
    rejects('PutItem', request('PutItem'), `ExpressionAttributeValues can only be specified when using expressions`);
    rejects('DeleteItem', request('DeleteItem'), `ExpressionAttributeValues can only be specified when using expressions`);
  });

  it('a ReturnValues the operation does not take', () => {
    rejects('PutItem', { ...BASE.PutItem, ReturnValues: 'ALL_NEW' }, `ReturnValues can only be ALL_OLD or NONE`);
    rejects('DeleteItem', { ...BASE.DeleteItem, ReturnValues: 'ALL_NEW' }, `ReturnValues can only be ALL_OLD or NONE`);
    rejects('DeleteItem', { ...BASE.DeleteItem, ReturnValues: 'UPDATED_NEW' }, `ReturnValues can only be ALL_OLD or NONE`);
  });

  it('ExpressionAttributeNames without an expression, beside Expected too', () => {
    const message = `ExpressionAttributeNames can only be specified when using expressions`;
    for (const op of ['PutItem', 'DeleteItem'] as const) {
      rejects(op, { ...BASE[op], ExpressionAttributeNames: { '#a': 'a' } }, message);
      rejects(op, { ...BASE[op], Expected: { a: { Exists: false } }, ExpressionAttributeNames: { '#a': 'a' } }, message);
    }
  });

  it('an empty ExpressionAttributeValues map and an empty ConditionExpression on DeleteItem', () => {
    rejects('DeleteItem', { ...BASE.DeleteItem, ConditionExpression: 'attribute_exists(v)', ExpressionAttributeValues: {} }, `ExpressionAttributeValues must not be empty`);
    rejects('DeleteItem', { ...BASE.DeleteItem, ConditionExpression: '' }, `Invalid ConditionExpression: The expression can not be empty;`);
  });

  it('every malformed Expected entry on PutItem, UpdateItem and DeleteItem', () => {
    const invalidValues = 'One or more parameter values were invalid: ';
    const cases: [Record<string, unknown>, string][] = [
      [{ Exists: true }, 'Value must be provided when Exists is true for Attribute: a'],
      [{ Exists: false, Value: { S: 'x' } }, 'Value cannot be used when Exists is false for Attribute: a'],
      [{ Value: { S: 'x' }, ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'x' }] }, 'Value and AttributeValueList cannot be used together for Attribute: a'],
      [{ ComparisonOperator: 'EQ' }, 'Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a'],
      [{ ComparisonOperator: 'BETWEEN', AttributeValueList: [{ S: 'x' }] }, 'Invalid number of argument(s) for the BETWEEN ComparisonOperator'],
    ];
    for (const op of ['PutItem', 'UpdateItem', 'DeleteItem'] as const) {
      const base = op === 'UpdateItem' ? { TableName: 'Tbl', Key: { pk: { S: 'old' } }, AttributeUpdates: { v: { Action: 'PUT', Value: { S: 'y' } } } } : BASE[op];
      for (const [entry, message] of cases) rejects(op, { ...base, Expected: { a: entry } }, `${invalidValues}${message}`);
    }
  });

  it('legacy conditions stay bare on the reads', () => {
    rejects('Query', { TableName: 'Tbl', KeyConditions: { pk: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ S: 'x' }] } } }, 'One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator');
  });

  it('the same families inside BatchWriteItem and TransactWriteItems stay bare', () => {
    const emptySet = 'One or more parameter values were invalid: An string set  may not be empty';
    expectError(() => db.batchWriteItem({ RequestItems: { Tbl: [{ PutRequest: { Item: { pk: { S: 'new' }, s: { SS: [] } } } }] } }), VALIDATION, emptySet);
    expectError(
      () => db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Tbl', Item: { pk: { S: 'new' } }, ConditionExpression: 'contains(v, v)' } }] }),
      VALIDATION,
      'Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [v]',
    );
    expect(db.scan({ TableName: 'Tbl' }).Count).toBe(1);
  });
});

describe('number literals: bare on every operation', () => {
  const NOT_NUMERIC = 'The parameter cannot be converted to a numeric value';
  const OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';

  it('in ExpressionAttributeValues, with no ExpressionAttributeValues wrapper', () => {
    for (const op of OPS) {
      rejects(op, withCondition(op, 'v = :n', undefined, { ':n': { N: 'abc' } }), `${NOT_NUMERIC}: abc`);
      rejects(op, withCondition(op, 'v = :n', undefined, { ':n': { N: '' } }), `${NOT_NUMERIC}: `);
      rejects(op, withCondition(op, 'v = :n', undefined, { ':n': { N: '1e2147483647' } }), `${OVERFLOW}`);
    }
  });

  it('in items, keys and legacy parameters', () => {
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: 'new' }, n: { M: { x: { L: [{ N: '1e126' }] } } } } }, OVERFLOW);
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: 'new' } }, Expected: { n: { Value: { N: ' 1' } } } }, `${NOT_NUMERIC}:  1`);
    rejects('UpdateItem', { TableName: 'Tbl', Key: { pk: { S: 'new' } }, AttributeUpdates: { n: { Action: 'PUT', Value: { NS: ['1', 'x'] } } } }, `${NOT_NUMERIC}: x`);
    rejects('DeleteItem', { TableName: 'Tbl', Key: { pk: { N: 'abc' } } }, `${NOT_NUMERIC}: abc`);
    expectError(() => db.getItem({ TableName: 'Tbl', Key: { pk: { N: 'abc' } } }), VALIDATION, `${NOT_NUMERIC}: abc`);
    expectError(() => db.batchGetItem({ RequestItems: { Tbl: { Keys: [{ pk: { N: '' } }] } } }), VALIDATION, `${NOT_NUMERIC}: `);
  });

  it('BatchWriteItem and transactions: bare, in the older wording', () => {
    const UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';
    const put = (n: string) => () => db.batchWriteItem({ RequestItems: { Tbl: [{ PutRequest: { Item: { pk: { S: 'new' }, n: { N: n } } } }] } });
    expectError(put('abc'), VALIDATION, `${NOT_NUMERIC}: abc`);
    expectError(put(''), VALIDATION, NOT_NUMERIC);
    expectError(put('1e126'), VALIDATION, OVERFLOW);
    expectError(put('1e2147483647'), VALIDATION, UNDERFLOW);
    const update = (n: string) => () =>
      db.transactWriteItems({
        TransactItems: [{ Update: { TableName: 'Tbl', Key: { pk: { S: 'new' } }, UpdateExpression: 'SET n = :v', ExpressionAttributeValues: { ':v': { N: n } } } }],
      });
    const forKey = (m: string) => `ExpressionAttributeValues contains invalid value: ${m} for key :v`;
    expectError(update('abc'), VALIDATION, forKey(`${NOT_NUMERIC}: abc`));
    expectError(update(''), VALIDATION, forKey(NOT_NUMERIC));
    expectError(update('1e2147483647'), VALIDATION, forKey(UNDERFLOW));
    expectError(() => db.transactGetItems({ TransactItems: [{ Get: { TableName: 'Tbl', Key: { pk: { N: '' } } } }] }), VALIDATION, NOT_NUMERIC);
    expect(db.scan({ TableName: 'Tbl' }).Count).toBe(1);
  });
});

describe('data-dependent families: bare on every operation', () => {
  it('an empty AttributeValue in ExpressionAttributeValues, with no ExpressionAttributeValues wrapper', () => {
    for (const op of OPS) {
      rejects(op, withCondition(op, 'v = :n', undefined, { ':n': {} }), 'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes');
    }
  });

  it('key type mismatches, empty key values, key updates, invalid update paths, oversize items', () => {
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { N: '1' } } }, 'One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N');
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: '' } } }, 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk');
    rejects('PutItem', { TableName: 'Tbl', Item: { pk: { S: 'new' }, big: { S: 'x'.repeat(409_600) } } }, 'Item size has exceeded the maximum allowed size');
    rejects('UpdateItem', { ...BASE.UpdateItem, UpdateExpression: 'SET pk = :u' }, 'One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key');
    rejects('UpdateItem', { ...BASE.UpdateItem, Key: { pk: { S: 'old' } }, UpdateExpression: 'SET m.x = :u' }, 'The document path provided in the update expression is invalid for update');
    rejects('UpdateItem', { ...BASE.UpdateItem, Key: { pk: { S: 'old' } }, UpdateExpression: 'SET v = nope + :n', ExpressionAttributeValues: { ':n': { N: '1' } } }, 'The provided expression refers to an attribute that does not exist in the item');
  });
});

describe('request-model constraints: in the `N validation error(s) detected` envelope, once', () => {
  it('PutItem and UpdateItem', () => {
    const enumError = "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]";
    rejects('PutItem', { ...BASE.PutItem, ReturnValues: 'BOGUS' }, enumError);
    rejects('UpdateItem', { ...BASE.UpdateItem, ReturnValues: 'BOGUS' }, enumError);
  });
});
