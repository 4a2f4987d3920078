/**
 * Bad input changes nothing and gets DynamoDB's exact error (spec §1, §3, §6, §8.4). Every case runs
 * against a populated store and then proves, by a full Scan of every table plus DescribeTable's
 * ItemCount and TableSizeBytes, that nothing changed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AttributeValue, Item } from '../../src/api/shapes.js';
import type { Edgetable } from '../../src/edgetable.js';
import { expectError, scanAll, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

const TABLES = ['Tab', 'Hash'] as const;

/** Everything observable about the store's contents, in a canonical order. */
function snapshot(): unknown {
  return TABLES.map((name) => {
    const items = scanAll(db, { TableName: name, ConsistentRead: true }).map((i) => JSON.stringify(i)).sort();
    const { ItemCount, TableSizeBytes } = db.describeTable({ TableName: name }).Table;
    return { name, items, ItemCount, TableSizeBytes };
  });
}

/** `fn` throws exactly `name: message` and the store is unchanged afterwards. */
function rejects(fn: () => unknown, name: string, message: string | RegExp): void {
  const before = snapshot();
  if (typeof message === 'string') expectError(fn, name, message);
  else {
    expect(fn).toThrow(message);
    try {
      fn();
    } catch (e) {
      expect((e as Error).name).toBe(name);
    }
  }
  expect(snapshot()).toEqual(before);
}

const VALIDATION = 'ValidationException';
/** PutItem's and UpdateItem's prefix for request-validation families (spec §8.4). */

beforeEach(() => {
  db = temp.open();
  db.createTable(tableRequest('Tab', ['pk', 'S'], ['sk', 'N'], 4));
  db.createTable(tableRequest('Hash', ['id', 'S'], undefined, 2));
  for (let i = 0; i < 6; i++) {
    db.putItem({ TableName: 'Tab', Item: { pk: { S: `p${i % 2}` }, sk: { N: String(i) }, v: { S: `value ${i}` } } });
    db.putItem({ TableName: 'Hash', Item: { id: { S: `h${i}` }, n: { N: String(i * 1.5) } } });
  }
});

/**
 * Item size by the spec's formula (§1.5), computed here independently of src/model: S = UTF-8
 * bytes, B = raw bytes, N = 1 + ceil(i/2) + ceil(f/2) + (negative ? 1 : 0) on significant digits.
 */
function specNumberSize(n: string): number {
  const negative = n.startsWith('-');
  const [intPart = '', fracPart = ''] = n.replace(/^[-+]/, '').split('.');
  const int = intPart.replace(/^0+/, '');
  const frac = fracPart.replace(/0+$/, '');
  const fracDigits = int === '' ? frac.replace(/^0+/, '') : frac;
  const intDigits = int === '' ? '' : frac === '' ? int.replace(/0+$/, '') : int;
  if (intDigits === '' && fracDigits === '') return 1;
  return 1 + Math.ceil(intDigits.length / 2) + Math.ceil(fracDigits.length / 2) + (negative ? 1 : 0);
}

function specItemSize(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name, 'utf8');
    if ('S' in value) size += Buffer.byteLength(value.S as string, 'utf8');
    else if ('N' in value) size += specNumberSize(value.N as string);
    else if ('B' in value) size += (value.B as Uint8Array).byteLength;
    else throw new Error('specItemSize: type not needed here');
  }
  return size;
}

/** An item of exactly `size` bytes for table T, mixing S, N (with a fraction and a sign) and B. */
function itemOfSize(size: number, pk = 'big'): Item & { pk: AttributeValue; sk: AttributeValue } {
  const fixed = { pk: { S: pk }, sk: { N: '-123.45' }, bin: { B: new Uint8Array(1000).fill(0xab) }, 'näme': { N: '1200' } };
  const pad = size - specItemSize({ ...fixed, s: { S: '' } });
  const item = { ...fixed, s: { S: 'é'.repeat(Math.floor(pad / 2)) + 'x'.repeat(pad % 2) } };
  expect(specItemSize(item)).toBe(size);
  return item;
}

