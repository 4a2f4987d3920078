/**
 * ConsumedCapacity, table-driven (spec §5.1-§5.5). Every expected value below was worked out by
 * hand from the spec; the item builders assert the sizes the arithmetic assumes (spec §1.5).
 *
 * Tables (on-demand; metering is the same as provisioned):
 *   Plain    pk S
 *   Sorted   pk S, sk N
 *   Indexed  pk S, sk N; LSI bySort2 (pk, lsk S) KEYS_ONLY; GSI byG (g S) INCLUDE [p]
 *            entry sizes: LSI = pk + sk + lsk, GSI = pk + sk + g (+ p when present)
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import type { Item } from '../../src/model/attribute-value.js';
import { itemSize } from '../../src/model/item-size.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

beforeEach(() => {
  db = temp.open({ durability: 'relaxed', ttlSweepIntervalMs: 0 });
  db.createTable(tableRequest('Plain', ['pk', 'S']));
  db.createTable(tableRequest('Sorted', ['pk', 'S'], ['sk', 'N']));
  db.createTable({
    ...tableRequest('Indexed', ['pk', 'S'], ['sk', 'N']),
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'N' },
      { AttributeName: 'lsk', AttributeType: 'S' },
      { AttributeName: 'g', AttributeType: 'S' },
    ],
    LocalSecondaryIndexes: [
      { IndexName: 'bySort2', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'lsk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
    ],
    GlobalSecondaryIndexes: [
      { IndexName: 'byG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['p'] } },
    ],
  });
});

function sized<T extends Record<string, unknown>>(item: T, bytes: number): T {
  expect(itemSize(item as unknown as Item), 'item size assumed by the hand computation').toBe(bytes);
  return item;
}

/** A Plain item of exactly `bytes`: pk (2 + len) + d (1 + n). */
const plain = (pk: string, bytes: number) => sized({ pk: { S: pk }, d: { S: 'x'.repeat(bytes - 3 - pk.length) } }, bytes);
/** A Sorted item of exactly `bytes`: pk (2 + 1) + sk (2 + 2 for 1..100) + d (1 + n) = 8 + n. */
const sorted = (sk: number, bytes: number) => sized({ pk: { S: 'q' }, sk: { N: String(sk) }, d: { S: 'x'.repeat(bytes - 8) } }, bytes);
/**
 * An Indexed item: pk 3 + sk 4 + lsk 4 + g 2 + p (1 + |p|) + d (1 + n). With p = 'P' and n = 100:
 * 116 bytes; LSI entry 11 bytes, GSI entry 11 bytes.
 */
const indexed = (over: Record<string, unknown> = {}) => ({
  pk: { S: 'i' },
  sk: { N: '1' },
  lsk: { S: 'L' },
  g: { S: 'G' },
  p: { S: 'P' },
  d: { S: 'x'.repeat(100) },
  ...over,
});
const IKEY = { pk: { S: 'i' }, sk: { N: '1' } };

// Requests built from loose parts: the untyped path of execute(), validated as every request is.
const put = (TableName: string, Item: unknown, mode = 'TOTAL', extra: Record<string, unknown> = {}) => () => db.execute('PutItem', { TableName, Item, ReturnConsumedCapacity: mode, ...extra });
const get = (TableName: string, Key: unknown, consistent: boolean, mode = 'TOTAL', extra: Record<string, unknown> = {}) => () =>
  db.execute('GetItem', { TableName, Key, ConsistentRead: consistent, ReturnConsumedCapacity: mode, ...extra });
const update = (TableName: string, Key: unknown, expr: string, values: Record<string, unknown> | undefined, mode = 'TOTAL') => () =>
  db.execute('UpdateItem', { TableName, Key, UpdateExpression: expr, ...(values ? { ExpressionAttributeValues: values } : {}), ReturnConsumedCapacity: mode });
const del = (TableName: string, Key: unknown, mode = 'TOTAL', extra: Record<string, unknown> = {}) => () => db.execute('DeleteItem', { TableName, Key, ReturnConsumedCapacity: mode, ...extra });
const query = (TableName: string, consistent: boolean, extra: Record<string, unknown> = {}, mode = 'TOTAL') => () =>
  db.execute('Query', { TableName, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'q' } }, ConsistentRead: consistent, ReturnConsumedCapacity: mode, ...extra });

const total = (TableName: string, CapacityUnits: number) => ({ TableName, CapacityUnits });

