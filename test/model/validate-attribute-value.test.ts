import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SerializationException, ValidationException } from '../../src/model/errors.js';
import { INVALID_STRING, checkAttributeName, validateAttributeValue, validateItem } from '../../src/model/validate-attribute-value.js';

const P = 'One or more parameter values were invalid: ';
const EMPTY = 'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes';
const MULTI = 'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes';
const NESTING = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
const START_OF_MAP = 'Start of structure or map found where not expected';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

/** A value nested `levels` deep: level 1 is the outermost value. */
function nested(levels: number, container: 'M' | 'L'): unknown {
  let v: unknown = { S: 'leaf' };
  for (let i = 1; i < levels; i++) v = container === 'M' ? { M: { a: v } } : { L: [v] };
  return v;
}

describe('validateAttributeValue: accepted values', () => {
  it.each<[string, unknown, unknown]>([
    ['S', { S: 'abc' }, { S: 'abc' }],
    ['empty S', { S: '' }, { S: '' }],
    ['N canonicalised', { N: '+001.50' }, { N: '1.5' }],
    ['B from base64', { B: 'AAEC' }, { B: Uint8Array.of(0, 1, 2) }],
    ['B from bytes', { B: Uint8Array.of(7) }, { B: Uint8Array.of(7) }],
    ['empty B', { B: '' }, { B: new Uint8Array(0) }],
    ['BOOL', { BOOL: false }, { BOOL: false }],
    ['NULL', { NULL: true }, { NULL: true }],
    ['SS with empty member, stored bytewise', { SS: ['a', ''] }, { SS: ['', 'a'] }],
    ['SS stored bytewise', { SS: ['b', 'B', 'a'] }, { SS: ['B', 'a', 'b'] }],
    ['NS canonicalised', { NS: ['1.0', '2e1'] }, { NS: ['1', '20'] }],
    ['NS stored by value', { NS: ['10', '9', '-1'] }, { NS: ['-1', '9', '10'] }],
    ['BS with empty member, stored bytewise', { BS: ['AA==', ''] }, { BS: [new Uint8Array(0), Uint8Array.of(0)] }],
    ['empty L', { L: [] }, { L: [] }],
    ['empty M', { M: {} }, { M: {} }],
    ['nested', { M: { a: { L: [{ N: '1.0' }, { M: { b: { NULL: true } } }] } } }, { M: { a: { L: [{ N: '1' }, { M: { b: { NULL: true } } }] } } }],
    ['null and undefined members are absent', { S: 'x', N: null, B: undefined }, { S: 'x' }],
    ['unknown members are ignored', { S: 'x', X: 5 }, { S: 'x' }],
  ])('%s', (_name, wire, internal) => {
    expect(validateAttributeValue(wire)).toEqual(internal);
  });

  it('accepts exactly 32 levels of nesting', () => {
    expect(() => validateAttributeValue(nested(32, 'M'))).not.toThrow();
    expect(() => validateAttributeValue(nested(32, 'L'))).not.toThrow();
    expect(() => validateAttributeValue({ M: {} }, 32)).not.toThrow();
  });
});

