/**
 * The tagging operations' parses: the table an ARN names and the request's tags or keys, frozen,
 * before any table is looked up (an ARN of a table that does not exist parses).
 */
import { describe, expect, it } from 'vitest';
import { parseTagResourceRequest } from '../../../src/ops/request/tag-resource-request.js';
import { parseUntagResourceRequest } from '../../../src/ops/request/untag-resource-request.js';

const arn = 'arn:aws:dynamodb:us-east-1:000000000000:table/Nope';

describe('parseTagResourceRequest', () => {
  it('reads the table name and the tags in request order, frozen', () => {
    const req = parseTagResourceRequest({ ResourceArn: arn, Tags: [{ Key: 'b', Value: '2' }, { Key: 'a', Value: '' }] });
    expect(req).toEqual({ resourceArn: arn, tableName: 'Nope', tags: [{ Key: 'b', Value: '2' }, { Key: 'a', Value: '' }] });
    expect(Object.isFrozen(req) && Object.isFrozen(req.tags) && req.tags.every((t) => Object.isFrozen(t))).toBe(true);
  });

  it('refuses a null tag as a model constraint at its place in the list', () => {
    expect(() => parseTagResourceRequest({ ResourceArn: arn, Tags: [null] })).toThrow(
      "1 validation error detected: Value null at 'tags.1.member' failed to satisfy constraint: Member must not be null",
    );
  });
});

describe('parseUntagResourceRequest', () => {
  it('reads the table name and the keys, duplicates once', () => {
    const req = parseUntagResourceRequest({ ResourceArn: arn, TagKeys: ['a', 'b', 'a'] });
    expect(req.tableName).toBe('Nope');
    expect([...req.tagKeys]).toEqual(['a', 'b']);
    expect(Object.isFrozen(req)).toBe(true);
  });
});