describe('key attributes', () => {
  it('a missing key attribute', () => {
    rejects(() => db.putItem({ TableName: 'Tab', Item: { pk: { S: 'a' }, v: { S: 'x' } } }), VALIDATION, 'One or more parameter values were invalid: Missing the key sk in the item');
    rejects(() => db.putItem({ TableName: 'Tab', Item: { sk: { N: '1' } } }), VALIDATION, 'One or more parameter values were invalid: Missing the key pk in the item');
    rejects(() => db.getItem({ TableName: 'Tab', Key: { pk: { S: 'p0' } } }), VALIDATION, 'The provided key element does not match the schema');
    rejects(() => db.deleteItem({ TableName: 'Tab', Key: { pk: { S: 'p0' } } }), VALIDATION, 'The provided key element does not match the schema');
  });

  it('a wrongly typed key attribute', () => {
    rejects(() => db.putItem({ TableName: 'Tab', Item: { pk: { N: '1' }, sk: { N: '1' } } }), VALIDATION, 'One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N');
    rejects(() => db.putItem({ TableName: 'Tab', Item: { pk: { S: 'a' }, sk: { S: '1' } } }), VALIDATION, 'One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S');
    rejects(() => db.getItem({ TableName: 'Tab', Key: { pk: { S: 'p0' }, sk: { S: '0' } } }), VALIDATION, 'The provided key element does not match the schema');
    rejects(() => db.updateItem({ TableName: 'Tab', Key: { pk: { B: 'AA==' }, sk: { N: '0' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': { S: 'x' } } }), VALIDATION, 'The provided key element does not match the schema');
    // In a batch, a wrong-type key collapses to the schema message (spec §3.2).
    rejects(() => db.batchWriteItem({ RequestItems: { Tab: [{ PutRequest: { Item: { pk: { S: 'a' }, sk: { S: 'x' } } } }] } }), VALIDATION, 'The provided key element does not match the schema');
  });

  it('a batch put item without a key attribute: the schema message, as the 2026 captures show', () => {
    const mismatch = 'The provided key element does not match the schema';
    rejects(() => db.batchWriteItem({ RequestItems: { Hash: [{ PutRequest: { Item: { other: { S: 'x' } } } }] } }), VALIDATION, mismatch);
    rejects(() => db.batchWriteItem({ RequestItems: { Tab: [{ PutRequest: { Item: { pk: { S: 'a' }, v: { S: 'x' } } } }] } }), VALIDATION, mismatch);
    rejects(() => db.batchWriteItem({ RequestItems: { Hash: [{ DeleteRequest: { Key: { other: { S: 'x' } } } }] } }), VALIDATION, mismatch);
    // Not the empty-value rule, which keeps its own message.
    rejects(
      () => db.batchWriteItem({ RequestItems: { Hash: [{ PutRequest: { Item: { id: { S: '' } } } }] } }),
      VALIDATION,
      'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: id',
    );
  });

  it('a key with an extra attribute', () => {
    rejects(() => db.getItem({ TableName: 'Hash', Key: { id: { S: 'h1' }, n: { N: '1.5' } } }), VALIDATION, 'The provided key element does not match the schema');
  });

  it('an empty key string', () => {
    const message = 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk';
    rejects(() => db.putItem({ TableName: 'Tab', Item: { pk: { S: '' }, sk: { N: '1' } } }), VALIDATION, message);
    rejects(() => db.getItem({ TableName: 'Tab', Key: { pk: { S: '' }, sk: { N: '1' } } }), VALIDATION, message);
    rejects(() => db.batchWriteItem({ RequestItems: { Tab: [{ DeleteRequest: { Key: { pk: { S: '' }, sk: { N: '1' } } } }] } }), VALIDATION, message);
  });

  it('a partition key over 2,048 bytes', () => {
    rejects(
      () => db.putItem({ TableName: 'Hash', Item: { id: { S: 'k'.repeat(2049) } } }),
      VALIDATION,
      'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes',
    );
  });
});

describe('item size at the 400 KB boundary', () => {
  it('409,600 bytes are accepted, 409,601 rejected', () => {
    const exact = itemOfSize(409_600, 'exact');
    db.putItem({ TableName: 'Tab', Item: exact });
    const stored = db.getItem({ TableName: 'Tab', Key: { pk: exact.pk, sk: exact.sk }, ReturnConsumedCapacity: 'TOTAL', ConsistentRead: true });
    expect(stored.Item!.s).toEqual(exact.s);
    expect(stored.ConsumedCapacity).toEqual({ TableName: 'Tab', CapacityUnits: 100 }); // 409,600 / 4,096
    const tooBig = itemOfSize(409_601, 'over');
    rejects(() => db.putItem({ TableName: 'Tab', Item: tooBig }), VALIDATION, 'Item size has exceeded the maximum allowed size');
    // Replacing the accepted item with a 1-byte-larger one is refused too.
    rejects(() => db.putItem({ TableName: 'Tab', Item: itemOfSize(409_601, 'exact') }), VALIDATION, 'Item size has exceeded the maximum allowed size');
    const ok = { pk: { S: 'fine' }, sk: { N: '1' } };
    rejects(
      () => db.batchWriteItem({ RequestItems: { Tab: [{ PutRequest: { Item: ok } }, { PutRequest: { Item: tooBig } }] } }),
      VALIDATION,
      'Item size has exceeded the maximum allowed size',
    );
  });

  it('an update that would grow the item past 409,600 bytes is refused', () => {
    const exact = itemOfSize(409_600, 'exact');
    db.putItem({ TableName: 'Tab', Item: exact });
    rejects(
      () => db.updateItem({ TableName: 'Tab', Key: { pk: exact.pk, sk: exact.sk }, UpdateExpression: 'SET z = :z', ExpressionAttributeValues: { ':z': { BOOL: true } } }),
      VALIDATION,
      'Item size to update has exceeded the maximum allowed size',
    );
  });
});

describe('attribute values', () => {
  // A number literal's errors are semantic checks: bare (docs/decisions/003).
  it('a number with 39 significant digits', () => {
    rejects(
      () => db.putItem({ TableName: 'Hash', Item: { id: { S: 'n' }, n: { N: '123456789012345678901234567890123456789' } } }),
      VALIDATION,
      `Attempting to store more than 38 significant digits in a Number`,
    );
    rejects(
      () => db.putItem({ TableName: 'Tab', Item: { pk: { S: 'n' }, sk: { N: '-1.23456789012345678901234567890123456789' } } }),
      VALIDATION,
      `Attempting to store more than 38 significant digits in a Number`,
    );
  });

  // Set rules are semantic checks: bare (docs/decisions/003).
  it('empty sets', () => {
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'e' }, s: { SS: [] } } }), VALIDATION, `One or more parameter values were invalid: An string set  may not be empty`);
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'e' }, s: { NS: [] } } }), VALIDATION, `One or more parameter values were invalid: An number set  may not be empty`);
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'e' }, s: { BS: [] } } }), VALIDATION, `One or more parameter values were invalid: Binary sets should not be empty`);
  });

  it('duplicate set elements', () => {
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'd' }, s: { SS: ['a', 'a'] } } }), VALIDATION, `One or more parameter values were invalid: Input collection ["a", "a"] contains duplicates.`);
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'd' }, s: { NS: ['1', '1.0'] } } }), VALIDATION, `One or more parameter values were invalid: Input collection contains duplicates.`);
    rejects(
      () => db.putItem({ TableName: 'Hash', Item: { id: { S: 'd' }, s: { BS: ['Yg==', new Uint8Array([0x62])] } } }),
      VALIDATION,
      `One or more parameter values were invalid: Input collection ["Yg==","Yg=="]of type BS contains duplicates.`,
    );
  });
});

