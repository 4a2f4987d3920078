import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue, Item } from '../../src/model/attribute-value.js';
import { decodeBase64, encodeBase64, toWireItem, toWireValue } from '../../src/model/binary.js';
import { SerializationException } from '../../src/model/errors.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('decodeBase64', () => {
  it.each([
    ['', []],
    ['AA==', [0]],
    ['AAE=', [0, 1]],
    ['AAEC', [0, 1, 2]],
    ['Yg==', [0x62]],
    ['/+8=', [0xff, 0xef]],
  ])('%j', (text, bytes) => {
    const out = decodeBase64(text);
    expect(Array.from(out)).toEqual(bytes);
    expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
  });

  it.each([
    ['23456', 'Base64 encoded length is expected a multiple of 4 bytes but found: 5'],
    ['AA=', 'Base64 encoded length is expected a multiple of 4 bytes but found: 3'],
    ['=+/=', 'Invalid last non-pad Base64 character dectected'],
    ['+/+=', 'Invalid last non-pad Base64 character dectected'],
    ['AB==', 'Invalid last non-pad Base64 character dectected'],
    ['A===', 'Invalid last non-pad Base64 character dectected'],
    ['AA-_', 'Invalid last non-pad Base64 character dectected'],
    ['AA A', 'Invalid last non-pad Base64 character dectected'],
    ['A=AA', 'Invalid last non-pad Base64 character dectected'],
    ['AAé=', 'Invalid last non-pad Base64 character dectected'],
  ])('rejects %j', (text, message) => {
    const error = thrown(() => decodeBase64(text));
    expect(error).toBeInstanceOf(SerializationException);
    expect(error.message).toBe(message);
  });

  it('round-trips with encodeBase64 and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(text)).toEqual(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it('encodes a view of a larger buffer without its neighbours', () => {
    const backing = Uint8Array.of(9, 1, 2, 3, 9);
    expect(encodeBase64(backing.subarray(1, 4))).toBe('AQID');
  });
});

describe('toWireValue / toWireItem', () => {
  it('shares values without binary by reference', () => {
    const value: AttributeValue = { M: { a: { S: 'x' }, l: { L: [{ N: '1' }, { SS: ['a'] }] } } };
    expect(toWireValue(value)).toBe(value);
    const item: Item = { k: { S: 'k' }, v: value };
    expect(toWireItem(item)).toBe(item);
  });

  it('converts binary anywhere and copies only the path to it', () => {
    const shared: AttributeValue = { M: { deep: { S: 'kept' } } };
    const item: Item = {
      a: { S: 'x' },
      b: { B: Uint8Array.of(0, 1) },
      s: shared,
      l: { L: [{ N: '1' }, { BS: [Uint8Array.of(0xff), Uint8Array.of()] }, { M: { z: { B: Uint8Array.of(0x62) } } }] },
    };
    const wire = toWireItem(item);
    expect(wire).toEqual({
      a: { S: 'x' },
      b: { B: 'AAE=' },
      s: { M: { deep: { S: 'kept' } } },
      l: { L: [{ N: '1' }, { BS: ['/w==', ''] }, { M: { z: { B: 'Yg==' } } }] },
    });
    expect(wire).not.toBe(item);
    expect(wire['a']).toBe(item['a']);
    expect(wire['s']).toBe(shared);
    expect(Object.keys(wire)).toEqual(['a', 'b', 's', 'l']);
  });

  it('keeps an attribute named __proto__ as an own attribute', () => {
    const item = JSON.parse('{"__proto__":{"S":"p"},"b":{"S":"x"}}') as Item;
    const withBinary = { ...item } as { [k: string]: AttributeValue };
    Object.defineProperty(withBinary, '__proto__', { value: { B: Uint8Array.of(1) }, enumerable: true });
    const wire = toWireItem(withBinary);
    expect(Object.hasOwn(wire, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(wire)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(wire, '__proto__')?.value).toEqual({ B: 'AQ==' });
  });
});
