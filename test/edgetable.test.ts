/**
 * The embedded API (src/edgetable.ts): open() on a folder, one camelCase method per operation,
 * execute() by DynamoDB name, close and reopen, and table lifecycles across them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open } from '../src/index.js';
import { OPERATIONS } from '../src/ops/operations.js';
import { expectError, tableRequest, useTempDbs } from './ops/temp-db.js';

const temp = useTempDbs();

describe('open()', () => {
  it('creates the folder on first use and reopens it with its tables', () => {
    const path = join(temp.dir(), 'nested', 'db');
    const db = temp.open({ path });
    expect(existsSync(path)).toBe(true);
    db.createTable(tableRequest('Readings', ['sensorId', 'S'], ['ts', 'N']));
    db.putItem({ TableName: 'Readings', Item: { sensorId: { S: 's-1' }, ts: { N: '1700000000000' }, t: { N: '21.5' } } });
    db.close();
    expect(db.store.closed).toBe(true);

    const again = temp.open({ path });
    expect(again.listTables()).toEqual({ TableNames: ['Readings'] });
    const { Items } = again.query({ TableName: 'Readings', KeyConditionExpression: 'sensorId = :s', ExpressionAttributeValues: { ':s': { S: 's-1' } } });
    expect(Items).toEqual([{ sensorId: { S: 's-1' }, ts: { N: '1700000000000' }, t: { N: '21.5' } }]);
  });

  it('uses the injected clock for CreationDateTime (epoch seconds)', () => {
    const db = temp.open({ now: () => 1_700_000_000_500 });
    const created = db.createTable(tableRequest('Clock', ['id', 'S'])).TableDescription as Record<string, unknown>;
    expect(created.CreationDateTime).toBe(1_700_000_000.5);
    expect(created.TableStatus).toBe('ACTIVE');
  });
});

describe('execute()', () => {
  it('runs every operation by its DynamoDB name, with the same result as the method', () => {
    const db = temp.open();
    expect(Object.keys(OPERATIONS)).toEqual(
      expect.arrayContaining(['BatchGetItem', 'BatchWriteItem', 'CreateTable', 'DeleteItem', 'DeleteTable', 'DescribeTable', 'GetItem', 'ListTables', 'PutItem', 'Query', 'Scan', 'UpdateItem', 'UpdateTable']),
    );
    db.execute('CreateTable', tableRequest('Exec', ['id', 'S']));
    db.execute('PutItem', { TableName: 'Exec', Item: { id: { S: 'a' }, n: { N: '1' } } });
    db.execute('UpdateItem', { TableName: 'Exec', Key: { id: { S: 'a' } }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } });
    expect(db.execute('GetItem', { TableName: 'Exec', Key: { id: { S: 'a' } } })).toEqual(db.getItem({ TableName: 'Exec', Key: { id: { S: 'a' } } }));
    expect(db.execute('GetItem', { TableName: 'Exec', Key: { id: { S: 'a' } } })).toEqual({ Item: { id: { S: 'a' }, n: { N: '2' } } });
    expect(db.execute('Scan', { TableName: 'Exec' })).toMatchObject({ Count: 1, ScannedCount: 1 });
    expect(db.execute('ListTables', {})).toEqual({ TableNames: ['Exec'] });
    db.execute('DeleteTable', { TableName: 'Exec' });
    expectError(() => db.execute('DescribeTable', { TableName: 'Exec' }), 'ResourceNotFoundException', 'Requested resource not found: Table: Exec not found');
  });
});

describe('table lifecycle', () => {
  it('a table deleted and created again under the same name starts empty, also after reopening', () => {
    const path = join(temp.dir(), 'db');
    const db = temp.open({ path });
    db.createTable(tableRequest('Cycle', ['id', 'S'], undefined, 3));
    for (let i = 0; i < 10; i++) db.putItem({ TableName: 'Cycle', Item: { id: { S: `old${i}` } } });
    const deleted = db.deleteTable({ TableName: 'Cycle' }).TableDescription as Record<string, unknown>;
    expect(deleted.TableStatus).toBe('DELETING');
    expect(deleted.ItemCount).toBe(10);
    expect(db.listTables().TableNames).toEqual([]);
    expectError(() => db.getItem({ TableName: 'Cycle', Key: { id: { S: 'old1' } } }), 'ResourceNotFoundException', 'Requested resource not found');

    db.createTable(tableRequest('Cycle', ['id', 'S'], undefined, 2));
    expect(db.scan({ TableName: 'Cycle' }).Count).toBe(0);
    db.putItem({ TableName: 'Cycle', Item: { id: { S: 'new' } } });
    expect(db.getItem({ TableName: 'Cycle', Key: { id: { S: 'old1' } } })).toEqual({});
    expect(db.describeTable({ TableName: 'Cycle' }).Table.ItemCount).toBe(1);
    db.close();

    const again = temp.open({ path });
    expect(again.scan({ TableName: 'Cycle' }).Items).toEqual([{ id: { S: 'new' } }]);
    expect(again.describeTable({ TableName: 'Cycle' }).Table.ItemCount).toBe(1);
  });

  it('accepts a table ARN as TableName and echoes it in ConsumedCapacity', () => {
    const db = temp.open();
    const arn = db.createTable(tableRequest('Arned', ['id', 'S'])).TableDescription.TableArn;
    expect(arn).toMatch(/^arn:aws:dynamodb:[^:]*:[^:]*:table\/Arned$/);
    const put = db.putItem({ TableName: arn, Item: { id: { S: 'x' } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(put.ConsumedCapacity).toEqual({ TableName: arn, CapacityUnits: 1 });
    const got = db.getItem({ TableName: arn, Key: { id: { S: 'x' } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(got).toEqual({ Item: { id: { S: 'x' } }, ConsumedCapacity: { TableName: arn, CapacityUnits: 0.5 } });
    expect(db.scan({ TableName: arn, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual({ TableName: arn, CapacityUnits: 0.5 });
    expect(db.query({ TableName: arn, KeyConditionExpression: 'id = :x', ExpressionAttributeValues: { ':x': { S: 'x' } }, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual({
      TableName: arn,
      CapacityUnits: 0.5,
    });
    expect(db.updateItem({ TableName: arn, Key: { id: { S: 'x' } }, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual({ TableName: arn, CapacityUnits: 1 });
    const batch = db.batchWriteItem({ RequestItems: { [arn]: [{ PutRequest: { Item: { id: { S: 'y' } } } }] }, ReturnConsumedCapacity: 'TOTAL' });
    expect(batch.ConsumedCapacity).toEqual([{ TableName: arn, CapacityUnits: 1 }]);
    const fetched = db.batchGetItem({ RequestItems: { [arn]: { Keys: [{ id: { S: 'y' } }] } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(fetched.Responses).toEqual({ [arn]: [{ id: { S: 'y' } }] });
    expect(fetched.ConsumedCapacity).toEqual([{ TableName: arn, CapacityUnits: 0.5 }]);
    expect(db.deleteItem({ TableName: arn, Key: { id: { S: 'x' } }, ReturnConsumedCapacity: 'TOTAL' }).ConsumedCapacity).toEqual({ TableName: arn, CapacityUnits: 1 });
    expect(db.describeTable({ TableName: arn }).Table.TableName).toBe('Arned');
  });

  it('survives being closed while tables are cached, and refuses work once closed', () => {
    const path = join(temp.dir(), 'db');
    const db = open({ path });
    db.createTable(tableRequest('Closing', ['id', 'S']));
    db.close();
    expect(() => db.getItem({ TableName: 'Closing', Key: { id: { S: 'a' } } })).toThrow(/closed/);
    const again = temp.open({ path });
    expect(again.describeTable({ TableName: 'Closing' }).Table.ItemCount).toBe(0);
  });
});
