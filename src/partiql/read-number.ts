/**
 * How DynamoDB's PartiQL reads a number (a `?` parameter's N, or a literal): as the older value
 * checker does (model/number.ts parseNumber with layer 'older', Java's BigDecimal: an exponent or
 * scale past a 32-bit integer cannot be converted, and 1e2147483647 wraps to an underflow;
 * captured from DynamoDB, paritysuite tier3 partiqlParameterNumbers).
 */
import { ValidationException } from '../model/errors.js';
import { SYNTAX_MESSAGE, parseNumber } from '../model/number.js';

/** A literal DynamoDB cannot read as a number at all; callers word it themselves. */
export class UnconvertibleNumber extends Error {}

/**
 * Checks `text` as DynamoDB's PartiQL does; returns nothing when it is a number DynamoDB stores.
 * @throws UnconvertibleNumber when it cannot be read at all.
 * @throws ValidationException with DynamoDB's range or precision text otherwise.
 */
export function checkPartiqlNumber(text: string): void {
  try {
    parseNumber(text, 'older');
  } catch (error) {
    if (error instanceof ValidationException && error.message.startsWith(SYNTAX_MESSAGE)) throw new UnconvertibleNumber(text);
    throw error;
  }
}