type Case = { name: string; setup?: () => void; run: () => unknown; expected: unknown };

const sortedTen = () => {
  for (let k = 1; k <= 10; k++) db.putItem({ TableName: 'Sorted', Item: sorted(k, 4180) });
};
const putIndexed = (over: Record<string, unknown> = {}) => () => void db.putItem({ TableName: 'Indexed', Item: indexed(over) });

const cases: Case[] = [
  // GetItem: ceil(size / 4096) x (1 strong, 0.5 eventual), minimum charge for absent items.
  { name: 'GetItem 4,096 B strong = 1', setup: () => void put('Plain', plain('a', 4096))(), run: get('Plain', { pk: { S: 'a' } }, true), expected: total('Plain', 1) },
  { name: 'GetItem 4,097 B strong = 2', setup: () => void put('Plain', plain('a', 4097))(), run: get('Plain', { pk: { S: 'a' } }, true), expected: total('Plain', 2) },
  { name: 'GetItem 4,096 B eventual = 0.5', setup: () => void put('Plain', plain('a', 4096))(), run: get('Plain', { pk: { S: 'a' } }, false), expected: total('Plain', 0.5) },
  { name: 'GetItem 4,097 B eventual = 1', setup: () => void put('Plain', plain('a', 4097))(), run: get('Plain', { pk: { S: 'a' } }, false), expected: total('Plain', 1) },
  { name: 'GetItem 12,289 B eventual = 4 x 0.5 = 2', setup: () => void put('Plain', plain('a', 12289))(), run: get('Plain', { pk: { S: 'a' } }, false), expected: total('Plain', 2) },
  { name: 'GetItem absent strong = 1', run: get('Plain', { pk: { S: 'none' } }, true), expected: total('Plain', 1) },
  { name: 'GetItem absent eventual = 0.5', run: get('Plain', { pk: { S: 'none' } }, false), expected: total('Plain', 0.5) },
  {
    name: 'GetItem 8,192 B projected to its key still = 2',
    setup: () => void put('Plain', plain('a', 8192))(),
    run: get('Plain', { pk: { S: 'a' } }, true, 'TOTAL', { ProjectionExpression: 'pk' }),
    expected: total('Plain', 2),
  },
  { name: 'GetItem INDEXES: Table arm', setup: () => void put('Plain', plain('a', 100))(), run: get('Plain', { pk: { S: 'a' } }, true, 'INDEXES'), expected: { TableName: 'Plain', CapacityUnits: 1, Table: { CapacityUnits: 1 } } },

  // Writes (table arm): ceil(max(old, new) / 1024), minimum 1.
  { name: 'PutItem new 1,024 B = 1', run: put('Plain', plain('a', 1024)), expected: total('Plain', 1) },
  { name: 'PutItem new 1,025 B = 2', run: put('Plain', plain('a', 1025)), expected: total('Plain', 2) },
  { name: 'PutItem of the smallest item (4 B) = 1', run: put('Plain', sized({ pk: { S: 'ab' } }, 4)), expected: total('Plain', 1) },
  { name: 'PutItem 100 B over 3,000 B = max -> 3', setup: () => void put('Plain', plain('a', 3000))(), run: put('Plain', plain('a', 100)), expected: total('Plain', 3) },
  { name: 'PutItem INDEXES on a table without indexes', run: put('Plain', plain('a', 2048), 'INDEXES'), expected: { TableName: 'Plain', CapacityUnits: 2, Table: { CapacityUnits: 2 } } },
  {
    name: 'UpdateItem adding 3 B to 2,500 B = ceil(2,503 / 1024) = 3',
    setup: () => void put('Plain', plain('a', 2500))(),
    run: update('Plain', { pk: { S: 'a' } }, 'SET n = :v', { ':v': { N: '1' } }),
    expected: total('Plain', 3),
  },
  { name: 'UpdateItem upsert of a new 8 B item = 1', run: update('Plain', { pk: { S: 'ab' } }, 'SET a = :v', { ':v': { S: 'abc' } }), expected: total('Plain', 1) },
  { name: 'UpdateItem shrinking 5,000 B to 4 B = 5', setup: () => void put('Plain', plain('ab', 5000))(), run: update('Plain', { pk: { S: 'ab' } }, 'REMOVE d', undefined), expected: total('Plain', 5) },
  { name: 'DeleteItem of 2,049 B = 3', setup: () => void put('Plain', plain('a', 2049))(), run: del('Plain', { pk: { S: 'a' } }), expected: total('Plain', 3) },
  { name: 'DeleteItem absent = 1', run: del('Plain', { pk: { S: 'none' } }), expected: total('Plain', 1) },
  {
    name: 'DeleteItem ReturnValues ALL_OLD consumes no read units: 1,024 B = 1',
    setup: () => void put('Plain', plain('a', 1024))(),
    run: del('Plain', { pk: { S: 'a' } }, 'TOTAL', { ReturnValues: 'ALL_OLD' }),
    expected: total('Plain', 1),
  },

  // BatchGetItem rounds per item; BatchWriteItem per request; one element per table.
  {
    name: 'BatchGetItem 1,536 B + 6,656 B strong = 1 + 2 = 3',
    setup: () => {
      put('Plain', plain('a', 1536))();
      put('Plain', plain('b', 6656))();
    },
    run: () => db.batchGetItem({ RequestItems: { Plain: { Keys: [{ pk: { S: 'a' } }, { pk: { S: 'b' } }], ConsistentRead: true } }, ReturnConsumedCapacity: 'TOTAL' }),
    expected: [total('Plain', 3)],
  },
  {
    name: 'BatchGetItem eventual: absent 0.5 + 4,097 B 1 = 1.5',
    setup: () => void put('Plain', plain('b', 4097))(),
    run: () => db.batchGetItem({ RequestItems: { Plain: { Keys: [{ pk: { S: 'none' } }, { pk: { S: 'b' } }] } }, ReturnConsumedCapacity: 'TOTAL' }),
    expected: [total('Plain', 1.5)],
  },
  {
    name: 'BatchGetItem across two tables, INDEXES: one element per table with its Table arm',
    setup: () => void put('Plain', plain('a', 100))(),
    run: () =>
      db.batchGetItem({
        RequestItems: { Plain: { Keys: [{ pk: { S: 'a' } }], ConsistentRead: true }, Sorted: { Keys: [{ pk: { S: 'q' }, sk: { N: '1' } }] } },
        ReturnConsumedCapacity: 'INDEXES',
      }),
    expected: [
      { TableName: 'Plain', CapacityUnits: 1, Table: { CapacityUnits: 1 } },
      { TableName: 'Sorted', CapacityUnits: 0.5, Table: { CapacityUnits: 0.5 } },
    ],
  },
  {
    name: 'BatchWriteItem 500 B + 3,584 B = 1 + 4 = 5',
    run: () => db.batchWriteItem({ RequestItems: { Plain: [{ PutRequest: { Item: plain('a', 500) } }, { PutRequest: { Item: plain('b', 3584) } }] }, ReturnConsumedCapacity: 'TOTAL' }),
    expected: [total('Plain', 5)],
  },
  {
    name: 'BatchWriteItem delete of an absent item 1 + put of 1,025 B 2 = 3, INDEXES',
    run: () =>
      db.batchWriteItem({ RequestItems: { Plain: [{ DeleteRequest: { Key: { pk: { S: 'none' } } } }, { PutRequest: { Item: plain('b', 1025) } }] }, ReturnConsumedCapacity: 'INDEXES' }),
    expected: [{ TableName: 'Plain', CapacityUnits: 3, Table: { CapacityUnits: 3 } }],
  },

  // Query and Scan: sum the items evaluated, round once.
  { name: 'Query 10 x 4,180 B strong: 41,800 B -> 11', setup: sortedTen, run: query('Sorted', true), expected: total('Sorted', 11) },
  { name: 'Query 10 x 4,180 B eventual -> 5.5', setup: sortedTen, run: query('Sorted', false), expected: total('Sorted', 5.5) },
  { name: 'Query Limit 3: 12,540 B strong -> 4', setup: sortedTen, run: query('Sorted', true, { Limit: 3 }), expected: total('Sorted', 4) },
  {
    name: 'Query with a filter matching nothing still = 11',
    setup: sortedTen,
    run: query('Sorted', true, { FilterExpression: 'd = :none', ExpressionAttributeValues: { ':p': { S: 'q' }, ':none': { S: 'zz' } } }),
    expected: total('Sorted', 11),
  },
  { name: 'Query Select COUNT costs as returning the items = 11', setup: sortedTen, run: query('Sorted', true, { Select: 'COUNT' }), expected: total('Sorted', 11) },
  { name: 'Query with an empty result strong = 1', run: query('Sorted', true), expected: total('Sorted', 1) },
  { name: 'Query with an empty result eventual = 0.5', run: query('Sorted', false), expected: total('Sorted', 0.5) },
  {
    name: 'Query 100 x 64 B strong: 6,400 B -> 2 (not 100)',
    setup: () => {
      for (let k = 1; k <= 100; k += 25) {
        db.batchWriteItem({ RequestItems: { Sorted: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: sorted(k + i, 64) } })) } });
      }
    },
    run: query('Sorted', true),
    expected: total('Sorted', 2),
  },
  { name: 'Query INDEXES on the table: Table arm only', setup: sortedTen, run: query('Sorted', true, {}, 'INDEXES'), expected: { TableName: 'Sorted', CapacityUnits: 11, Table: { CapacityUnits: 11 } } },
  { name: 'Scan of 10 x 4,180 B eventual -> 5.5', setup: sortedTen, run: () => db.scan({ TableName: 'Sorted', ReturnConsumedCapacity: 'TOTAL' }), expected: total('Sorted', 5.5) },
  { name: 'Scan of 10 x 4,180 B strong -> 11', setup: sortedTen, run: () => db.scan({ TableName: 'Sorted', ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }), expected: total('Sorted', 11) },

  // Index writes (spec §5.4): 0, 1 or 2 per index, sized on the entry; LSI units are reported apart.
  {
    name: 'PutItem entering both indexes: 1 + LSI 1 + GSI 1',
    run: put('Indexed', sized(indexed(), 116), 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 3, Table: { CapacityUnits: 1 }, LocalSecondaryIndexes: { bySort2: { CapacityUnits: 1 } }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 1 } } },
  },
  { name: 'PutItem entering both indexes, TOTAL = 3', run: put('Indexed', indexed()), expected: total('Indexed', 3) },
  { name: 'identical overwrite: 0 index writes', setup: putIndexed(), run: put('Indexed', indexed(), 'INDEXES'), expected: { TableName: 'Indexed', CapacityUnits: 1, Table: { CapacityUnits: 1 } } },
  {
    name: 'non-projected attribute changes: 0 index writes',
    setup: putIndexed(),
    run: put('Indexed', indexed({ d: { S: 'y'.repeat(100) } }), 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 1, Table: { CapacityUnits: 1 } },
  },
  {
    name: 'projected attribute (GSI INCLUDE p) changes: GSI 1, LSI (KEYS_ONLY) 0',
    setup: putIndexed(),
    run: update('Indexed', IKEY, 'SET p = :v', { ':v': { S: 'Q' } }, 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 1 } } },
  },
  {
    name: 'GSI key changes G -> H: delete + put = 2',
    setup: putIndexed(),
    run: update('Indexed', IKEY, 'SET g = :v', { ':v': { S: 'H' } }, 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 3, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 2 } } },
  },
  {
    name: 'LSI key changes L -> M: delete + put = 2',
    setup: putIndexed(),
    run: update('Indexed', IKEY, 'SET lsk = :v', { ':v': { S: 'M' } }, 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 3, Table: { CapacityUnits: 1 }, LocalSecondaryIndexes: { bySort2: { CapacityUnits: 2 } } },
  },
  {
    name: 'removing the GSI key leaves the index: 1 delete',
    setup: putIndexed(),
    run: update('Indexed', IKEY, 'REMOVE g', undefined, 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 1 } } },
  },
  {
    name: 'DeleteItem: table 1 + LSI 1 + GSI 1',
    setup: putIndexed(),
    run: del('Indexed', IKEY, 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 3, Table: { CapacityUnits: 1 }, LocalSecondaryIndexes: { bySort2: { CapacityUnits: 1 } }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 1 } } },
  },
  {
    name: 'a 2,010 B GSI entry costs 2: item 2,115 B = 3, LSI 1, GSI 2',
    run: put('Indexed', sized(indexed({ p: { S: 'P'.repeat(2000) } }), 2115), 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 6, Table: { CapacityUnits: 3 }, LocalSecondaryIndexes: { bySort2: { CapacityUnits: 1 } }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 2 } } },
  },
  {
    name: 'a key move rounds each half on its own entry: 2 + 2',
    setup: putIndexed({ p: { S: 'P'.repeat(2000) } }),
    run: update('Indexed', IKEY, 'SET g = :v', { ':v': { S: 'H' } }, 'INDEXES'),
    expected: { TableName: 'Indexed', CapacityUnits: 7, Table: { CapacityUnits: 3 }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 4 } } },
  },

  // Index reads: sized on entries; GSI units on the GSI arm with Table 0; LSI fetches on the table arm.
  {
    name: 'GSI Query eventual, one 11 B entry: GSI 0.5, Table 0',
    setup: putIndexed(),
    run: () => db.query({ TableName: 'Indexed', IndexName: 'byG', KeyConditionExpression: 'g = :g', ExpressionAttributeValues: { ':g': { S: 'G' } }, ReturnConsumedCapacity: 'INDEXES' }),
    expected: { TableName: 'Indexed', CapacityUnits: 0.5, Table: { CapacityUnits: 0 }, GlobalSecondaryIndexes: { byG: { CapacityUnits: 0.5 } } },
  },
  {
    name: 'LSI Query of projected attributes, strong: LSI 1, Table 0',
    setup: putIndexed(),
    run: () =>
      db.query({ TableName: 'Indexed', IndexName: 'bySort2', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'i' } }, ConsistentRead: true, ReturnConsumedCapacity: 'INDEXES' }),
    expected: { TableName: 'Indexed', CapacityUnits: 1, Table: { CapacityUnits: 0 }, LocalSecondaryIndexes: { bySort2: { CapacityUnits: 1 } } },
  },
  {
    name: 'LSI Query fetching 4 items, strong: entries 44 B -> 1, fetches 4 x 1 on the table = 5',
    setup: () => {
      for (let k = 1; k <= 4; k++) putIndexed({ sk: { N: String(k) }, lsk: { S: `L${k}` } })();
    },
    run: () =>
      db.query({
        TableName: 'Indexed',
        IndexName: 'bySort2',
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'i' } },
        Select: 'ALL_ATTRIBUTES',
        ConsistentRead: true,
        ReturnConsumedCapacity: 'INDEXES',
      }),
    expected: { TableName: 'Indexed', CapacityUnits: 5, Table: { CapacityUnits: 4 }, LocalSecondaryIndexes: { bySort2: { CapacityUnits: 1 } } },
  },
  {
    name: 'LSI Query fetching 4 items, eventual: 0.5 + 4 x 0.5 = 2.5',
    setup: () => {
      for (let k = 1; k <= 4; k++) putIndexed({ sk: { N: String(k) }, lsk: { S: `L${k}` } })();
    },
    run: () =>
      db.query({ TableName: 'Indexed', IndexName: 'bySort2', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'i' } }, Select: 'ALL_ATTRIBUTES', ReturnConsumedCapacity: 'TOTAL' }),
    expected: total('Indexed', 2.5),
  },

  // Transactions: x2 on the table arm only; Read/WriteCapacityUnits beside CapacityUnits.
  {
    name: 'TransactWriteItems put of 1,536 B = 2 x 2 = 4',
    run: () => db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Plain', Item: plain('a', 1536) } }], ReturnConsumedCapacity: 'TOTAL' }),
    expected: [{ TableName: 'Plain', CapacityUnits: 4, WriteCapacityUnits: 4 }],
  },
  {
    name: 'TransactWriteItems ConditionCheck (2) + Delete of an absent item (2) = 4',
    setup: () => void put('Plain', plain('a', 100))(),
    run: () =>
      db.transactWriteItems({
        TransactItems: [
          { ConditionCheck: { TableName: 'Plain', Key: { pk: { S: 'a' } }, ConditionExpression: 'attribute_exists(pk)' } },
          { Delete: { TableName: 'Plain', Key: { pk: { S: 'none' } } } },
        ],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    expected: [{ TableName: 'Plain', CapacityUnits: 4, WriteCapacityUnits: 4 }],
  },
  {
    name: 'TransactWriteItems INDEXES: table 2, index arms not doubled',
    run: () => db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Indexed', Item: indexed() } }], ReturnConsumedCapacity: 'INDEXES' }),
    expected: [
      {
        TableName: 'Indexed',
        CapacityUnits: 4,
        WriteCapacityUnits: 4,
        Table: { CapacityUnits: 2, WriteCapacityUnits: 2 },
        LocalSecondaryIndexes: { bySort2: { CapacityUnits: 1, WriteCapacityUnits: 1 } },
        GlobalSecondaryIndexes: { byG: { CapacityUnits: 1, WriteCapacityUnits: 1 } },
      },
    ],
  },
  {
    name: 'TransactWriteItems over two tables: one element each, in order of first appearance',
    run: () =>
      db.transactWriteItems({
        TransactItems: [{ Put: { TableName: 'Sorted', Item: sorted(1, 2048) } }, { Put: { TableName: 'Plain', Item: plain('a', 10) } }],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    expected: [
      { TableName: 'Sorted', CapacityUnits: 4, WriteCapacityUnits: 4 },
      { TableName: 'Plain', CapacityUnits: 2, WriteCapacityUnits: 2 },
    ],
  },
  {
    name: 'TransactGetItems 4,096 B (2) + absent (2) = 4',
    setup: () => void put('Plain', plain('a', 4096))(),
    run: () => db.transactGetItems({ TransactItems: [{ Get: { TableName: 'Plain', Key: { pk: { S: 'a' } } } }, { Get: { TableName: 'Plain', Key: { pk: { S: 'b' } } } }], ReturnConsumedCapacity: 'TOTAL' }),
    expected: [{ TableName: 'Plain', CapacityUnits: 4, ReadCapacityUnits: 4 }],
  },
  {
    name: 'TransactGetItems 4,097 B = 2 x 2 = 4',
    setup: () => void put('Plain', plain('a', 4097))(),
    run: () => db.transactGetItems({ TransactItems: [{ Get: { TableName: 'Plain', Key: { pk: { S: 'a' } } } }], ReturnConsumedCapacity: 'TOTAL' }),
    expected: [{ TableName: 'Plain', CapacityUnits: 4, ReadCapacityUnits: 4 }],
  },
];

describe('ConsumedCapacity, hand-computed (spec §5)', () => {
  it('has at least 40 cases', () => expect(cases.length).toBeGreaterThanOrEqual(40));
  for (const c of cases) {
    it(c.name, () => {
      c.setup?.();
      const response = c.run() as { ConsumedCapacity?: unknown };
      expect(response.ConsumedCapacity).toStrictEqual(c.expected);
    });
  }

  it('ReturnConsumedCapacity NONE (or absent) returns no ConsumedCapacity', () => {
    expect(put('Plain', plain('a', 100), 'NONE')()).not.toHaveProperty('ConsumedCapacity');
    expect(db.getItem({ TableName: 'Plain', Key: { pk: { S: 'a' } } })).not.toHaveProperty('ConsumedCapacity');
    expect(db.batchWriteItem({ RequestItems: { Plain: [{ PutRequest: { Item: plain('b', 100) } }] } })).not.toHaveProperty('ConsumedCapacity');
  });
});

/** Units recorded for a table's partitions this minute (what throttling and metrics see). */
const writeUnitsRecorded = (table: string) => db.partitionMetrics(table).reduce((n, p) => n + p.WriteUnitsLastMinute, 0);

describe('failed conditions consume write units but report none (spec §5.3)', () => {
  const failed: { name: string; setup?: () => void; run: () => unknown; units: number }[] = [
    {
      name: 'PutItem on an existing item: sized on the new item, 1,500 B = 2',
      setup: () => void put('Plain', plain('a', 3000))(),
      run: put('Plain', plain('a', 1500), 'TOTAL', { ConditionExpression: 'attribute_not_exists(pk)' }),
      units: 2,
    },
    { name: 'PutItem of a new item = 1', run: put('Plain', plain('a', 5000), 'TOTAL', { ConditionExpression: 'attribute_exists(pk)' }), units: 1 },
    {
      name: 'UpdateItem of an absent item = 1',
      run: () => db.updateItem({ TableName: 'Plain', Key: { pk: { S: 'a' } }, UpdateExpression: 'SET n = :v', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':v': { N: '1' } }, ReturnConsumedCapacity: 'TOTAL' }),
      units: 1,
    },
    { name: 'DeleteItem of a 2,049 B item = 3', setup: () => void put('Plain', plain('a', 2049))(), run: del('Plain', { pk: { S: 'a' } }, 'TOTAL', { ConditionExpression: 'attribute_not_exists(pk)' }), units: 3 },
  ];
  for (const c of failed) {
    it(c.name, () => {
      c.setup?.();
      const before = writeUnitsRecorded('Plain');
      const error = expectError(c.run, 'ConditionalCheckFailedException', 'The conditional request failed');
      expect(error).not.toHaveProperty('ConsumedCapacity');
      expect(writeUnitsRecorded('Plain') - before).toBe(c.units);
    });
  }
});
