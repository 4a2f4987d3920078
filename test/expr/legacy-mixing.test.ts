import { describe, expect, it } from 'vitest';
import { checkExpressionMixing } from '../../src/expr/index.js';

describe('checkExpressionMixing', () => {
  it('rejects legacy and expression parameters together with DynamoDB message', () => {
    expect(() => checkExpressionMixing({ Expected: {}, ConditionExpression: 'a = :v' }, ['ConditionExpression'], ['Expected'])).toThrow(
      'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}',
    );
    expect(() =>
      checkExpressionMixing(
        { AttributeUpdates: {}, Expected: {}, UpdateExpression: 'SET a = :v', ConditionExpression: 'b = :v' },
        ['UpdateExpression', 'ConditionExpression'],
        ['AttributeUpdates', 'Expected'],
      ),
    ).toThrow('Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}');
  });
  it('accepts either family alone', () => {
    expect(() => checkExpressionMixing({ Expected: {} }, ['ConditionExpression'], ['Expected'])).not.toThrow();
    expect(() => checkExpressionMixing({ ConditionExpression: 'x' }, ['ConditionExpression'], ['Expected'])).not.toThrow();
    expect(() =>
      checkExpressionMixing({ KeyConditions: {}, FilterExpression: 'a = :v' }, ['KeyConditionExpression', 'FilterExpression'], ['KeyConditions', 'QueryFilter']),
    ).not.toThrow();
  });
});
