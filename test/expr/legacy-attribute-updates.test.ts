import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/model/attribute-value.js';
import { validateItem } from '../../src/model/validate-attribute-value.js';
import { applyUpdate, compileRequest } from '../../src/expr/index.js';

type Wire = Record<string, unknown>;
const OLD: Item = validateItem({
  pk: { S: 'k' },
  n: { N: '5' },
  s: { S: 'str' },
  ss: { SS: ['a', 'b'] },
  ns: { NS: ['1', '2'] },
  l: { L: [{ S: 'x' }] },
});

function update(AttributeUpdates: Wire, item: Item | null = OLD) {
  return applyUpdate(compileRequest({ AttributeUpdates }, 'UpdateItem').update!, item ?? undefined, ['pk']);
}

/** [AttributeUpdates, attributes of the result that changed (undefined = removed)]. */
const CASES: readonly (readonly [Wire, Wire])[] = [
  [{ s: { Action: 'PUT', Value: { N: '1' } } }, { s: { N: '1' } }],
  [{ s: { Value: { S: 'new' } } }, { s: { S: 'new' } }],
  [{ fresh: { Action: 'PUT', Value: { BOOL: true } } }, { fresh: { BOOL: true } }],
  [{ s: { Action: 'DELETE' } }, { s: undefined }],
  [{ missing: { Action: 'DELETE' } }, {}],
  [{ ss: { Action: 'DELETE', Value: { SS: ['a', 'zz'] } } }, { ss: { SS: ['b'] } }],
  [{ ss: { Action: 'DELETE', Value: { SS: ['a', 'b'] } } }, { ss: undefined }],
  [{ missing: { Action: 'DELETE', Value: { SS: ['a'] } } }, {}],
  [{ n: { Action: 'ADD', Value: { N: '3' } } }, { n: { N: '8' } }],
  [{ n: { Action: 'ADD', Value: { N: '-5.5' } } }, { n: { N: '-0.5' } }],
  [{ missing: { Action: 'ADD', Value: { N: '3' } } }, { missing: { N: '3' } }],
  [{ ss: { Action: 'ADD', Value: { SS: ['b', 'c'] } } }, { ss: { SS: ['a', 'b', 'c'] } }],
  [{ ns: { Action: 'ADD', Value: { NS: ['2.0', '3'] } } }, { ns: { NS: ['1', '2', '3'] } }],
  [{ missing: { Action: 'ADD', Value: { SS: ['q'] } } }, { missing: { SS: ['q'] } }],
  [{ l: { Action: 'ADD', Value: { L: [{ N: '1' }] } } }, { l: { L: [{ S: 'x' }, { N: '1' }] } }],
  [{ missing: { Action: 'ADD', Value: { L: [{ N: '1' }] } } }, { missing: { L: [{ N: '1' }] } }],
  [
    { n: { Action: 'ADD', Value: { N: '1' } }, s: { Action: 'DELETE' }, t: { Value: { S: 't' } } },
    { n: { N: '6' }, s: undefined, t: { S: 't' } },
  ],
];

describe('AttributeUpdates -> update plan', () => {
  it.each(CASES)('%j', (updates, changes) => {
    const { item } = update(updates);
    const expected: Record<string, unknown> = { ...OLD };
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined) delete expected[k];
      else expected[k] = validateItem({ [k]: v })[k];
    }
    expect(item).toEqual(expected);
  });

  it('creates the item when absent (the caller adds the key)', () => {
    expect(update({ n: { Action: 'ADD', Value: { N: '2' } }, s: { Action: 'DELETE' } }, null).item).toEqual({ n: { N: '2' } });
  });

  it('reports the touched attributes for UPDATED_OLD / UPDATED_NEW', () => {
    const r = update({ n: { Action: 'ADD', Value: { N: '1' } }, s: { Action: 'DELETE' }, t: { Value: { S: 't' } } });
    expect(r.updatedOld).toEqual({ n: { N: '5' }, s: { S: 'str' } });
    expect(r.updatedNew).toEqual({ n: { N: '6' }, t: { S: 't' } });
  });

  it('rejects key attributes when applied', () => {
    for (const entry of [{ Value: { S: 'x' } }, { Action: 'DELETE' }, { Action: 'ADD', Value: { N: '1' } }]) {
      expect(() => update({ pk: entry })).toThrow(
        'One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key',
      );
    }
  });

  it('rejects a type mismatch with the existing value when applied', () => {
    expect(() => update({ s: { Action: 'ADD', Value: { N: '1' } } })).toThrow(expect.objectContaining({ name: 'ValidationException' }));
    expect(() => update({ n: { Action: 'DELETE', Value: { SS: ['a'] } } })).toThrow(expect.objectContaining({ name: 'ValidationException' }));
  });

  it('an empty AttributeUpdates is no update', () => {
    expect(compileRequest({ AttributeUpdates: {} }, 'UpdateItem').update).toBeUndefined();
  });
});

const INVALID = 'One or more parameter values were invalid: ';
describe('AttributeUpdates validation', () => {
  it.each([
    [{ a: { Action: 'PUT' } }, `${INVALID}Only DELETE action is allowed when no attribute value is specified`],
    [{ a: {} }, `${INVALID}Only DELETE action is allowed when no attribute value is specified`],
    [{ a: { Action: 'ADD' } }, `${INVALID}Only DELETE action is allowed when no attribute value is specified`],
    [{ a: { Action: 'DELETE', Value: { S: 'x' } } }, `${INVALID}DELETE action with value is not supported for the type S`],
    [{ a: { Action: 'DELETE', Value: { N: '1' } } }, `${INVALID}DELETE action with value is not supported for the type N`],
    [{ a: { Action: 'ADD', Value: { S: 'x' } } }, `${INVALID}ADD action is not supported for the type S`],
    [{ a: { Action: 'ADD', Value: { M: {} } } }, `${INVALID}ADD action is not supported for the type M`],
    [{ a: { Action: 'PUT', Value: { SS: [] } } }, `${INVALID}An string set  may not be empty`],
    [
      { a: { Action: 'REPLACE', Value: { S: 'x' } } },
      "1 validation error detected: Value 'REPLACE' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]",
    ],
  ])('%j', (updates, message) => {
    expect(() => compileRequest({ AttributeUpdates: updates }, 'UpdateItem')).toThrow(expect.objectContaining({ name: 'ValidationException', message }));
  });

  it('is checked before Expected, and cannot be mixed with UpdateExpression', () => {
    expect(() => compileRequest({ AttributeUpdates: { a: { Action: 'PUT' } }, Expected: { b: {} } }, 'UpdateItem')).toThrow(
      'Only DELETE action is allowed',
    );
    expect(() => compileRequest({ AttributeUpdates: { a: { Value: { S: 'x' } } }, UpdateExpression: 'REMOVE b' }, 'UpdateItem')).toThrow(
      'Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}',
    );
  });

  it('merges with Expected into one compiled request', () => {
    const out = compileRequest({ AttributeUpdates: { a: { Value: { S: 'x' } } }, Expected: { a: { Exists: false } } }, 'UpdateItem');
    expect(Object.keys(out).sort()).toEqual(['condition', 'update']);
  });
});
