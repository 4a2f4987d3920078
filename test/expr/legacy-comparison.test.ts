import { describe, expect, it } from 'vitest';
import { compileRequest, evaluateCondition } from '../../src/expr/index.js';
import { ITEM } from './fixtures.js';

type Wire = Record<string, unknown>;
const N = (n: string): Wire => ({ N: n });
const S = (s: string): Wire => ({ S: s });

function filter(name: string, op: string, list?: Wire[]) {
  const entry = list === undefined ? { ComparisonOperator: op } : { ComparisonOperator: op, AttributeValueList: list };
  return compileRequest({ ScanFilter: { [name]: entry } }, 'Scan').filter!;
}

/** [attribute, operator, values, result on ITEM]; every result on the absent item is the NE/NULL/NOT_CONTAINS rule. */
const CASES: readonly (readonly [string, string, Wire[] | undefined, boolean])[] = [
  ['n', 'EQ', [N('5')], true],
  ['n', 'EQ', [N('5.0')], true],
  ['n', 'EQ', [S('5')], false],
  ['ss', 'EQ', [{ SS: ['c', 'b', 'a'] }], true],
  ['missing', 'EQ', [S('x')], false],
  ['n', 'NE', [N('5')], false],
  ['n', 'NE', [N('4')], true],
  ['n', 'NE', [S('5')], true],
  ['missing', 'NE', [S('x')], true],
  ['n', 'LE', [N('5')], true],
  ['n', 'LT', [N('5')], false],
  ['n', 'GE', [N('5')], true],
  ['n', 'GT', [N('4')], true],
  ['s', 'GT', [N('1')], false],
  ['s', 'LT', [S('z')], true],
  ['b', 'GE', [{ B: 'AQI=' }], true],
  ['missing', 'LT', [N('1')], false],
  ['missing', 'NULL', undefined, true],
  ['n', 'NULL', undefined, false],
  ['nul', 'NOT_NULL', [], true],
  ['missing', 'NOT_NULL', undefined, false],
  ['s', 'CONTAINS', [S('ell')], true],
  ['ss', 'CONTAINS', [S('b')], true],
  ['ns', 'CONTAINS', [N('2')], true],
  ['ns', 'CONTAINS', [N('3')], false],
  ['ns', 'CONTAINS', [S('2')], false],
  ['n', 'CONTAINS', [N('5')], false],
  ['missing', 'CONTAINS', [S('a')], false],
  ['s', 'NOT_CONTAINS', [S('zz')], true],
  ['ss', 'NOT_CONTAINS', [S('a')], false],
  ['missing', 'NOT_CONTAINS', [S('a')], true],
  ['s', 'BEGINS_WITH', [S('he')], true],
  ['s', 'BEGINS_WITH', [S('lo')], false],
  ['b', 'BEGINS_WITH', [{ B: 'AQI=' }], true],
  ['ss', 'BEGINS_WITH', [S('a')], false],
  ['n', 'IN', [N('1'), N('5')], true],
  ['n', 'IN', [N('1')], false],
  ['s', 'IN', [S('x'), S('hello')], true],
  ['missing', 'IN', [S('x')], false],
  ['n', 'BETWEEN', [N('4'), N('6')], true],
  ['n', 'BETWEEN', [N('5'), N('5')], true],
  ['n', 'BETWEEN', [N('6'), N('7')], false],
  ['s', 'BETWEEN', [S('a'), S('z')], true],
  ['n', 'BETWEEN', [S('a'), S('z')], false],
];

describe('legacy comparison operators', () => {
  it.each(CASES)('%s %s %j -> %s', (name, op, list, expected) => {
    const cond = filter(name, op, list);
    expect(evaluateCondition(cond, ITEM)).toBe(expected);
    const onAbsent = op === 'NE' || op === 'NULL' || op === 'NOT_CONTAINS';
    expect(evaluateCondition(cond, undefined)).toBe(onAbsent);
  });

  it('compiles to frozen trees', () => {
    expect(Object.isFrozen(filter('n', 'IN', [N('1'), N('2')]))).toBe(true);
  });
});

const INVALID = 'One or more parameter values were invalid: ';
const ENUM =
  'Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]';

