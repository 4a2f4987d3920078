import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributeValueSize, itemSize } from '../../src/model/item-size.js';
import { MAX_ITEM_BYTES } from '../../src/model/limits.js';
import { validateAttributeValue, validateItem, validateSizedItem } from '../../src/model/validate-attribute-value.js';

describe('itemSize: worked examples (§1.5)', () => {
  it.each<[string, unknown, number]>([
    ['shirt example', { 'shirt-color': { S: 'R' }, 'shirt-size': { S: 'M' } }, 23],
    ['map', { m: { M: { a: { N: '1' } } } }, 8],
    ['list', { l: { L: [{ N: '1' }, { S: 'ab' }] } }, 10],
    ['empty', {}, 0],
    ['empty L and M', { l: { L: [] }, m: { M: {} } }, 8],
    ['UTF-8 names and values', { 'é': { S: '😀' } }, 6],
    ['binary counts raw bytes', { b: { B: 'AAECAwQ=' } }, 6],
    ['BOOL and NULL', { t: { BOOL: true }, n: { NULL: true } }, 4],
    ['SS sums members', { s: { SS: ['ab', 'c', ''] } }, 4],
    ['NS sums number sizes', { s: { NS: ['7', '-42', '123.45'] } }, 1 + 2 + 3 + 4],
    ['BS sums raw lengths', { s: { BS: ['AA==', 'AAE=', ''] } }, 4],
    ['N uses the number formula', { n: { N: '1E125' } }, 3],
    ['nested overheads', { m: { M: { k: { L: [{ M: {} }, { BOOL: false }] } } } }, 1 + 3 + (1 + 1 + (3 + (1 + 3) + (1 + 1)))],
  ])('%s = %d bytes', (_name, wire, size) => {
    expect(itemSize(validateItem(wire))).toBe(size);
  });

  it('a 4,096-byte item: the read-unit boundary', () => {
    expect(itemSize(validateItem({ a: { S: 'x'.repeat(4095) } }))).toBe(4096);
  });

  it('exactly 409,600 bytes fits, 409,601 does not', () => {
    const fits = validateItem({ pk: { S: 'k' }, data: { S: 'x'.repeat(MAX_ITEM_BYTES - 2 - 1 - 4) } });
    const over = validateItem({ pk: { S: 'k' }, data: { S: 'x'.repeat(MAX_ITEM_BYTES - 2 - 1 - 4 + 1) } });
    expect(itemSize(fits)).toBe(409_600);
    expect(itemSize(over)).toBe(409_601);
    expect(itemSize(fits) <= MAX_ITEM_BYTES).toBe(true);
    expect(itemSize(over) <= MAX_ITEM_BYTES).toBe(false);
  });

  it('binary limit counts raw bytes, not base64', () => {
    const raw = Buffer.alloc(MAX_ITEM_BYTES - 1, 7);
    const item = validateItem({ b: { B: raw.toString('base64') } });
    expect(itemSize(item)).toBe(MAX_ITEM_BYTES);
  });
});

describe('attributeValueSize', () => {
  it.each<[unknown, number]>([
    [{ S: '' }, 0],
    [{ B: '' }, 0],
    [{ N: '0' }, 1],
    [{ N: '-0.0000001' }, 3],
    [{ L: [{ S: '' }] }, 4],
    [{ M: { '': { S: '' } } }, 4],
  ])('%j = %d', (wire, size) => {
    expect(attributeValueSize(validateAttributeValue(wire))).toBe(size);
  });
});

describe('validateSizedItem: the size counted while validating', () => {
  const name = fc.oneof(fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }), fc.constantFrom('__proto__', 'é', '😀x'));
  const text = fc.string({ maxLength: 20, unit: 'binary' });
  const number = fc.oneof(fc.integer().map(String), fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), fc.constantFrom('1E125', '-0.000001', '00012.50'));
  const wireValue = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text.map((S) => ({ S })),
      number.map((N) => ({ N })),
      fc.uint8Array({ maxLength: 10 }).map((B) => ({ B })),
      fc.boolean().map((BOOL) => ({ BOOL })),
      fc.constant({ NULL: true }),
      fc.uniqueArray(text, { minLength: 1, maxLength: 4 }).map((SS) => ({ SS })),
      fc.uniqueArray(fc.integer(), { minLength: 1, maxLength: 4 }).map((ns) => ({ NS: ns.map(String) })),
      fc.array(fc.uint8Array({ maxLength: 4 }), { minLength: 1, maxLength: 3 }).map((BS) => ({ BS })),
      fc.array(tie('value'), { maxLength: 3 }).map((L) => ({ L })),
      fc.dictionary(name, tie('value'), { maxKeys: 3 }).map((M) => ({ M })),
    ),
  }));
  const wireItem = fc.dictionary(name, wireValue.value, { maxKeys: 6 });

  it('equals itemSize of the validated item, or fails as validateItem does', () => {
    fc.assert(
      fc.property(wireItem, (wire) => {
        let expected: number | Error;
        try {
          expected = itemSize(validateItem(wire));
        } catch (e) {
          expected = e as Error;
        }
        const sized = { size: -1 };
        if (expected instanceof Error) {
          expect(() => validateSizedItem(wire, sized)).toThrow(expected.message);
          expect(sized.size).toBe(-1);
        } else {
          expect(validateSizedItem(wire, sized)).toEqual(validateItem(wire));
          expect(sized.size).toBe(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('counts the worked examples', () => {
    const sized = { size: 0 };
    validateSizedItem({ m: { M: { k: { L: [{ M: {} }, { BOOL: false }] } } } }, sized);
    expect(sized.size).toBe(1 + 3 + (1 + 1 + (3 + (1 + 3) + (1 + 1))));
    validateSizedItem({ 'é': { S: '😀' }, s: { SS: ['ab', 'c', ''] }, n: { NS: ['7', '-42', '123.45'] } }, sized);
    expect(sized.size).toBe(6 + (1 + 3) + (1 + 2 + 3 + 4));
  });
});
