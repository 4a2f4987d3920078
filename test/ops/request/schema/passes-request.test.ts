/**
 * The schema pass's shortcut (src/ops/request/schema/passes-request.ts): it answers true only for a
 * request the full pass reports nothing on, so it can change what a request costs and never what
 * it answers; and it does answer true for the common requests, or it would save nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRequest } from '../../../../src/ops/request/schema/check-request.js';
import { passesRequest } from '../../../../src/ops/request/schema/passes-request.js';
import { REQUEST_SCHEMAS } from '../../../../src/ops/request/schema/schemas.js';

const reports = (members: (typeof REQUEST_SCHEMAS)[keyof typeof REQUEST_SCHEMAS], request: Record<string, unknown>): boolean => {
  try {
    checkRequest(members, request);
    return false;
  } catch {
    return true;
  }
};

describe('passesRequest', () => {
  it('passes the common reads and writes', () => {
    const key = { pk: { S: 'a' }, sk: { N: '1' } };
    const cases: [keyof typeof REQUEST_SCHEMAS, Record<string, unknown>][] = [
      ['GetItem', { TableName: 'Items', Key: key }],
      ['GetItem', { TableName: 'arn:aws:dynamodb:us-east-1:1:table/Items', Key: key, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }],
      ['GetItem', { TableName: 'Items', Key: key, ProjectionExpression: '#n', ExpressionAttributeNames: { '#n': 'name' } }],
      ['Query', { TableName: 'Items', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } } }],
      ['Query', { TableName: 'Items', IndexName: 'byGateway', KeyConditionExpression: 'gw = :g', ExpressionAttributeValues: { ':g': { S: 'a' } }, Limit: 5, ScanIndexForward: false, ExclusiveStartKey: key }],
      ['Scan', { TableName: 'Items', Segment: 0, TotalSegments: 4, FilterExpression: 'v > :v', ExpressionAttributeValues: { ':v': { N: '1' } } }],
    ];
    for (const [operation, request] of cases) {
      expect(passesRequest(REQUEST_SCHEMAS[operation], request), JSON.stringify(request)).toBe(true);
      expect(reports(REQUEST_SCHEMAS[operation], request)).toBe(false);
    }
  });

  it('does not pass a request the full pass reports on', () => {
    const cases: [keyof typeof REQUEST_SCHEMAS, Record<string, unknown>][] = [
      ['GetItem', { Key: { pk: { S: 'a' } } }],
      ['GetItem', { TableName: 'Items' }],
      ['GetItem', { TableName: 'Items', Key: null }],
      ['GetItem', { TableName: '', Key: {} }],
      ['GetItem', { TableName: 'x'.repeat(256), Key: {} }],
      ['GetItem', { TableName: 'no space', Key: {} }],
      ['GetItem', { TableName: 'Items', Key: { pk: { S: 1 } } }],
      ['GetItem', { TableName: 'Items', Key: [] }],
      ['GetItem', { TableName: 'Items', Key: {}, ConsistentRead: 'true' }],
      ['GetItem', { TableName: 'Items', Key: {}, ReturnConsumedCapacity: 'total' }],
      ['GetItem', { TableName: 'Items', Key: {}, ExpressionAttributeNames: { '#n': 1 } }],
      ['Query', { TableName: 'Items', Limit: 0 }],
      ['Query', { TableName: 'Items', Limit: '1' }],
      ['Query', { TableName: 'Items', IndexName: 'ab' }],
      ['Query', { TableName: 'Items', Select: 'ALL' }],
      ['Query', { TableName: 'Items', ExpressionAttributeValues: { ':p': { S: true } } }],
      ['Query', { TableName: 'Items', ExpressionAttributeValues: [] }],
      ['Scan', { TableName: 'Items', Segment: 1_000_000 }],
    ];
    for (const [operation, request] of cases) {
      expect(passesRequest(REQUEST_SCHEMAS[operation], request), JSON.stringify(request)).toBe(false);
      expect(reports(REQUEST_SCHEMAS[operation], request), JSON.stringify(request)).toBe(true);
    }
  });

  it('remembers the last table name it passed, and passes nothing else for it', () => {
    const get = (TableName: unknown) => passesRequest(REQUEST_SCHEMAS.GetItem, { TableName, Key: {} });
    expect(get('Readings')).toBe(true);
    expect(get('Readings')).toBe(true);
    for (const other of ['', 'Readings ', 'x'.repeat(256), 1, null, undefined]) expect(get(other), String(other)).toBe(false);
    expect(get('Readings2')).toBe(true);
  });

  it('passes a request only when the full pass reports nothing (property, every operation)', () => {
    const value = fc.oneof(
      fc.constantFrom<unknown>(undefined, null, true, false, 0, 1, 1.5, -1, 1_000_001, '', 'ab', 'Items', 'NONE', 'TOTAL', 'ALL', 'SIZE', 'no space', 'x'.repeat(256), [], ['a'], {}),
      fc.constantFrom<unknown>({ pk: { S: 'a' } }, { pk: { S: 1 } }, { ':p': { N: '1' } }, { '#n': 'name' }, { '#n': 1 }, { pk: [] }, { PAY_PER_REQUEST: 1 }),
    );
    const names = [...new Set(Object.values(REQUEST_SCHEMAS).flatMap((members) => Object.keys(members)))];
    let passed = 0;
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(REQUEST_SCHEMAS) as (keyof typeof REQUEST_SCHEMAS)[])), fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 5 }), (operation, request) => {
        const members = REQUEST_SCHEMAS[operation];
        if (passesRequest(members, request)) {
          passed++;
          expect(reports(members, request), `${operation} ${JSON.stringify(request)}`).toBe(false);
        }
      }),
      { numRuns: 3000, seed: 46 },
    );
    expect(passed).toBeGreaterThan(0);
  });
});
