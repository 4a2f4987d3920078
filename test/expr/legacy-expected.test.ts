import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue } from '../../src/model/attribute-value.js';
import { compareValues } from '../../src/model/compare-values.js';
import { validateAttributeValue, validateItem } from '../../src/model/validate-attribute-value.js';
import { compileRequest, evaluateCondition } from '../../src/expr/index.js';
import { ITEM } from './fixtures.js';

type Wire = Record<string, unknown>;
const N = (n: string): Wire => ({ N: n });
const S = (s: string): Wire => ({ S: s });

function expected(Expected: Wire, ConditionalOperator?: string) {
  const req: Wire = { Expected };
  if (ConditionalOperator !== undefined) req.ConditionalOperator = ConditionalOperator;
  return compileRequest(req, 'PutItem').condition!;
}

/** [Expected, ConditionalOperator, on ITEM, on the absent item]. */
const CASES: readonly (readonly [Wire, string | undefined, boolean, boolean])[] = [
  [{ n: { Value: N('5') } }, undefined, true, false],
  [{ n: { Value: N('4') } }, undefined, false, false],
  [{ n: { Value: S('5') } }, undefined, false, false],
  [{ n: { Value: N('5'), Exists: true } }, undefined, true, false],
  [{ zz: { Exists: false } }, undefined, true, true],
  [{ n: { Exists: false } }, undefined, false, true],
  [{ nul: { Exists: false } }, undefined, false, true],
  [{ n: { ComparisonOperator: 'GT', Value: N('4') } }, undefined, true, false],
  [{ n: { ComparisonOperator: 'GT', AttributeValueList: [N('5')] } }, undefined, false, false],
  [{ n: { ComparisonOperator: 'NOT_NULL' } }, undefined, true, false],
  [{ n: { ComparisonOperator: 'NULL' } }, undefined, false, true],
  [{ s: { ComparisonOperator: 'NE', Value: S('x') } }, undefined, true, true],
  [{ n: { Value: N('5') }, s: { Value: S('hello') } }, undefined, true, false],
  [{ n: { Value: N('5') }, s: { Value: S('nope') } }, 'AND', false, false],
  [{ n: { Value: N('5') }, s: { Value: S('nope') } }, 'OR', true, false],
  [{ n: { Value: N('4') }, s: { Value: S('nope') } }, 'OR', false, false],
  [{ n: { Exists: false }, s: { Exists: false } }, 'OR', false, true],
];

describe('Expected -> condition', () => {
  it.each(CASES)('%j %s', (exp, op, onItem, onAbsent) => {
    const cond = expected(exp, op);
    expect(evaluateCondition(cond, ITEM)).toBe(onItem);
    expect(evaluateCondition(cond, undefined)).toBe(onAbsent);
  });

  it('an empty Expected is no condition', () => {
    expect(compileRequest({ Expected: {} }, 'PutItem').condition).toBeUndefined();
    expect(compileRequest({ Expected: null }, 'DeleteItem')).toEqual({});
  });
});