describe('validateAttributeValue: ValidationException', () => {
  it.each<[string, unknown, string]>([
    ['empty object', {}, EMPTY],
    ['only null members', { S: null }, EMPTY],
    ['two types', { S: 'a', BOOL: true }, MULTI],
    ['two types, content checked first', { S: 'a', N: 'b' }, 'The parameter cannot be converted to a numeric value: b'],
    ['NULL false', { NULL: false }, `${P}Null attribute value types must have the value of true`],
    ['empty SS', { SS: [] }, `${P}An string set  may not be empty`],
    ['empty NS', { NS: [] }, `${P}An number set  may not be empty`],
    ['empty BS', { BS: [] }, `${P}Binary sets should not be empty`],
    ['SS duplicates', { SS: ['a', 'a'] }, `${P}Input collection ["a", "a"] contains duplicates.`],
    ['SS duplicates, sorted up to the first repeat', { SS: ['b', 'a', 'b'] }, `${P}Input collection ["a", "b", "b"] contains duplicates.`],
    ['SS duplicates, the rest as sent', { SS: ['c', 'a', 'c', 'b', 'a'] }, `${P}Input collection ["a", "c", "c", "b", "a"] contains duplicates.`],
    ['NS duplicates', { NS: ['1', '1'] }, `${P}Input collection contains duplicates.`],
    ['NS numeric duplicates', { NS: ['1', '1.0'] }, `${P}Input collection contains duplicates.`],
    ['NS numeric duplicates by exponent', { NS: ['100', '1e2'] }, `${P}Input collection contains duplicates.`],
    ['BS duplicates', { BS: ['Yg==', 'Yg=='] }, `${P}Input collection ["Yg==","Yg=="]of type BS contains duplicates.`],
    ['BS duplicates given as bytes', { BS: [Uint8Array.of(0x62), 'Yg=='] }, `${P}Input collection ["Yg==","Yg=="]of type BS contains duplicates.`],
    ['BS duplicates, bytewise up to the first repeat', { BS: ['/w==', 'AA==', 'AA=='] }, `${P}Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.`],
    ['bad N', { N: 'dog' }, 'The parameter cannot be converted to a numeric value: dog'],
    ['empty N', { N: '' }, 'The parameter cannot be converted to a numeric value: '],
    ['N with a space', { N: ' 1' }, 'The parameter cannot be converted to a numeric value:  1'],
    ['N overflow', { N: '1e126' }, 'Number overflow. Attempting to store a number with magnitude larger than supported range'],
    ['N underflow', { N: '1e-131' }, 'Number underflow. Attempting to store a number with magnitude smaller than supported range'],
    ['N precision', { N: '1'.repeat(39) }, 'Attempting to store more than 38 significant digits in a Number'],
    ['bad NS member', { NS: ['1', 'b'] }, 'The parameter cannot be converted to a numeric value: b'],
    ['empty nested value', { L: [{}] }, EMPTY],
    ['null list element', { L: [null] }, EMPTY],
    ['nested NULL false', { M: { a: { NULL: false } } }, `${P}Null attribute value types must have the value of true`],
    ['33 levels of M', nested(33, 'M'), NESTING],
    ['33 levels of L', nested(33, 'L'), NESTING],
  ])('%s', (_name, wire, message) => {
    const error = thrown(() => validateAttributeValue(wire));
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(message);
  });

  it('the older layer lists duplicates as sent and words numbers as BigDecimal does', () => {
    const older = (wire: unknown) => thrown(() => validateAttributeValue(wire, 1, 'older')).message;
    expect(older({ SS: ['b', 'a', 'b'] })).toBe(`${P}Input collection [b, a, b] contains duplicates.`);
    expect(older({ BS: ['/w==', 'AA==', 'AA=='] })).toBe(`${P}Input collection [/w==, AA==, AA==]of type BS contains duplicates.`);
    expect(older({ NS: ['2', '1', '2'] })).toBe('Input collection contains duplicates');
    expect(older({ N: '' })).toBe('The parameter cannot be converted to a numeric value');
    expect(older({ M: { a: { L: [{ N: '1e2147483647' }] } } })).toBe('Number underflow. Attempting to store a number with magnitude smaller than supported range');
    expect(thrown(() => validateItem({ n: { NS: ['1', 'abc'] } }, 'older')).message).toBe('The parameter cannot be converted to a numeric value: abc');
  });

  it('counts depth from the given level', () => {
    expect(thrown(() => validateAttributeValue({ S: 'x' }, 33)).message).toBe(NESTING);
    expect(thrown(() => validateAttributeValue({ M: { a: { S: 'x' } } }, 32)).message).toBe(NESTING);
  });
});

