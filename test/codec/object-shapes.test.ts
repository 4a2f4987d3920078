import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_SHAPE_NAMES, hashNames, setCompileSpacing, shapeOf, type ShapeBuilder } from '../../src/codec/object-shapes.js';

const hashOf = (names: readonly string[]): number => hashNames(names, 0, names.length);
const shapeBuilder = (names: readonly string[], at: number, count: number, hash: number): ShapeBuilder | undefined => shapeOf(names, at, count, hash)?.build;

/**
 * The builder of `names` as a reader sees it once they keep repeating (at an offset, as in a
 * stack): a compiled sequence another test left in the slot gives it up after 16 others.
 */
function builderOf(names: readonly string[], at = 3): ShapeBuilder | undefined {
  const stack = [...Array<string>(at).fill('pad'), ...names];
  let build: ShapeBuilder | undefined;
  for (let i = 0; i < 20 && !build; i++) build = shapeBuilder(stack, at, names.length, hashOf(names));
  return build;
}

/** The oracle: the object built by adding the properties one by one. */
function byAdds(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  names.forEach((name, i) => Object.defineProperty(out, name, { value: values[i], enumerable: true, writable: true, configurable: true }));
  return out;
}

function expectSameObject(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(Object.getPrototypeOf(actual)).toBe(Object.prototype);
  expect(Reflect.ownKeys(actual)).toEqual(Reflect.ownKeys(expected));
  for (const key of Reflect.ownKeys(expected)) expect(Object.getOwnPropertyDescriptor(actual, key)).toEqual(Object.getOwnPropertyDescriptor(expected, key));
}

describe('object shapes', () => {
  beforeEach(() => setCompileSpacing(0));

  it('gives no builder for a name sequence seen once, then one that builds the objects adds would build', () => {
    const names = ['sensorId', 'ts', 'temperature'];
    const stack = ['x', ...names];
    expect(shapeBuilder(stack, 1, 3, hashOf(names))).toBeUndefined();
    const build = shapeBuilder(stack, 1, 3, hashOf(names));
    expect(build).toBeTypeOf('function'); // the first test: its slot is free
    const values = ['pad', 'pad', { S: 'a' }, { N: '1' }, { N: '21.5' }];
    expectSameObject(build!(values, 2), byAdds(names, values.slice(2)));
    expect(shapeBuilder(stack, 1, 3, hashOf(names))).toBe(build);
    expect(shapeOf(stack, 1, 3, hashOf(names))?.names).toEqual(names);
  });

  it('hashes a sequence alike wherever it lies', () => {
    expect(hashNames(['x', 'a', 'b'], 1, 2)).toBe(hashOf(['a', 'b']));
    expect(hashOf(['a', 'b'])).not.toBe(hashOf(['b', 'a']));
  });

  it.each<[string, string[]]>([
    ['integer-like names (ordered first, ascending, as on any object)', ['b', '7', 'a', '0', '4294967295', '01']],
    ['names that are JS syntax', ['"', "'", '\\', '`${x}`', '}; throw 1; ({', '\u2028\u2029', '\n', '\ud800', '']],
    ['names of Object.prototype members', ['constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf']],
    ['no names', []],
    [`${MAX_SHAPE_NAMES} names`, Array.from({ length: MAX_SHAPE_NAMES }, (_, i) => `n${i}`)],
  ])('builds %s exactly', (_label, names) => {
    const build = builderOf(names);
    expect(build).toBeTypeOf('function');
    const values = ['pad', 'pad', 'pad', ...names.map((_, i) => ({ N: String(i) }))];
    expectSameObject(build!(values, 3), byAdds(names, values.slice(3)));
  });

  it.each<[string, string[]]>([
    ['"__proto__" (a literal would set the prototype)', ['a', '__proto__']],
    ['a repeated name', ['a', 'b', 'a']],
    ['a name longer than 255 characters', ['a', 'x'.repeat(256)]],
  ])('never compiles a sequence with %s', (_label, names) => {
    expect(builderOf(names)).toBeUndefined();
    expect(builderOf(names)).toBeUndefined();
  });

  it('tells sequences apart by every name, in order, past slot collisions', () => {
    const sequences = Array.from({ length: 3000 }, (_, i) => (i % 2 === 0 ? [`a${i}`, `b${i >> 1}`] : [`b${i >> 1}`, `a${i - 1}`]));
    for (let round = 0; round < 3; round++) {
      for (const names of sequences) {
        const build = shapeBuilder(names, 0, names.length, hashOf(names));
        if (build) expectSameObject(build(names, 0), byAdds(names, names));
      }
    }
  });

  it('keeps a compiled sequence in its slot until 16 others in a row have asked for it', () => {
    const names = ['kept', 'a'];
    const kept = builderOf(names, 0)!;
    const rivals: string[][] = [];
    for (let i = 0; rivals.length < 16 && i < 1_000_000; i++) {
      const rival = [`rival${i}`, 'a'];
      if (((hashOf(rival) ^ (hashOf(rival) >>> 15)) & 2047) === ((hashOf(names) ^ (hashOf(names) >>> 15)) & 2047)) rivals.push(rival);
    }
    for (const rival of rivals.slice(0, 15)) expect(shapeBuilder(rival, 0, 2, hashOf(rival))).toBeUndefined();
    expect(shapeBuilder(names, 0, 2, hashOf(names))).toBe(kept);
    for (const rival of rivals) shapeBuilder(rival, 0, 2, hashOf(rival));
    expect(shapeBuilder(names, 0, 2, hashOf(names))).toBeUndefined();
    expect(kept(['x', 'y'], 0)).toEqual({ kept: 'x', a: 'y' });
  });

  it('compiles at most one sequence per spacing of lookups, so ever new sequences cost no compile each', () => {
    setCompileSpacing(100);
    const compiled = new Set<ShapeBuilder>();
    const sequences = Array.from({ length: 1000 }, (_, i) => [`spaced${i}`, 'x']);
    for (let round = 0; round < 2; round++) {
      for (const names of sequences) {
        const build = shapeBuilder(names, 0, 2, hashOf(names));
        if (build) compiled.add(build);
      }
    }
    expect(compiled.size).toBeGreaterThanOrEqual(1);
    expect(compiled.size).toBeLessThanOrEqual(2000 / 100 + 1);
    // A sequence that keeps repeating is compiled once the spacing has passed.
    const names = ['spaced', 'late'];
    let build: ShapeBuilder | undefined;
    for (let i = 0; i < 101 && !build; i++) build = shapeBuilder(names, 0, 2, hashOf(names));
    expect(build).toBeTypeOf('function');
  });

  it('builds what adds build for any names (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 6, unit: 'binary' }), { maxLength: 10 }), (names) => {
        const build = builderOf(names);
        if (names.includes('__proto__')) expect(build).toBeUndefined();
        else expectSameObject(build!([0, 0, 0, ...names], 3), byAdds(names, names));
      }),
      { numRuns: 2000 },
    );
  });
});
