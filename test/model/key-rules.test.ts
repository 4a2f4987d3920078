import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/model/attribute-value.js';
import { ValidationException } from '../../src/model/errors.js';
import { checkItemKey, checkKey, extractKey } from '../../src/model/key-rules.js';
import type { PrimaryKeySchema } from '../../src/model/key-schema.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';

const P = 'One or more parameter values were invalid: ';
const MISMATCH = 'The provided key element does not match the schema';
const EMPTY_S = 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: ';
const EMPTY_B = 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: ';
const HASH_SIZE = `${P}Size of hashkey has exceeded the maximum size limit of2048 bytes`;
const RANGE_SIZE = `${P}Aggregated size of all range keys has exceeded the size limit of 1024 bytes`;

const hashOnly: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' } };
const composite: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } };
const binary: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'B' }, sortKey: { name: 'sk', type: 'B' } };
const stringSort: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'S' } };

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

const item = (wire: unknown): Item => validateItem(wire);

describe('checkItemKey', () => {
  it.each<[string, PrimaryKeySchema, unknown]>([
    ['hash only', hashOnly, { pk: { S: 'a' }, other: { N: '1' } }],
    ['composite', composite, { pk: { S: 'a' }, sk: { N: '-1.5' } }],
    ['binary', binary, { pk: { B: 'AA==' }, sk: { B: 'AQ==' } }],
    ['partition key of exactly 2,048 bytes', hashOnly, { pk: { S: 'x'.repeat(2048) } }],
    ['partition key of 2,048 bytes in UTF-8', hashOnly, { pk: { S: 'é'.repeat(1024) } }],
    ['sort key of exactly 1,024 bytes', stringSort, { pk: { S: 'a' }, sk: { S: 'x'.repeat(1024) } }],
    ['binary keys at their limits', binary, { pk: { B: Buffer.alloc(2048).toString('base64') }, sk: { B: Buffer.alloc(1024).toString('base64') } }],
    ['a 40-digit number key', composite, { pk: { S: 'a' }, sk: { N: '1234567895171680000000000000000000000000' } }],
  ])('accepts %s', (_name, schema, wire) => {
    expect(() => checkItemKey(item(wire), schema)).not.toThrow();
  });

  it.each<[string, PrimaryKeySchema, unknown, string]>([
    ['missing partition key', composite, { sk: { N: '1' } }, `${P}Missing the key pk in the item`],
    ['missing sort key', composite, { pk: { S: 'a' } }, `${P}Missing the key sk in the item`],
    ['partition key checked first', composite, { x: { S: 'a' } }, `${P}Missing the key pk in the item`],
    ['wrong partition key type', composite, { pk: { N: '1' }, sk: { N: '1' } }, `${P}Type mismatch for key pk expected: S actual: N`],
    ['wrong sort key type', composite, { pk: { S: 'a' }, sk: { S: '1' } }, `${P}Type mismatch for key sk expected: N actual: S`],
    ['a set as key', hashOnly, { pk: { SS: ['a'] } }, `${P}Type mismatch for key pk expected: S actual: SS`],
    ['empty S partition key', hashOnly, { pk: { S: '' } }, `${EMPTY_S}pk`],
    ['empty S sort key', stringSort, { pk: { S: 'a' }, sk: { S: '' } }, `${EMPTY_S}sk`],
    ['empty B key', binary, { pk: { B: '' }, sk: { B: 'AA==' } }, `${EMPTY_B}pk`],
    ['partition key of 2,049 bytes', hashOnly, { pk: { S: 'x'.repeat(2049) } }, HASH_SIZE],
    ['partition key of 2,049 bytes in UTF-8', hashOnly, { pk: { S: 'é'.repeat(1024) + 'x' } }, HASH_SIZE],
    ['sort key of 1,025 bytes', stringSort, { pk: { S: 'a' }, sk: { S: 'x'.repeat(1025) } }, RANGE_SIZE],
    ['binary sort key of 1,025 bytes', binary, { pk: { B: 'AA==' }, sk: { B: Buffer.alloc(1025).toString('base64') } }, RANGE_SIZE],
  ])('rejects %s', (_name, schema, wire, message) => {
    const error = thrown(() => checkItemKey(item(wire), schema));
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(message);
  });
});

describe('checkKey', () => {
  it.each<[string, PrimaryKeySchema, unknown]>([
    ['hash only', hashOnly, { pk: { S: 'a' } }],
    ['composite', composite, { pk: { S: 'a' }, sk: { N: '1' } }],
  ])('accepts %s', (_name, schema, wire) => {
    expect(() => checkKey(item(wire), schema)).not.toThrow();
  });

  it.each<[string, PrimaryKeySchema, unknown, string]>([
    ['an extra attribute', hashOnly, { pk: { S: 'a' }, x: { S: 'b' } }, MISMATCH],
    ['a missing sort key', composite, { pk: { S: 'a' } }, MISMATCH],
    ['a wrong name', hashOnly, { id: { S: 'a' } }, MISMATCH],
    ['nothing', hashOnly, {}, MISMATCH],
    ['a wrong type', composite, { pk: { S: 'a' }, sk: { S: '1' } }, MISMATCH],
    ['an empty string', composite, { pk: { S: '' }, sk: { N: '1' } }, `${EMPTY_S}pk`],
    ['an empty binary', binary, { pk: { B: 'AA==' }, sk: { B: '' } }, `${EMPTY_B}sk`],
    ['an oversized partition key', hashOnly, { pk: { S: 'x'.repeat(2049) } }, HASH_SIZE],
    ['an oversized sort key', stringSort, { pk: { S: 'x' }, sk: { S: 'x'.repeat(1025) } }, RANGE_SIZE],
  ])('rejects %s', (_name, schema, wire, message) => {
    const error = thrown(() => checkKey(item(wire), schema));
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(message);
  });
});

describe('extractKey', () => {
  it('returns just the key attributes, sharing their values', () => {
    const full = item({ pk: { S: 'a' }, sk: { N: '1' }, other: { S: 'x' } });
    const key = extractKey(full, composite);
    expect(key).toEqual({ pk: { S: 'a' }, sk: { N: '1' } });
    expect(key['pk']).toBe(full['pk']);
    expect(extractKey(full, hashOnly)).toEqual({ pk: { S: 'a' } });
  });
});