/** [operator, values, message] — DynamoDB's texts (dynalite's live captures). */
const ERRORS: readonly (readonly [unknown, Wire[] | undefined, string])[] = [
  ['EQ', undefined, `${INVALID}Invalid number of argument(s) for the EQ ComparisonOperator`],
  ['EQ', [S('a'), S('b')], `${INVALID}Invalid number of argument(s) for the EQ ComparisonOperator`],
  ['NULL', [S('a')], `${INVALID}Invalid number of argument(s) for the NULL ComparisonOperator`],
  ['NOT_NULL', [S('a')], `${INVALID}Invalid number of argument(s) for the NOT_NULL ComparisonOperator`],
  ['IN', [], `${INVALID}Invalid number of argument(s) for the IN ComparisonOperator`],
  ['BETWEEN', [N('1')], `${INVALID}Invalid number of argument(s) for the BETWEEN ComparisonOperator`],
  ['BETWEEN', [N('1'), N('2'), N('3')], `${INVALID}Invalid number of argument(s) for the BETWEEN ComparisonOperator`],
  ['IN', [S('a'), N('1')], `${INVALID}AttributeValues inside AttributeValueList must be of same type`],
  ['BETWEEN', [S('a'), N('1')], `${INVALID}AttributeValues inside AttributeValueList must be of same type`],
  ['LE', [{ SS: ['a'] }], `${INVALID}ComparisonOperator LE is not valid for SS AttributeValue type`],
  ['GT', [{ NS: ['1'] }], `${INVALID}ComparisonOperator GT is not valid for NS AttributeValue type`],
  ['BEGINS_WITH', [N('1')], `${INVALID}ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type`],
  ['CONTAINS', [{ SS: ['a'] }], `${INVALID}ComparisonOperator CONTAINS is not valid for SS AttributeValue type`],
  ['EQ', [{ BOOL: true }], `${INVALID}ComparisonOperator EQ is not valid for BOOL AttributeValue type`],
  ['NE', [{ L: [] }], `${INVALID}ComparisonOperator NE is not valid for L AttributeValue type`],
  ['IN', [{ SS: ['a'] }], `${INVALID}ComparisonOperator IN is not valid for SS AttributeValue type`],
  ['BETWEEN', [N('6'), N('4')], 'The BETWEEN condition was provided a range where the lower bound is greater than the upper bound'],
  ['BETWEEN', [S('b'), S('a')], 'The BETWEEN condition was provided a range where the lower bound is greater than the upper bound'],
  ['EQ', [{ N: 'x' }], 'The parameter cannot be converted to a numeric value: x'],
  ['EQ', [{}], 'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes'],
  ['LE', [{ SS: [] }], `${INVALID}An string set  may not be empty`],
  ['FOO', [S('a')], `1 validation error detected: Value 'FOO' at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: ${ENUM}`],
  [undefined, [S('a')], "1 validation error detected: Value null at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null"],
];

describe('legacy comparison validation', () => {
  it.each(ERRORS)('%s %j', (op, list, message) => {
    const entry: Wire = { ComparisonOperator: op };
    if (list !== undefined) entry.AttributeValueList = list;
    expect(() => compileRequest({ ScanFilter: { a: entry } }, 'Scan')).toThrow(expect.objectContaining({ name: 'ValidationException', message }));
  });

  it('values are validated before the argument count', () => {
    expect(() => compileRequest({ ScanFilter: { a: { ComparisonOperator: 'NULL', AttributeValueList: [{ N: 'x' }] } } }, 'Scan')).toThrow(
      'The parameter cannot be converted to a numeric value',
    );
  });

  it('wrong JSON types are SerializationExceptions', () => {
    const cases: unknown[] = [
      { a: { ComparisonOperator: 5 } },
      { a: { ComparisonOperator: 'EQ', AttributeValueList: { S: 'a' } } },
      { a: 'EQ' },
      ['a'],
    ];
    for (const ScanFilter of cases) {
      expect(() => compileRequest({ ScanFilter }, 'Scan')).toThrow(expect.objectContaining({ name: 'SerializationException' }));
    }
  });
});
