import type { Item } from '../../src/model/attribute-value.js';

/** The item most condition cases run against. */
export const ITEM: Item = {
  pk: { S: 'p1' },
  n: { N: '5' },
  neg: { N: '-2.5' },
  s: { S: 'hello' },
  e: { S: '' },
  astral: { S: '😀a' },
  b: { B: new Uint8Array([1, 2, 3]) },
  t: { BOOL: true },
  nul: { NULL: true },
  ss: { SS: ['a', 'b', 'c'] },
  ns: { NS: ['1', '2', '10'] },
  bs: { BS: [new Uint8Array([1]), new Uint8Array([2, 3])] },
  l: { L: [{ S: 'x' }, { N: '7' }, { M: { deep: { S: 'd' } } }] },
  m: { M: { a: { N: '1' }, inr: { M: { z: { S: 'zz' } } }, lst: { L: [{ N: '1' }] } } },
  'dash-name': { S: 'dashed' },
  name: { S: 'reserved' },
};