const INVALID = 'One or more parameter values were invalid: ';
const ERRORS: readonly (readonly [Wire, string])[] = [
  [{ a: { Value: S('x'), AttributeValueList: [S('x')] } }, `${INVALID}Value and AttributeValueList cannot be used together for Attribute: a`],
  [
    { a: { ComparisonOperator: 'EQ', Value: S('x'), AttributeValueList: [S('x')] } },
    `${INVALID}Value and AttributeValueList cannot be used together for Attribute: a`,
  ],
  [{ a: { ComparisonOperator: 'EQ', Exists: true, Value: S('x') } }, `${INVALID}Exists and ComparisonOperator cannot be used together for Attribute: a`],
  [{ a: { ComparisonOperator: 'EQ' } }, `${INVALID}Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a`],
  [{ a: { AttributeValueList: [S('x')] } }, `${INVALID}AttributeValueList can only be used with a ComparisonOperator for Attribute: a`],
  [{ a: {} }, `${INVALID}Value must be provided when Exists is null for Attribute: a`],
  [{ a: { Exists: true } }, `${INVALID}Value must be provided when Exists is true for Attribute: a`],
  [{ a: { Exists: false, Value: S('x') } }, `${INVALID}Value cannot be used when Exists is false for Attribute: a`],
  [{ a: { ComparisonOperator: 'EQ', AttributeValueList: [S('x'), S('y')] } }, `${INVALID}Invalid number of argument(s) for the EQ ComparisonOperator`],
  [{ a: { ComparisonOperator: 'NULL', Value: S('x') } }, `${INVALID}Invalid number of argument(s) for the NULL ComparisonOperator`],
  [{ a: { ComparisonOperator: 'BETWEEN', AttributeValueList: [N('2'), N('1')] } }, 'The BETWEEN condition was provided a range where the lower bound is greater than the upper bound'],
  [{ a: { Value: { N: 'x' } } }, 'The parameter cannot be converted to a numeric value: x'],
  [{ a: { Value: { NULL: false } } }, `${INVALID}Null attribute value types must have the value of true`],
  [
    { a: { Exists: false }, b: { ComparisonOperator: 'BOGUS' } },
    "1 validation error detected: Value 'BOGUS' at 'expected.b.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]",
  ],
];

describe('Expected validation', () => {
  it.each(ERRORS)('%j', (exp, message) => {
    expect(() => compileRequest({ Expected: exp }, 'PutItem')).toThrow(expect.objectContaining({ name: 'ValidationException', message }));
  });

  it('entries are checked in map order', () => {
    expect(() => compileRequest({ Expected: { a: { Exists: true }, b: {} } }, 'UpdateItem')).toThrow('Exists is true for Attribute: a');
    expect(() => compileRequest({ Expected: { b: {}, a: { Exists: true } } }, 'UpdateItem')).toThrow('Exists is null for Attribute: b');
  });

  it('ConditionalOperator needs two or more entries, and an enum value', () => {
    expect(() => compileRequest({ ConditionalOperator: 'OR', Expected: { a: { Exists: false } } }, 'PutItem')).toThrow(
      'ConditionalOperator can only be used when Filter or Expected has two or more elements',
    );
    expect(() => compileRequest({ ConditionalOperator: 'OR' }, 'DeleteItem')).toThrow('ConditionalOperator cannot be used without Filter or Expected');
    expect(() => compileRequest({ ConditionalOperator: 'XOR', Expected: { a: { Exists: false }, b: { Exists: false } } }, 'PutItem')).toThrow(
      "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]",
    );
  });

  it('cannot be mixed with ConditionExpression', () => {
    expect(() => compileRequest({ Expected: { a: { Exists: false } }, ConditionExpression: 'attribute_exists(a)' }, 'PutItem')).toThrow(
      'Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}',
    );
  });
});

// ---- equivalence: a legacy Expected and the ConditionExpression it stands for -----------------

const SCALARS: readonly Wire[] = [N('1'), N('5'), N('-2.5'), S('a'), S('hello'), S('he'), { B: 'AQ==' }, { B: 'AQI=' }];
const SETS: readonly Wire[] = [{ SS: ['a', 'b'] }, { NS: ['1', '5'] }, { SS: ['hello'] }];
const ITEM_VALUES: readonly Wire[] = [
  ...SCALARS,
  ...SETS,
  { SS: ['b', 'a'] },
  { NS: ['5', '1', '7'] },
  { BS: ['AQ=='] },
  { BOOL: true },
  { NULL: true },
  { L: [S('a'), N('1')] },
  { M: { a: S('a') } },
];
const NAMES = ['a', 'b', 'c'] as const;

type Legacy =
  | { form: 'value'; value: Wire; exists?: true }
  | { form: 'notExists' }
  | { form: 'op'; op: string; values: Wire[]; asValue: boolean };

const typeOfWire = (w: Wire) => Object.keys(w)[0]!;
const internal = (w: Wire): AttributeValue => validateAttributeValue(w);
const byType = (values: readonly Wire[], types: readonly string[]) => values.filter((v) => types.includes(typeOfWire(v)));