describe('strings that are not valid Unicode', () => {
  const INVALID = 'One or more parameter values were invalid: A string contains an unpaired UTF-16 surrogate, which is not valid UTF-8';
  it('keys, values and expression values with a lone surrogate: two such keys would have become one', () => {
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'a\ud800' } } }), VALIDATION, INVALID);
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'a\ud801' } } }), VALIDATION, INVALID);
    rejects(() => db.putItem({ TableName: 'Hash', Item: { id: { S: 'v' }, note: { S: '\udc00' } } }), VALIDATION, INVALID);
    rejects(() => db.getItem({ TableName: 'Hash', Key: { id: { S: '\ud800' } } }), VALIDATION, INVALID);
    rejects(
      () => db.updateItem({ TableName: 'Hash', Key: { id: { S: 'u' } }, UpdateExpression: 'SET n = :v', ExpressionAttributeValues: { ':v': { S: 'x\udbff' } } }),
      VALIDATION,
      INVALID,
    );
    rejects(
      () => db.transactWriteItems({ TransactItems: [{ Update: { TableName: 'Hash', Key: { id: { S: 'u' } }, UpdateExpression: 'SET n = :v', ExpressionAttributeValues: { ':v': { S: 'x\udbff' } } } }] }),
      VALIDATION,
      `ExpressionAttributeValues contains invalid value: ${INVALID} for key :v`,
    );
  });
});

