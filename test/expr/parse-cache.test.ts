import { beforeEach, describe, expect, it } from 'vitest';
import { clearParseCache, compileExpressions, conditionAttributeNames, evaluateCondition, parseCacheStats } from '../../src/expr/index.js';
import { PARSE_CACHE_ENTRIES, parseExpression } from '../../src/expr/parse-cache.js';

describe('parse cache', () => {
  beforeEach(() => clearParseCache());

  it('parses a repeated text once and resolves each request with its own values', () => {
    const text = 'n > :v AND #s = :w';
    const run = (v: string) =>
      compileExpressions({ ConditionExpression: text, ExpressionAttributeNames: { '#s': 's' }, ExpressionAttributeValues: { ':v': { N: v }, ':w': { S: 'x' } } });
    const item = { n: { N: '5' }, s: { S: 'x' } };
    expect(evaluateCondition(run('4').condition!, item)).toBe(true);
    expect(evaluateCondition(run('5').condition!, item)).toBe(false);
    expect(evaluateCondition(run('1').condition!, item)).toBe(true);
    expect(parseCacheStats()).toEqual({ hits: 2, misses: 1, entries: 1 });
  });

  it('keys entries by expression kind as well as text', () => {
    parseExpression('ConditionExpression', 'attribute_exists(a)');
    parseExpression('FilterExpression', 'attribute_exists(a)');
    expect(parseCacheStats()).toMatchObject({ misses: 2, entries: 2 });
  });

  it('resolves names per request even when the text is cached', () => {
    const a = compileExpressions({ ConditionExpression: 'attribute_exists(#x)', ExpressionAttributeNames: { '#x': 'a' } });
    const b = compileExpressions({ ConditionExpression: 'attribute_exists(#x)', ExpressionAttributeNames: { '#x': 'b' } });
    expect(conditionAttributeNames(a.condition!)).toEqual(new Set(['a']));
    expect(conditionAttributeNames(b.condition!)).toEqual(new Set(['b']));
  });

  it('evicts the least recently used entry beyond its bound', () => {
    parseExpression('ProjectionExpression', 'keep');
    for (let i = 0; i < PARSE_CACHE_ENTRIES; i++) {
      parseExpression('ProjectionExpression', `p${i}`);
      if (i % 100 === 0) parseExpression('ProjectionExpression', 'keep'); // refresh
    }
    expect(parseCacheStats().entries).toBe(PARSE_CACHE_ENTRIES);
    const before = parseCacheStats().misses;
    parseExpression('ProjectionExpression', 'keep');
    expect(parseCacheStats().misses).toBe(before);
    parseExpression('ProjectionExpression', 'p0');
    expect(parseCacheStats().misses).toBe(before + 1);
  });

  it('does not cache failures and returns frozen trees', () => {
    expect(() => parseExpression('ConditionExpression', 'a =')).toThrow();
    expect(parseCacheStats().entries).toBe(0);
    const tree = parseExpression('ConditionExpression', 'a = :v');
    expect(Object.isFrozen(tree)).toBe(true);
  });
});