const scalar = fc.constantFrom(...SCALARS);
const legacy: fc.Arbitrary<Legacy> = fc.oneof(
  fc.record({ form: fc.constant('value' as const), value: fc.constantFrom(...SCALARS, ...SETS) }),
  fc.record({ form: fc.constant('value' as const), value: fc.constantFrom(...SCALARS), exists: fc.constant(true as const) }),
  fc.constant<Legacy>({ form: 'notExists' }),
  fc.record({ form: fc.constant('op' as const), op: fc.constantFrom('NULL', 'NOT_NULL'), values: fc.constant<Wire[]>([]), asValue: fc.constant(false) }),
  fc.record({ form: fc.constant('op' as const), op: fc.constantFrom('EQ', 'NE'), values: fc.constantFrom(...SCALARS, ...SETS).map((v) => [v]), asValue: fc.boolean() }),
  fc.record({
    form: fc.constant('op' as const),
    op: fc.constantFrom('LE', 'LT', 'GE', 'GT', 'CONTAINS', 'NOT_CONTAINS'),
    values: scalar.map((v) => [v]),
    asValue: fc.boolean(),
  }),
  fc.record({ form: fc.constant('op' as const), op: fc.constant('BEGINS_WITH'), values: fc.constantFrom(...byType(SCALARS, ['S', 'B'])).map((v) => [v]), asValue: fc.boolean() }),
  fc.record({
    form: fc.constant('op' as const),
    op: fc.constant('IN'),
    values: fc.constantFrom('S', 'N', 'B').chain((t) => fc.subarray([...byType(SCALARS, [t])], { minLength: 1 })),
    asValue: fc.constant(false),
  }),
  fc.record({
    form: fc.constant('op' as const),
    op: fc.constant('BETWEEN'),
    values: fc
      .constantFrom('S', 'N', 'B')
      .chain((t) => fc.tuple(fc.constantFrom(...byType(SCALARS, [t])), fc.constantFrom(...byType(SCALARS, [t]))))
      .map(([x, y]) => ((compareValues(internal(x), internal(y)) ?? 0) <= 0 ? [x, y] : [y, x])),
    asValue: fc.constant(false),
  }),
);

/** The wire Expected entry for a generated condition. */
function legacyEntry(l: Legacy): Wire {
  if (l.form === 'value') return l.exists ? { Value: l.value, Exists: true } : { Value: l.value };
  if (l.form === 'notExists') return { Exists: false };
  if (l.values.length === 0) return { ComparisonOperator: l.op };
  return l.asValue ? { ComparisonOperator: l.op, Value: l.values[0] } : { ComparisonOperator: l.op, AttributeValueList: l.values };
}

/** The same condition written as an expression, independently of the code under test. */
function expressionText(l: Legacy, i: number, values: Record<string, Wire>): string {
  const path = `#a${i}`;
  const v = (j: number, w: Wire) => {
    values[`:v${i}_${j}`] = w;
    return `:v${i}_${j}`;
  };
  if (l.form === 'value') return `${path} = ${v(0, l.value)}`;
  if (l.form === 'notExists') return `attribute_not_exists(${path})`;
  const x = l.values;
  switch (l.op) {
    case 'NULL':
      return `attribute_not_exists(${path})`;
    case 'NOT_NULL':
      return `attribute_exists(${path})`;
    case 'EQ':
      return `${path} = ${v(0, x[0]!)}`;
    case 'NE':
      return `${path} <> ${v(0, x[0]!)}`;
    case 'LE':
      return `${path} <= ${v(0, x[0]!)}`;
    case 'LT':
      return `${path} < ${v(0, x[0]!)}`;
    case 'GE':
      return `${path} >= ${v(0, x[0]!)}`;
    case 'GT':
      return `${path} > ${v(0, x[0]!)}`;
    case 'CONTAINS':
      return `contains(${path}, ${v(0, x[0]!)})`;
    case 'NOT_CONTAINS':
      return `NOT contains(${path}, ${v(0, x[0]!)})`;
    case 'BEGINS_WITH':
      return `begins_with(${path}, ${v(0, x[0]!)})`;
    case 'IN':
      return `${path} IN (${x.map((w, j) => v(j, w)).join(', ')})`;
    default:
      return `${path} BETWEEN ${v(0, x[0]!)} AND ${v(1, x[1]!)}`;
  }
}