describe('validateAttributeValue: SerializationException', () => {
  it.each<[string, unknown, string]>([
    ['value is a string', 'x', 'Unexpected value type in payload'],
    ['value is a list', [], 'Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue'],
    ['N as a JSON number', { N: 123 }, 'NUMBER_VALUE cannot be converted to String'],
    ['N as a decimal', { N: 1.5 }, 'DECIMAL_VALUE cannot be converted to String'],
    ['S as a number', { S: 5 }, 'NUMBER_VALUE cannot be converted to String'],
    ['S as true', { S: true }, 'TRUE_VALUE cannot be converted to String'],
    ['S as false', { S: false }, 'FALSE_VALUE cannot be converted to String'],
    ['S as a list', { S: [] }, 'Unrecognized collection type class java.lang.String'],
    ['S as a map', { S: {} }, START_OF_MAP],
    ['BOOL as a string', { BOOL: 'true' }, 'Unexpected token received from parser'],
    ['BOOL as a number', { BOOL: 1 }, 'NUMBER_VALUE cannot be converted to Boolean'],
    ['NULL as a list', { NULL: [] }, 'Unrecognized collection type class java.lang.Boolean'],
    ['B as a number', { B: 5 }, 'only base-64-encoded strings are convertible to bytes'],
    ['B as a list', { B: [] }, 'Unrecognized collection type class java.nio.ByteBuffer'],
    ['B as a map', { B: {} }, START_OF_MAP],
    ['B bad length', { B: '23456' }, 'Base64 encoded length is expected a multiple of 4 bytes but found: 5'],
    ['B bad character', { B: '+/+=' }, 'Invalid last non-pad Base64 character dectected'],
    ['L as a string', { L: '23' }, 'Unexpected field type'],
    ['L as a map', { L: {} }, START_OF_MAP],
    ['SS as a string', { SS: 'a' }, 'Unexpected field type'],
    ['SS member a number', { SS: [1] }, 'NUMBER_VALUE cannot be converted to String'],
    ['NS member a number', { NS: [1] }, 'NUMBER_VALUE cannot be converted to String'],
    ['BS member a number', { BS: [1] }, 'only base-64-encoded strings are convertible to bytes'],
    ['BS member bad base64', { BS: ['AAA'] }, 'Base64 encoded length is expected a multiple of 4 bytes but found: 3'],
    ['M as a list', { M: [] }, 'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>'],
    ['M as a string', { M: 'x' }, 'Unexpected field type'],
    ['L element a string', { L: ['x'] }, 'Unexpected value type in payload'],
    ['M value a list', { M: { a: [] } }, 'Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue'],
    // Shape errors win over validation errors anywhere in the value, as in the service.
    ['after an empty set', { L: [{ SS: [] }, { N: 5 }] }, 'NUMBER_VALUE cannot be converted to String'],
    ['beside a second type', { S: 'a', N: 5 }, 'NUMBER_VALUE cannot be converted to String'],
    ['after a NULL false', { M: { a: { NULL: false }, b: { B: '***' } } }, 'Base64 encoded length is expected a multiple of 4 bytes but found: 3'],
    ['below the nesting limit', { M: { a: nested(40, 'L'), b: { BOOL: 'x' } } }, 'Unexpected token received from parser'],
  ])('%s', (_name, wire, message) => {
    const error = thrown(() => validateAttributeValue(wire));
    expect(error).toBeInstanceOf(SerializationException);
    expect(error.message).toBe(message);
  });
});

