/**
 * Placeholders are at most 255 bytes including the sigil (spec §1.3), and ExpressionAttributeNames
 * plus ExpressionAttributeValues of one request are at most 2 MB together (spec §6.1).
 */
import { describe, expect, it } from 'vitest';
import { compileExpressions } from '../../src/expr/index.js';
import { MAX_EXPRESSION_PARAMETERS_BYTES, MAX_PLACEHOLDER_BYTES } from '../../src/model/limits.js';

/** A placeholder of exactly `bytes` bytes, sigil included. */
const placeholder = (sigil: '#' | ':', bytes: number) => sigil + 'p'.repeat(bytes - 1);

describe('placeholder length', () => {
  it('a #name of 255 bytes is accepted, 256 refused', () => {
    const ok = placeholder('#', MAX_PLACEHOLDER_BYTES);
    expect(() => compileExpressions({ ConditionExpression: `attribute_exists(${ok})`, ExpressionAttributeNames: { [ok]: 'a' } })).not.toThrow();
    const long = placeholder('#', MAX_PLACEHOLDER_BYTES + 1);
    expect(() => compileExpressions({ ConditionExpression: `attribute_exists(${long})`, ExpressionAttributeNames: { [long]: 'a' } })).toThrow(
      'ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256',
    );
  });

  it('a :value of 255 bytes is accepted, 256 refused', () => {
    const ok = placeholder(':', MAX_PLACEHOLDER_BYTES);
    expect(() => compileExpressions({ ConditionExpression: `a = ${ok}`, ExpressionAttributeValues: { [ok]: { N: '1' } } })).not.toThrow();
    const long = placeholder(':', 300);
    expect(() => compileExpressions({ ConditionExpression: `a = ${long}`, ExpressionAttributeValues: { [long]: { N: '1' } } })).toThrow(
      'ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long; size of key: 300',
    );
  });

  it('the syntax rule is checked first', () => {
    const bad = `#${'-'.repeat(300)}`;
    expect(() => compileExpressions({ ConditionExpression: 'attribute_exists(a)', ExpressionAttributeNames: { [bad]: 'a' } })).toThrow(
      `ExpressionAttributeNames contains invalid key: Syntax error; key: "${bad}"`,
    );
  });
});

describe('names and values together at most 2 MB', () => {
  // Each entry counts its key's bytes plus the name's bytes or the value's item-attribute size.
  const names = { '#n': 'v' }; // 2 + 1 = 3 bytes
  const request = (stringBytes: number) => ({
    ConditionExpression: '#n = :a',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':a': { S: 'x'.repeat(stringBytes) } }, // 2 + stringBytes
  });
  const atLimit = MAX_EXPRESSION_PARAMETERS_BYTES - 3 - 2;

  it('exactly 2 MB is accepted', () => {
    expect(() => compileExpressions(request(atLimit))).not.toThrow();
  });

  it('one byte more is refused', () => {
    expect(() => compileExpressions(request(atLimit + 1))).toThrow(
      `ExpressionAttributeNames and ExpressionAttributeValues together exceed the maximum allowed size of 2097152 bytes; size: 2097153`,
    );
  });
});