describe('tables', () => {
  it('an unknown table', () => {
    const notFound = 'Requested resource not found';
    rejects(() => db.putItem({ TableName: 'Nope', Item: { id: { S: 'x' } } }), 'ResourceNotFoundException', notFound);
    rejects(() => db.getItem({ TableName: 'Nope', Key: { id: { S: 'x' } } }), 'ResourceNotFoundException', notFound);
    rejects(() => db.query({ TableName: 'Nope', KeyConditionExpression: 'id = :v', ExpressionAttributeValues: { ':v': { S: 'x' } } }), 'ResourceNotFoundException', notFound);
    rejects(() => db.scan({ TableName: 'Nope' }), 'ResourceNotFoundException', notFound);
    rejects(() => db.batchWriteItem({ RequestItems: { Hash: [{ PutRequest: { Item: { id: { S: 'new' } } } }], Nope: [{ PutRequest: { Item: { id: { S: 'x' } } } }] } }), 'ResourceNotFoundException', notFound);
    rejects(() => db.describeTable({ TableName: 'Nope' }), 'ResourceNotFoundException', 'Requested resource not found: Table: Nope not found');
    rejects(() => db.deleteTable({ TableName: 'Nope' }), 'ResourceNotFoundException', 'Requested resource not found: Table: Nope not found');
  });

  it('CreateTable of an existing table', () => {
    rejects(() => db.createTable(tableRequest('Tab', ['other', 'N'])), 'ResourceInUseException', 'Table already exists: Tab');
    expect(db.describeTable({ TableName: 'Tab' }).Table.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
  });
});

describe('batches', () => {
  const put = (i: number) => ({ PutRequest: { Item: { id: { S: `b${i}` } } } });

  it('26 write requests', () => {
    rejects(
      () => db.batchWriteItem({ RequestItems: { Hash: Array.from({ length: 26 }, (_, i) => put(i)) } }),
      VALIDATION,
      /^1 validation error detected: Value '\{Hash=\[.*\]\}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: \[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\]$/,
    );
    // 26 across two tables, each list within 1..25: the service's own message, not Coral's (spec §6.6).
    rejects(
      () => db.batchWriteItem({ RequestItems: { Hash: Array.from({ length: 13 }, (_, i) => put(i)), Tab: Array.from({ length: 13 }, (_, i) => ({ DeleteRequest: { Key: { pk: { S: 'p0' }, sk: { N: String(i) } } } })) } }),
      VALIDATION,
      'Too many items requested for the BatchWriteItem call',
    );
    // One list over 25 (or empty) breaks Coral's per-table constraint, whatever the other tables hold.
    rejects(
      () => db.batchWriteItem({ RequestItems: { Hash: Array.from({ length: 26 }, (_, i) => put(i)), Tab: [{ DeleteRequest: { Key: { pk: { S: 'p0' }, sk: { N: '0' } } } }] } }),
      VALIDATION,
      /^1 validation error detected: Value '\{Hash=\[.*\], Tab=\[.*\]\}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: \[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\]$/,
    );
    rejects(
      () => db.batchWriteItem({ RequestItems: { Hash: [put(1)], Tab: [] } }),
      VALIDATION,
      /^1 validation error detected: .* at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: \[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\]$/,
    );
    db.batchWriteItem({ RequestItems: { Hash: Array.from({ length: 25 }, (_, i) => put(i)) } });
    expect(db.describeTable({ TableName: 'Hash' }).Table.ItemCount).toBe(31);
  });

  it('25 write requests across two tables', () => {
    const out = db.batchWriteItem({ RequestItems: { Hash: Array.from({ length: 12 }, (_, i) => put(i)), Tab: Array.from({ length: 13 }, (_, i) => ({ DeleteRequest: { Key: { pk: { S: 'p0' }, sk: { N: String(i) } } } })) } });
    expect(out.UnprocessedItems).toEqual({});
    expect(db.describeTable({ TableName: 'Hash' }).Table.ItemCount).toBe(18);
  });

  it('duplicate keys in a batch', () => {
    const message = 'Provided list of item keys contains duplicates';
    rejects(() => db.batchWriteItem({ RequestItems: { Hash: [put(1), put(2), put(1)] } }), VALIDATION, message);
    rejects(() => db.batchWriteItem({ RequestItems: { Hash: [put(1), { DeleteRequest: { Key: { id: { S: 'b1' } } } }] } }), VALIDATION, message);
    rejects(() => db.batchGetItem({ RequestItems: { Hash: { Keys: [{ id: { S: 'h1' } }, { id: { S: 'h1' } }] } } }), VALIDATION, message);
    // The same key value in two tables is no duplicate.
    const both = db.batchGetItem({ RequestItems: { Hash: { Keys: [{ id: { S: 'h1' } }] }, Tab: { Keys: [{ pk: { S: 'p1' }, sk: { N: '1' } }] } } });
    expect(both.Responses.Hash).toHaveLength(1);
    expect(both.Responses.Tab).toHaveLength(1);
  });

  it('BatchGetItem of 101 keys', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ id: { S: `h${i}` } }));
    rejects(
      () => db.batchGetItem({ RequestItems: { Hash: { Keys: keys(101) } } }),
      VALIDATION,
      "1 validation error detected: Value at 'RequestItems.Hash.member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100",
    );
    const tKeys = Array.from({ length: 51 }, (_, i) => ({ pk: { S: 'q' }, sk: { N: String(i) } }));
    rejects(() => db.batchGetItem({ RequestItems: { Hash: { Keys: keys(50) }, Tab: { Keys: tKeys } } }), VALIDATION, 'Too many items requested for the BatchGetItem call');
    expect(db.batchGetItem({ RequestItems: { Hash: { Keys: keys(100) } } }).Responses.Hash).toHaveLength(6);
  });
});

