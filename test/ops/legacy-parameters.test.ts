import { describe, expect, it } from 'vitest';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const dbs = useTempDbs();

function seeded() {
  const db = dbs.open();
  db.createTable(tableRequest('Logs', ['sensor', 'S'], ['ts', 'N'], 2));
  for (let ts = 1; ts <= 5; ts++) db.putItem({ TableName: 'Logs', Item: { sensor: { S: 's1' }, ts: { N: String(ts) }, v: { N: String(ts * 10) } } });
  return db;
}

describe('legacy parameters reach the same evaluator as expressions', () => {
  it('Query with KeyConditions, QueryFilter and AttributesToGet', () => {
    const db = seeded();
    const out = db.query({
      TableName: 'Logs',
      KeyConditions: {
        sensor: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 's1' }] },
        ts: { ComparisonOperator: 'BETWEEN', AttributeValueList: [{ N: '2' }, { N: '4' }] },
      },
      QueryFilter: { v: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '20' }] } },
      AttributesToGet: ['ts'],
    });
    expect(out.Items).toEqual([{ ts: { N: '3' } }, { ts: { N: '4' } }]);
    expect(out.ScannedCount).toBe(3);
  });

  it('PutItem with Expected fails and writes nothing when the item exists', () => {
    const db = seeded();
    expectError(
      () => db.putItem({ TableName: 'Logs', Item: { sensor: { S: 's1' }, ts: { N: '1' }, v: { N: '0' } }, Expected: { sensor: { Exists: false } } }),
      'ConditionalCheckFailedException',
      'The conditional request failed',
    );
    expect(db.getItem({ TableName: 'Logs', Key: { sensor: { S: 's1' }, ts: { N: '1' } } }).Item?.v).toEqual({ N: '10' });
  });

  it('UpdateItem with AttributeUpdates ADD and PUT', () => {
    const db = seeded();
    const out = db.updateItem({
      TableName: 'Logs',
      Key: { sensor: { S: 's1' }, ts: { N: '2' } },
      AttributeUpdates: { v: { Action: 'ADD', Value: { N: '5' } }, note: { Action: 'PUT', Value: { S: 'ok' } } },
      ReturnValues: 'ALL_NEW',
    });
    expect(out.Attributes).toEqual({ sensor: { S: 's1' }, ts: { N: '2' }, v: { N: '25' }, note: { S: 'ok' } });
  });

  it('Scan with ScanFilter', () => {
    const db = seeded();
    expect(db.scan({ TableName: 'Logs', ScanFilter: { v: { ComparisonOperator: 'LE', AttributeValueList: [{ N: '20' }] } } }).Count).toBe(2);
  });

  it('rejects legacy parameters mixed with expressions, changing nothing', () => {
    const db = seeded();
    expectError(
      () => db.putItem({ TableName: 'Logs', Item: { sensor: { S: 's1' }, ts: { N: '9' } }, Expected: { v: { Exists: false } }, ConditionExpression: 'attribute_not_exists(v)' }),
      'ValidationException',
      // Parameter misuse is a semantic check: bare (docs/decisions/003).
      'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}',
    );
    expect(db.scan({ TableName: 'Logs', Select: 'COUNT' }).Count).toBe(5);
  });

  it('names QueryFilter in the key-attribute message', () => {
    const db = seeded();
    expectError(
      () => db.query({
        TableName: 'Logs',
        KeyConditions: { sensor: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 's1' }] } },
        QueryFilter: { ts: { ComparisonOperator: 'GT', AttributeValueList: [{ N: '1' }] } },
      }),
      'ValidationException',
      'QueryFilter can only contain non-primary key attributes: Primary key attribute: ts',
    );
  });
});
