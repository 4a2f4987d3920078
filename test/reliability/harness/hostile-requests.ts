/**
 * Generators of hostile DynamoDB JSON requests: random operation targets, random JSON, malformed
 * AttributeValues, bodies nested thousands deep, oversized strings, request arrays past their
 * limits, wrong types, truncated JSON and raw bytes.
 */
import fc from 'fast-check';
import { OPERATIONS } from '../../../src/edgetable.js';
import { TABLE } from './workload.js';

const OPERATION_NAMES = Object.keys(OPERATIONS);

// Malformed and well-formed AttributeValues, nested up to `depth`.
const attributeValue = (depth: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { depthSize: 'small', maxDepth: depth },
    fc.record({ S: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }),
    fc.record({ N: fc.oneof(fc.constantFrom('1', '-0', '1e126', '1E-131', 'NaN', '١', '0x10', '.', '1'.repeat(40)), fc.string(), fc.double()) }),
    fc.record({ B: fc.oneof(fc.base64String(), fc.string(), fc.integer()) }),
    fc.record({ SS: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 4 }) }),
    fc.record({ NS: fc.array(fc.string(), { maxLength: 4 }) }),
    fc.record({ BOOL: fc.oneof(fc.boolean(), fc.string()) }),
    fc.record({ NULL: fc.oneof(fc.constant(true), fc.constant(false), fc.string()) }),
    fc.record({ S: fc.string(), N: fc.string() }),
    fc.constant({}),
    fc.anything({ maxDepth: 2 }),
    fc.record({ L: fc.array(fc.constant(null).chain(() => attributeValue(depth - 1)), { maxLength: 3 }) }),
    fc.record({ M: fc.dictionary(fc.string({ maxLength: 6 }), fc.constant(null).chain(() => attributeValue(depth - 1)), { maxKeys: 3 }) }),
  );

const item = fc.oneof(
  fc.record({ pk: fc.record({ S: fc.string({ maxLength: 8 }) }), sk: fc.record({ N: fc.constantFrom('1', '2', 'x') }) }, { requiredKeys: [] }),
  fc.dictionary(fc.constantFrom('pk', 'sk', 'lsk', 'g', 'gs', 'a', '', '__proto__', 'x'.repeat(300)), attributeValue(3), { maxKeys: 6 }),
  fc.anything({ maxDepth: 3 }),
);

/** A PutItem body whose attribute is `{"L":[{"L":[...]}]}` n deep (built as text: too deep to stringify). */
const deepBody = fc
  .tuple(fc.integer({ min: 30, max: 20_000 }), fc.constantFrom('L', 'M'))
  .map(([n, kind]) => {
    const open = kind === 'L' ? '{"L":[' : '{"M":{"k":';
    const close = kind === 'L' ? ']}' : '}}';
    return `{"TableName":"${TABLE}","Item":{"pk":{"S":"d"},"sk":{"N":"1"},"deep":${open.repeat(n)}{"S":"x"}${close.repeat(n)}}}`;
  });
const huge = fc.constantFrom(300 * 1024, 401 * 1024, 2 * 1024 * 1024).map((n) => ({ pk: { S: 'h' }, sk: { N: '1' }, big: { S: 'x'.repeat(n) } }));
const expression = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('SET #a = :v', 'attribute_exists(pk)', 'pk = :p', 'a.b[1]', '(((', 'size(pk) > :v'));
const count = fc.oneof(fc.integer(), fc.constantFrom(0, -1, 1e9, 2 ** 53, 1.5), fc.string({ maxLength: 3 }));

const structured = fc.record(
  {
    TableName: fc.oneof(fc.constant(TABLE), fc.string({ maxLength: 8 }), fc.integer(), fc.constant('x'.repeat(300))),
    Item: fc.oneof({ weight: 15, arbitrary: item }, { weight: 1, arbitrary: huge }),
    Key: item,
    UpdateExpression: expression,
    ConditionExpression: expression,
    KeyConditionExpression: expression,
    FilterExpression: expression,
    ProjectionExpression: expression,
    ExpressionAttributeNames: fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxKeys: 3 }),
    ExpressionAttributeValues: fc.dictionary(fc.string({ maxLength: 4 }), attributeValue(2), { maxKeys: 3 }),
    Limit: count,
    Segment: count,
    TotalSegments: count,
    IndexName: fc.constantFrom('byLsk', 'byG', 'nope', ''),
    ExclusiveStartKey: item,
    ReturnValues: fc.constantFrom('ALL_OLD', 'ALL_NEW', 'BOGUS', 'NONE'),
    ReturnConsumedCapacity: fc.constantFrom('TOTAL', 'INDEXES', 'bogus'),
    RequestItems: fc.oneof(
      { weight: 8, arbitrary: fc.dictionary(fc.constantFrom(TABLE, 'Nope', ''), fc.array(fc.record({ PutRequest: fc.record({ Item: item }), DeleteRequest: fc.record({ Key: item }) }, { requiredKeys: [] }), { maxLength: 30 })) },
      { weight: 1, arbitrary: fc.integer({ min: 26, max: 3000 }).map((n) => ({ [TABLE]: Array.from({ length: n }, (_, i) => ({ PutRequest: { Item: { pk: { S: `b${i}` }, sk: { N: '1' } } } })) })) },
      { weight: 2, arbitrary: fc.anything({ maxDepth: 2 }) },
    ),
    TransactItems: fc.oneof(
      { weight: 10, arbitrary: fc.array(fc.record({ Put: fc.record({ TableName: fc.constant(TABLE), Item: item }), ConditionCheck: fc.record({ TableName: fc.constant(TABLE), Key: item, ConditionExpression: expression }) }, { requiredKeys: [] }), { maxLength: 6 }) },
      { weight: 1, arbitrary: fc.integer({ min: 101, max: 5000 }).map((n) => Array.from({ length: n }, () => ({ Put: { TableName: TABLE, Item: { pk: { S: 'x' }, sk: { N: '1' } } } }))) },
    ),
    ClientRequestToken: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
  },
  { requiredKeys: [] },
);

export type HostileRequest = { target: string; body: string | Uint8Array };

const bodies: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { weight: 6, arbitrary: structured.map((r) => JSON.stringify(r)) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 1, arbitrary: deepBody },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 1, arbitrary: structured.map((r) => JSON.stringify(r)).chain((s) => fc.nat(s.length).map((n) => s.slice(0, n))) },
  { weight: 1, arbitrary: fc.constantFrom('', 'null', '[]', '"x"', '1', '{"TableName":', '{"__proto__":{"TableName":"Crash"}}', '[' .repeat(100_000)) },
);
// DeleteTable would end the fuzz's interesting part early; it is fuzzed once per batch anyway.
const targets = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...OPERATION_NAMES.filter((n) => n !== 'DeleteTable')).map((n) => `DynamoDB_20120810.${n}`) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 30 }), fc.constant('DynamoDB_20120810.DeleteTable'), fc.constant('DynamoDB_20120810.__proto__')) },
);
export const hostileRequests: fc.Arbitrary<HostileRequest> = fc.record({ target: targets, body: bodies });