describe('request parameters', () => {
  it('bad ReturnValues', () => {
    const item = { id: { S: 'rv' } };
    // Wrapped on PutItem and DeleteItem (spec §8.4 "Envelope drift", 2026 captures).
    // @ts-expect-error PutItem's ReturnValues are NONE and ALL_OLD only
    rejects(() => db.putItem({ TableName: 'Hash', Item: item, ReturnValues: 'ALL_NEW' }), VALIDATION, `ReturnValues can only be ALL_OLD or NONE`);
    // @ts-expect-error DeleteItem's ReturnValues are NONE and ALL_OLD only
    rejects(() => db.deleteItem({ TableName: 'Hash', Key: { id: { S: 'h1' } }, ReturnValues: 'UPDATED_NEW' }), VALIDATION, `ReturnValues can only be ALL_OLD or NONE`);
    rejects(
      // @ts-expect-error not a ReturnValue
      () => db.updateItem({ TableName: 'Hash', Key: { id: { S: 'h1' } }, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': { N: '1' } }, ReturnValues: 'BOGUS' }),
      VALIDATION,
      "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]",
    );
  });

  it('Limit 0', () => {
    const message = "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1";
    rejects(() => db.scan({ TableName: 'Tab', Limit: 0 }), VALIDATION, message);
    rejects(() => db.query({ TableName: 'Tab', Limit: 0, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p0' } } }), VALIDATION, message);
    // Every operation with a Limit holds it to the same model constraint, before anything else.
    rejects(() => db.listTables({ Limit: 0 }), VALIDATION, message);
    rejects(() => db.execute('ExecuteStatement', { Statement: 'SELECT * FROM Tab', Limit: 0 }), VALIDATION, message);
    const streamArn = 'arn:aws:dynamodb:ddblocal:000000000000:table/Nothing/stream/2026-01-01T00:00:00.000';
    rejects(() => db.execute('ListStreams', { Limit: 0 }), VALIDATION, message);
    rejects(() => db.execute('DescribeStream', { StreamArn: streamArn, Limit: 0 }), VALIDATION, message);
    rejects(() => db.execute('GetRecords', { ShardIterator: 'not-an-iterator', Limit: 0 }), VALIDATION, message);
  });

  it('Segment without TotalSegments and the reverse', () => {
    rejects(() => db.scan({ TableName: 'Tab', Segment: 0 }), VALIDATION, 'The TotalSegments parameter is required but was not present in the request when Segment parameter is present');
    rejects(() => db.scan({ TableName: 'Tab', TotalSegments: 2 }), VALIDATION, 'The Segment parameter is required but was not present in the request when parameter TotalSegments is present');
    rejects(() => db.scan({ TableName: 'Tab', Segment: 2, TotalSegments: 2 }), VALIDATION, 'The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less than TotalSegments: 2');
  });

  it('a failed condition or a bad update expression writes nothing', () => {
    rejects(
      () => db.putItem({ TableName: 'Hash', Item: { id: { S: 'h1' }, n: { N: '9' } }, ConditionExpression: 'attribute_not_exists(id)' }),
      'ConditionalCheckFailedException',
      'The conditional request failed',
    );
    rejects(
      () => db.updateItem({ TableName: 'Hash', Key: { id: { S: 'h1' } }, UpdateExpression: 'SET id = :v', ExpressionAttributeValues: { ':v': { S: 'z' } } }),
      VALIDATION,
      'One or more parameter values were invalid: Cannot update attribute id. This attribute is part of the key',
    );
    rejects(
      () => db.updateItem({ TableName: 'Hash', Key: { id: { S: 'h1' } }, UpdateExpression: 'SET n = n + id' }),
      VALIDATION,
      'An operand in the update expression has an incorrect data type',
    );
  });
});
