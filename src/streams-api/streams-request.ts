/** Request checks the four Streams operations share, as Coral constraint errors. */
import { SerializationException } from '../model/errors.js';
import type { ConstraintErrors } from '../ops/request/request-checks.js';

/** A string member with DynamoDB Streams' length bounds; returns it when it is a string. */
export function checkString(errors: ConstraintErrors, value: unknown, member: string, min: number, max: number, required: boolean): string | undefined {
  if (value === undefined || value === null) {
    if (required) errors.addNull(member);
    return undefined;
  }
  if (typeof value !== 'string') throw new SerializationException(`Unexpected value type for ${member}: expected a string`);
  if (value.length < min) errors.add(value, member, `Member must have length greater than or equal to ${min}`);
  if (value.length > max) errors.add(value, member, `Member must have length less than or equal to ${max}`);
  return value;
}

/** Limit in [1, max]; returns it when it is a number. */
export function checkLimit(errors: ConstraintErrors, value: unknown, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new SerializationException('Unexpected value type for limit: expected an integer');
  if (value < 1) errors.add(value, 'limit', 'Member must have value greater than or equal to 1');
  if (value > max) errors.add(value, 'limit', `Member must have value less than or equal to ${max}`);
  return value;
}
