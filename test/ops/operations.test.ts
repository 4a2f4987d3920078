/**
 * The operation table (src/ops/operations.ts) is the one list of operations: the facade's methods,
 * db.promises' methods and its read/write routing, the write group and the wire adapter's target
 * names all come from it.
 */
import { describe, expect, it } from 'vitest';
import { OPERATIONS, OPERATION_NAMES, OPERATION_TABLE, isOperationName, methodName } from '../../src/ops/operations.js';
import { GROUPABLE_OPERATIONS } from '../../src/ops/write/write-group.js';
import { Edgetable } from '../../src/edgetable.js';
import { EdgetablePromises } from '../../src/edgetable-promises.js';
import { useTempDbs } from './temp-db.js';

const temp = useTempDbs();

describe('the operation table', () => {
  it('names every DynamoDB operation once, each with a handler', () => {
    expect(OPERATION_NAMES).toHaveLength(22);
    for (const name of OPERATION_NAMES) expect(typeof OPERATIONS[name]).toBe('function');
    expect(isOperationName('PutItem')).toBe(true);
    expect(isOperationName('toString')).toBe(false); // own names only, not the prototype's
    expect(isOperationName('ExecuteStatement')).toBe(false); // PartiQL has its own table
  });

  it('gives the facade and db.promises one camelCase method per operation, and nothing else', () => {
    for (const name of OPERATION_NAMES) {
      expect(typeof Object.getOwnPropertyDescriptor(Edgetable.prototype, methodName(name))?.value).toBe('function');
      expect(typeof Object.getOwnPropertyDescriptor(EdgetablePromises.prototype, methodName(name))?.value).toBe('function');
    }
    expect(methodName('TransactWriteItems')).toBe('transactWriteItems');
  });

  it('lets exactly the item writes share a write group', () => {
    const itemWrites = OPERATION_NAMES.filter((n) => OPERATION_TABLE[n].kind === 'item-write');
    expect([...itemWrites].sort()).toEqual([...GROUPABLE_OPERATIONS].sort());
  });

  it('runs the facade methods through the table: typed request in, api/ output out', async () => {
    const db = temp.open();
    db.createTable({ TableName: 'Things', AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' });
    db.putItem({ TableName: 'Things', Item: { id: { S: 'a' }, b: { B: new Uint8Array([1, 2]) } } });
    expect(db.getItem({ TableName: 'Things', Key: { id: { S: 'a' } } }).Item).toEqual({ id: { S: 'a' }, b: { B: 'AQI=' } });
    expect((await db.promises.getItem({ TableName: 'Things', Key: { id: { S: 'a' } } })).Item?.['id']).toEqual({ S: 'a' });
    expect(db.execute('Query', { TableName: 'Things', KeyConditionExpression: 'id = :v', ExpressionAttributeValues: { ':v': { S: 'a' } } }).Count).toBe(1);
  });

  it('calls an operation without a request (or with undefined, as a default parameter) with {}', async () => {
    const db = temp.open();
    expect(db.listTables().TableNames).toEqual([]);
    expect(db.describeLimits(undefined).TableMaxReadCapacityUnits).toBe(40_000);
    expect((await db.promises.listTables()).TableNames).toEqual([]);
    expect(() => db.describeTable(undefined as never)).toThrow(expect.objectContaining({ name: 'ValidationException' }));
    expect(() => db.describeTable(null as never)).toThrow(expect.objectContaining({ name: 'SerializationException' }));
  });
});
