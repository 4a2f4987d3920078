/**
 * The members plain requests share (src/ops/request/plain-request.ts): taken only in the shape the general
 * checks accept unchanged, so GetItem and Query recognise them alike.
 */
import { describe, expect, it } from 'vitest';
import { commonMember, isPlainMap, isPlainTableName, MEMBER_NOT_PLAIN, MEMBER_OTHER, MEMBER_TAKEN, type PlainCommon } from '../../../src/ops/request/plain-request.js';

const fresh = (): PlainCommon => ({ tableName: undefined, consistent: false, capacityMode: 'NONE' });

describe('commonMember', () => {
  it.each([
    ['TableName', 'Items', MEMBER_TAKEN, { tableName: 'Items' }],
    ['TableName', 42, MEMBER_TAKEN, { tableName: 42 }], // judged later by isPlainTableName
    ['ConsistentRead', true, MEMBER_TAKEN, { consistent: true }],
    ['ConsistentRead', 'true', MEMBER_NOT_PLAIN, {}],
    ['ReturnConsumedCapacity', 'INDEXES', MEMBER_TAKEN, { capacityMode: 'INDEXES' }],
    ['ReturnConsumedCapacity', 'total', MEMBER_NOT_PLAIN, {}],
    ['ReturnConsumedCapacity', undefined, MEMBER_NOT_PLAIN, {}],
    ['Key', {}, MEMBER_OTHER, {}],
    ['ProjectionExpression', 'a', MEMBER_OTHER, {}],
  ] as const)('%s = %j -> %d', (name, value, answer, changed) => {
    const into = fresh();
    expect(commonMember(name, value, into)).toBe(answer);
    expect(into).toEqual({ ...fresh(), ...changed });
  });
});

describe('shape tests', () => {
  it('a plain table name is 3 to 255 of [a-zA-Z0-9_.-]', () => {
    expect(isPlainTableName('Items')).toBe(true);
    expect(isPlainTableName('a.b-c_1')).toBe(true);
    expect(isPlainTableName('ab')).toBe(false);
    expect(isPlainTableName('x'.repeat(256))).toBe(false);
    expect(isPlainTableName('no space')).toBe(false);
    expect(isPlainTableName(undefined)).toBe(false);
  });
  it('remembering the last plain name accepts it again and nothing else', () => {
    expect(isPlainTableName('Readings')).toBe(true);
    expect(isPlainTableName('Readings')).toBe(true);
    for (const other of ['', 'ab', 'Readings ', undefined, null, Symbol('none')]) expect(isPlainTableName(other)).toBe(false);
    expect(isPlainTableName('Readings2')).toBe(true);
  });
  it('a plain map is a non-null object, not an array or bytes', () => {
    expect(isPlainMap({})).toBe(true);
    expect(isPlainMap([])).toBe(false);
    expect(isPlainMap(new Uint8Array(1))).toBe(false);
    expect(isPlainMap(null)).toBe(false);
    expect(isPlainMap('x')).toBe(false);
  });
});
