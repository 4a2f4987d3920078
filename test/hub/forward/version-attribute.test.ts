import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareHlc } from '../../../src/stream/hlc.js';
import { encodeVersion, newerThanCondition, VERSION_ATTRIBUTE } from '../../../src/hub/forward/version-attribute.js';

describe('encodeVersion', () => {
  it('writes the clock as zero-padded ms and counter', () => {
    expect(encodeVersion({ ms: 1_764_566_400_000, counter: 3 })).toBe('001764566400000.0000000003');
    expect(encodeVersion({ ms: 0, counter: 0 })).toBe('000000000000000.0000000000');
  });

  it("orders as strings (DynamoDB's bytewise order) exactly as the clocks order", () => {
    const hlc = fc.record({ ms: fc.integer({ min: 0, max: 999_999_999_999_999 }), counter: fc.integer({ min: 0, max: 4_294_967_295 }) });
    fc.assert(
      fc.property(hlc, hlc, (a, b) => {
        const x = encodeVersion(a);
        const y = encodeVersion(b);
        expect(Math.sign(x < y ? -1 : x > y ? 1 : 0)).toBe(Math.sign(compareHlc(a, b)));
      }),
    );
  });

  it('conditions a write on the endpoint holding no version or an older one', () => {
    expect(newerThanCondition('v')).toEqual({
      ConditionExpression: 'attribute_not_exists(#v) OR #v < :v',
      ExpressionAttributeNames: { '#v': VERSION_ATTRIBUTE },
      ExpressionAttributeValues: { ':v': { S: 'v' } },
    });
  });
});
