import { describe, expect, it } from 'vitest';
import { compileExpressions, projectionTopLevelNames, projectItem } from '../../src/expr/index.js';
import type { Item } from '../../src/model/attribute-value.js';

const ITEM: Item = {
  pk: { S: 'k' },
  a: { N: '1' },
  l: { L: [{ S: 'x' }, { S: 'y' }, { S: 'z' }, { M: { p: { N: '1' }, q: { N: '2' } } }] },
  m: { M: { b: { S: 'b' }, c: { M: { d: { S: 'd' } } }, e: { L: [{ N: '0' }, { N: '1' }] } } },
  'odd name': { S: 'odd' },
};

const CASES: readonly (readonly [string, Item, Record<string, string>?])[] = [
  ['a', { a: { N: '1' } }],
  ['a, pk', { a: { N: '1' }, pk: { S: 'k' } }],
  ['gone', {}],
  ['a, gone', { a: { N: '1' } }],
  ['l[2], l[0]', { l: { L: [{ S: 'x' }, { S: 'z' }] } }],
  ['l[0], l[9]', { l: { L: [{ S: 'x' }] } }],
  ['l[9]', {}],
  ['l[3].p, l[3].q', { l: { L: [{ M: { p: { N: '1' }, q: { N: '2' } } }] } }],
  ['l[3].q', { l: { L: [{ M: { q: { N: '2' } } }] } }],
  ['l[3].zz', {}],
  ['m.b', { m: { M: { b: { S: 'b' } } } }],
  ['m.c.d, m.b', { m: { M: { b: { S: 'b' }, c: { M: { d: { S: 'd' } } } } } }],
  ['m.e[1]', { m: { M: { e: { L: [{ N: '1' }] } } } }],
  ['m.gone', {}],
  ['a.b', {}],
  ['m[0]', {}],
  ['#o', { 'odd name': { S: 'odd' } }, { '#o': 'odd name' }],
  ['#m.#b', { m: { M: { b: { S: 'b' } } } }, { '#m': 'm', '#b': 'b' }],
];

describe('projectItem', () => {
  for (const [expression, expected, names] of CASES) it(String(expression), () => {
    const { projection } = compileExpressions({ ProjectionExpression: expression, ...(names ? { ExpressionAttributeNames: names } : {}) });
    expect(projectItem(projection!, ITEM)).toEqual(expected);
  });

  it('reports the top-level names a projection needs', () => {
    const { projection } = compileExpressions({ ProjectionExpression: 'a, m.b, l[0], #x', ExpressionAttributeNames: { '#x': 'x y' } });
    expect([...projectionTopLevelNames(projection!)].sort()).toEqual(['a', 'l', 'm', 'x y']);
  });
});

describe('projectItem with an attribute named __proto__', () => {
  it('keeps it as an ordinary attribute at the top level and inside maps', () => {
    const item = JSON.parse('{"__proto__":{"M":{"__proto__":{"S":"x"},"other":{"N":"1"}}}}') as Item;
    const { projection } = compileExpressions({ ProjectionExpression: '#p.#p', ExpressionAttributeNames: { '#p': '__proto__' } });
    const out = projectItem(projection!, item);
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"M":{"__proto__":{"S":"x"}}}}');
  });
});