// Item values mostly drawn from the condition values, so equal-value edges are common.
const itemValue = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SCALARS, ...SETS) }, { weight: 1, arbitrary: fc.constantFrom(...ITEM_VALUES) });
const wireItem = fc.dictionary(fc.constantFrom(...NAMES), itemValue, { maxKeys: 3 });
const conditions = fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), legacy), { minLength: 1, maxLength: 3, selector: ([n]) => n });

/** Every single condition the generator can produce, for the exhaustive check. */
function allSingles(): Legacy[] {
  const out: Legacy[] = [{ form: 'notExists' }];
  for (const value of [...SCALARS, ...SETS]) out.push({ form: 'value', value });
  for (const value of SCALARS) out.push({ form: 'value', value, exists: true });
  for (const op of ['NULL', 'NOT_NULL']) out.push({ form: 'op', op, values: [], asValue: false });
  for (const w of [...SCALARS, ...SETS]) for (const op of ['EQ', 'NE']) out.push({ form: 'op', op, values: [w], asValue: false });
  for (const w of SCALARS) {
    for (const op of ['LE', 'LT', 'GE', 'GT', 'CONTAINS', 'NOT_CONTAINS']) out.push({ form: 'op', op, values: [w], asValue: true });
  }
  for (const w of byType(SCALARS, ['S', 'B'])) out.push({ form: 'op', op: 'BEGINS_WITH', values: [w], asValue: false });
  for (const t of ['S', 'N', 'B']) {
    const same = byType(SCALARS, [t]);
    out.push({ form: 'op', op: 'IN', values: same, asValue: false });
    for (const x of same) {
      out.push({ form: 'op', op: 'IN', values: [x], asValue: false });
      for (const y of same) {
        if ((compareValues(internal(x), internal(y)) ?? 1) <= 0) out.push({ form: 'op', op: 'BETWEEN', values: [x, y], asValue: false });
      }
    }
  }
  return out;
}

function bothWays(conds: readonly (readonly [string, Legacy])[], joiner: string, item: Parameters<typeof evaluateCondition>[1]): [boolean, boolean] {
  const Expected: Wire = {};
  const values: Record<string, Wire> = {};
  const names: Record<string, string> = {};
  const parts = conds.map(([name, l], i) => {
    Expected[name] = legacyEntry(l);
    names[`#a${i}`] = name;
    return `(${expressionText(l, i, values)})`;
  });
  const legacyReq: Wire = { Expected };
  if (conds.length > 1) legacyReq.ConditionalOperator = joiner;
  const exprReq: Wire = { ConditionExpression: parts.join(` ${conds.length > 1 ? joiner : 'AND'} `), ExpressionAttributeNames: names };
  if (Object.keys(values).length > 0) exprReq.ExpressionAttributeValues = values;
  return [
    evaluateCondition(compileRequest(legacyReq, 'PutItem').condition!, item),
    evaluateCondition(compileRequest(exprReq, 'PutItem').condition!, item),
  ];
}

describe('Expected is equivalent to its ConditionExpression', () => {
  it('for every single condition against every item value (exhaustive)', () => {
    const singles = allSingles();
    let checked = 0;
    for (const l of singles) {
      for (const w of [undefined, ...ITEM_VALUES]) {
        const item = w === undefined ? validateItem({ b: S('x') }) : validateItem({ a: w });
        const [fromLegacy, fromExpression] = bothWays([['a', l]], 'AND', item);
        if (fromLegacy !== fromExpression) expect({ l, w, fromLegacy }).toEqual({ l, w, fromLegacy: fromExpression });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2000);
  });

  it('on random items and joined conditions (fast-check)', () => {
    fc.assert(
      fc.property(wireItem, conditions, fc.constantFrom('AND', 'OR'), fc.boolean(), (raw, conds, joiner, absent) => {
        const [fromLegacy, fromExpression] = bothWays(conds, joiner, absent ? undefined : validateItem(raw));
        expect(fromLegacy).toBe(fromExpression);
      }),
      { numRuns: 1000 },
    );
  });
});
