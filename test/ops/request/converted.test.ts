/**
 * A conversion done in the parse step reports where the operation meets the member: convert keeps
 * a DynamoDB error, accept throws it; anything else is a bug and is thrown at once.
 */
import { describe, expect, it } from 'vitest';
import { Refusal, accept, convert } from '../../../src/ops/request/converted.js';
import { SerializationException } from '../../../src/model/errors.js';

describe('convert and accept', () => {
  it('hands back a converted value unchanged', () => {
    const value = convert(() => ({ ReadCapacityUnits: 1 }));
    expect(accept(value)).toEqual({ ReadCapacityUnits: 1 });
  });

  it('keeps a DynamoDB error without throwing it, and throws that same error on accept', () => {
    const error = new SerializationException('Unexpected value type for Tags: expected a list');
    const kept = convert(() => {
      throw error;
    });
    expect(kept).toBeInstanceOf(Refusal);
    expect(Object.isFrozen(kept)).toBe(true);
    expect(() => accept(kept)).toThrow(error);
  });

  it('throws any other error at once: a bug is not a refusal', () => {
    expect(() =>
      convert(() => {
        throw new TypeError('x is undefined');
      }),
    ).toThrow(TypeError);
  });
});
