import { describe, expect, it } from 'vitest';
import { SerializationException } from '../../src/model/errors.js';
import { scanMap, scanValue, toBytes } from '../../src/model/wire-shape.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('scanValue / scanMap', () => {
  it('accept well-shaped input regardless of validation rules', () => {
    expect(() => scanValue({ SS: [], NULL: false, N: 'dog', M: { a: {} } }, 1)).not.toThrow();
    expect(() => scanMap({ '': { L: [{ BS: [] }] } }, 0)).not.toThrow();
  });

  it('find a shape error anywhere', () => {
    const error = thrown(() => scanMap({ a: { S: 'x' }, b: { M: { c: { L: [{ BOOL: 1.5 }] } } } }, 0));
    expect(error).toBeInstanceOf(SerializationException);
    expect(error.message).toBe('DECIMAL_VALUE cannot be converted to Boolean');
  });

  it('stop descending at 256 levels instead of exhausting the stack', () => {
    let v: unknown = { S: 5 };
    for (let i = 0; i < 100_000; i++) v = { L: [v] };
    expect(() => scanValue(v, 1)).not.toThrow();
  });
});

describe('toBytes', () => {
  it('keeps a given Uint8Array by reference and decodes base64 text', () => {
    const bytes = Uint8Array.of(1, 2);
    expect(toBytes(bytes)).toBe(bytes);
    expect(toBytes('AQI=')).toEqual(bytes);
  });
});
