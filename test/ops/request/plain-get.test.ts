/**
 * The plain GetItem (src/ops/request/plain-get.ts), a property of its typed request: which typed
 * requests are plain, which Keys are encoded as they are, and that a request answers the same,
 * result, capacity and errors, whether or not it is plain.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { KeyValue } from '../../../src/model/attribute-value.js';
import type { PrimaryKeySchema } from '../../../src/model/key-schema.js';
import type { Edgetable } from '../../../src/edgetable.js';
import { isPlainGet, plainKey } from '../../../src/ops/request/plain-get.js';
import { parseGetItemRequest } from '../../../src/ops/request/get-item-request.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';
import { createRng } from '../../reliability/harness/rng.js';

const schema: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } };

function keyOf(key: object): KeyValue[] | undefined {
  const out: KeyValue[] = [];
  return plainKey(schema, key, out) ? out : undefined;
}

describe('isPlainGet', () => {
  const Key = { pk: { S: 'a' } };

  it('holds for a typed request without a projection, whatever else it states', () => {
    for (const request of [
      { TableName: 'Items', Key },
      { TableName: 'Items', Key, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' },
      { TableName: 'arn:aws:dynamodb:us-east-1:1:table/Items', Key },
      { TableName: 'Items', Key: { pk: { S: 'a' }, sk: { N: '01' } } }, // the Key is the table's question (plainKey)
    ]) {
      expect(isPlainGet(parseGetItemRequest(request)), JSON.stringify(request)).toBe(true);
    }
  });

  it('does not hold for a typed request with a member compileRequest reads', () => {
    for (const request of [
      { TableName: 'Items', Key, ProjectionExpression: 'pk' },
      { TableName: 'Items', Key, ProjectionExpression: '#p', ExpressionAttributeNames: { '#p': 'pk' } },
      { TableName: 'Items', Key, AttributesToGet: ['pk'] },
    ]) {
      expect(isPlainGet(parseGetItemRequest(request)), JSON.stringify(request)).toBe(false);
    }
  });
});

describe('plainKey', () => {
  it('returns the key values as given, partition key first', () => {
    const pk = { S: 'a' };
    const sk = { N: '-1.5' };
    const values = keyOf({ sk, pk });
    expect(values).toHaveLength(2);
    expect(values![0]).toBe(pk);
    expect(values![1]).toBe(sk);
  });

  it('refuses keys the general path would report or convert', () => {
    for (const key of [
      { pk: { S: 'a' } },
      { pk: { S: 'a' }, sk: { N: '1' }, x: { S: 'b' } },
      { pk: { S: 'a' }, other: { N: '1' } },
      { pk: { N: '1' }, sk: { N: '1' } },
      { pk: { S: '' }, sk: { N: '1' } },
      { pk: { S: '\ud800' }, sk: { N: '1' } },
      { pk: { S: 'x'.repeat(400) }, sk: { N: '1' } },
      { pk: { S: 'a' }, sk: { N: '1.50' } },
      { pk: { S: 'a' }, sk: { N: '01' } },
      { pk: { S: 'a' }, sk: { N: 'one' } },
      { pk: { S: 'a' }, sk: { N: 1 } },
      { pk: { S: 'a', N: '1' }, sk: { N: '1' } },
      { pk: { S: 'a' }, sk: null },
      { pk: [{ S: 'a' }], sk: { N: '1' } },
      Object.assign(Object.create({ sk: { N: '1' } }), { pk: { S: 'a' } }),
      { pk: Object.create({ S: 'a' }), sk: { N: '1' } },
    ]) {
      expect(keyOf(key), JSON.stringify(key)).toBeUndefined();
    }
  });
});

describe('GetItem answers the same through either path', () => {
  const temp = useTempDbs();
  let db: Edgetable;
  beforeEach(() => {
    db = temp.open();
    db.createTable(tableRequest('Items', ['pk', 'S'], ['sk', 'N'], 4));
    db.putItem({ TableName: 'Items', Item: { pk: { S: 'a' }, sk: { N: '1.5' }, v: { S: 'x'.repeat(5000) } } });
  });

  it('finds an item by a canonical number and by a form that needs canonicalising', () => {
    const plain = db.getItem({ TableName: 'Items', Key: { pk: { S: 'a' }, sk: { N: '1.5' } }, ReturnConsumedCapacity: 'TOTAL' });
    const general = db.getItem({ TableName: 'Items', Key: { pk: { S: 'a' }, sk: { N: '1.50' } }, ReturnConsumedCapacity: 'TOTAL' });
    expect(plain.Item?.v).toEqual({ S: 'x'.repeat(5000) });
    expect(general).toEqual(plain);
    expect(plain.ConsumedCapacity).toEqual({ TableName: 'Items', CapacityUnits: 1 });
    const strong = db.getItem({ TableName: 'Items', Key: { pk: { S: 'a' }, sk: { N: '1.5' } }, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' });
    expect(strong.ConsumedCapacity).toEqual({ TableName: 'Items', CapacityUnits: 2 });
    expect(db.getItem({ TableName: 'Items', Key: { pk: { S: 'b' }, sk: { N: '1' } }, ReturnConsumedCapacity: 'TOTAL' })).toEqual({
      ConsumedCapacity: { TableName: 'Items', CapacityUnits: 0.5 },
    });
    expect(db.getItem({ TableName: 'Items', Key: { pk: { S: 'b' }, sk: { N: '1' } } })).toEqual({});
  });

  it('reports a malformed Key before an unknown table, and an unknown table before the key rules', () => {
    expectError(() => db.getItem({ TableName: 'Missing', Key: { pk: { S: 1 } } } as never), 'SerializationException', 'NUMBER_VALUE cannot be converted to String');
    expectError(() => db.getItem({ TableName: 'Missing', Key: { pk: { S: 'a' } } }), 'ResourceNotFoundException', 'Requested resource not found');
    expectError(() => db.getItem({ TableName: 'Items', Key: { pk: { S: 'a' } } }), 'ValidationException', 'The provided key element does not match the schema');
  });

  it('answers every request alike whether its common members are walked once or the schema pass takes it (seeded)', () => {
    // A member stated as undefined is absent to every check, but no longer of the common walk's
    // shape: the same request is then parsed by the schema pass. Results and errors must agree.
    const rng = createRng(46);
    const names = ['Items', 'Missing', 'It', 'arn:aws:dynamodb:us-east-1:1:table/Items', 'bad name!', 5, null];
    const keys = [
      { pk: { S: 'a' }, sk: { N: '1.5' } }, { pk: { S: 'a' }, sk: { N: '1.50' } }, { pk: { S: 'b' }, sk: { N: '2' } }, { pk: { S: 'a' } },
      { pk: { S: 1 }, sk: { N: '1' } }, { pk: { S: 'a' }, sk: { N: '1', S: 'x' } }, { pk: { S: 'a' }, sk: [1] }, { pk: { S: 'a' }, sk: null },
      { pk: { SS: [] }, sk: { N: '1' } }, { pk: { B: 'AA==' }, sk: { N: '1' } }, {}, [], 'a', null, new Uint8Array(1),
    ];
    const others: [string, unknown[]][] = [
      ['ConsistentRead', [true, false, null, 'yes', 1]],
      ['ReturnConsumedCapacity', ['TOTAL', 'INDEXES', 'NONE', 'ALL', null, 3]],
      ['Unknown', [1]],
    ];
    const outcome = (request: object) => {
      try {
        return db.getItem(request as never);
      } catch (error) {
        return { error: (error as Error).name, message: (error as Error).message };
      }
    };
    for (let i = 0; i < 600; i++) {
      const request: Record<string, unknown> = {};
      if (rng.next() < 0.95) request.TableName = names[Math.floor(rng.next() * names.length)];
      if (rng.next() < 0.95) request.Key = keys[Math.floor(rng.next() * keys.length)];
      for (const [member, values] of others) if (rng.next() < 0.3) request[member] = values[Math.floor(rng.next() * values.length)];
      const general = { ...request, ProjectionExpression: undefined };
      expect(outcome(request), JSON.stringify(request)).toEqual(outcome(general));
    }
  });
});