describe('validateItem', () => {
  it('converts every attribute into a fresh object', () => {
    const wire = { id: { S: 'a' }, n: { N: '01' }, b: { B: 'AQ==' } };
    const item = validateItem(wire);
    expect(item).toEqual({ id: { S: 'a' }, n: { N: '1' }, b: { B: Uint8Array.of(1) } });
    expect(item).not.toBe(wire);
  });

  it('skips attributes whose value is undefined', () => {
    expect(validateItem({ a: { S: 'x' }, b: undefined })).toEqual({ a: { S: 'x' } });
  });

  it('keeps an attribute named __proto__ without touching the prototype', () => {
    const item = validateItem(JSON.parse('{"__proto__":{"S":"p"},"m":{"M":{"__proto__":{"N":"1"}}}}'));
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.keys(item)).toEqual(['__proto__', 'm']);
    expect(Object.getOwnPropertyDescriptor(item, '__proto__')?.value).toEqual({ S: 'p' });
  });

  it.each<[string, unknown, string]>([
    ['a string', 'x', 'Unexpected field type'],
    ['a number', 5, 'Unexpected field type'],
    ['null', null, 'Unexpected field type'],
    ['a list', [], 'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>'],
    ['a value that is a string', { a: 'x' }, 'Unexpected value type in payload'],
    ['a shape error after a name error', { '': { S: 'x' }, b: { N: 1 } }, 'NUMBER_VALUE cannot be converted to String'],
  ])('rejects %s with SerializationException', (_name, wire, message) => {
    const error = thrown(() => validateItem(wire));
    expect(error).toBeInstanceOf(SerializationException);
    expect(error.message).toBe(message);
  });

  it.each<[string, unknown, string]>([
    ['an empty name', { '': { S: 'x' } }, 'Empty attribute name'],
    ['a name over 65,535 bytes', { ['a'.repeat(65_536)]: { S: 'x' } }, 'Attribute name is too large, must be less than 65536 bytes'],
    ['a name over 65,535 bytes in UTF-8', { ['é'.repeat(32_768)]: { S: 'x' } }, 'Attribute name is too large, must be less than 65536 bytes'],
    ['a bad value', { a: { NS: [] } }, `${P}An number set  may not be empty`],
    ['a top-level value nested 33 deep', { a: nested(33, 'M') }, NESTING],
    // Every top-level name is checked before any value, whatever the attribute order (captured).
    ['an empty name after a value nested 40 deep', { a: nested(40, 'M'), '': { S: 'x' } }, 'Empty attribute name'],
    ['an empty name before a value nested 40 deep', { '': { S: 'x' }, a: nested(40, 'M') }, 'Empty attribute name'],
    ['a value nested 40 deep before an empty map key inside another value', { m: { M: { '': { S: 'x' } } }, a: nested(40, 'M') }, NESTING],
  ])('rejects %s with ValidationException', (_name, wire, message) => {
    const error = thrown(() => validateItem(wire));
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(message);
  });

  it('accepts names of exactly 65,535 bytes', () => {
    expect(() => checkAttributeName('a'.repeat(65_535))).not.toThrow();
    expect(() => checkAttributeName('é'.repeat(32_767) + 'a')).not.toThrow();
    expect(() => validateItem({ ['a'.repeat(65_535)]: { S: 'x' } })).not.toThrow();
  });

  it('never throws anything but the two documented exceptions', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (json) => {
        try {
          validateItem({ a: json });
        } catch (error) {
          expect(error instanceof SerializationException || error instanceof ValidationException).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('strings that are not valid Unicode (lone surrogates)', () => {
  it.each([
    ['an S value', () => validateAttributeValue({ S: 'a\ud800' })],
    ['an SS member', () => validateAttributeValue({ SS: ['ok', '\udc00'] })],
    ['a nested S value', () => validateAttributeValue({ L: [{ M: { k: { S: '\ud801' } } }] })],
    ['a map key', () => validateAttributeValue({ M: { ['\ud800']: { S: 'v' } } })],
    ['a top-level attribute name', () => validateItem({ ['x\udfff']: { S: 'v' } })],
  ])('refuses %s with a ValidationException', (_, fn) => {
    const error = thrown(fn);
    expect(error).toBeInstanceOf(ValidationException);
    expect(error.message).toBe(INVALID_STRING);
  });

  it('accepts surrogate pairs', () => {
    expect(validateAttributeValue({ S: '\ud83d\ude00' })).toEqual({ S: '\ud83d\ude00' });
  });
});
